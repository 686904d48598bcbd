import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, tempDir } from '../helpers/engine';
import { startCli } from '../helpers/cli';

/**
 * Attack on the owner, by the owner's own hand: the key leaked, they regenerated it, and every
 * restart printed the old, now dead key from DATA_DIR/owner-key (or, worse, they kept using a file
 * someone copied). keys/regenerate by the owner rewrites the file (mode 0600) at once.
 */
test('the owner\'s keys/regenerate rewrites DATA_DIR/owner-key; the next start prints the new key, the old one is 401', { timeout: 90_000 }, async () => {
  const folder = copyFixture('ts-paths');
  const dataDir = tempDir('loupe-owner-key-');
  let oldKey: string;
  let newKey: string;
  const first = await startCli([folder, '--port', '0', '--data-dir', dataDir, '--no-watch']);
  try {
    oldKey = first.key;
    assert.equal(fs.readFileSync(path.join(dataDir, 'owner-key'), 'utf8').trim(), oldKey);
    const res = await fetch(`${first.url}/v2/keys/regenerate`, { method: 'POST', headers: { 'x-api-key': oldKey, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200);
    newKey = ((await res.json()) as any).data.key;
    assert.equal(fs.readFileSync(path.join(dataDir, 'owner-key'), 'utf8').trim(), newKey, 'the file holds the new key at once');
    assert.equal(fs.statSync(path.join(dataDir, 'owner-key')).mode & 0o777, 0o600);
  } finally {
    first.child.kill('SIGINT');
    await first.exited;
  }
  const second = await startCli([folder, '--port', '0', '--data-dir', dataDir, '--no-watch']);
  try {
    assert.equal(second.key, newKey, 'the start prints the live key');
    const works = await fetch(`${second.url}/v2/repos`, { headers: { 'x-api-key': newKey } });
    assert.equal(works.status, 200);
    const dead = await fetch(`${second.url}/v2/repos`, { headers: { 'x-api-key': oldKey } });
    assert.equal(dead.status, 401);
  } finally {
    second.child.kill('SIGINT');
    await second.exited;
  }
});
