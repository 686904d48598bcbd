import { test } from 'node:test';
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EngineCore } from '../../server/engine/core';
import { LoupeError } from '../../server/engine/errors';
import { createLogger } from '../../server/engine/log';
import { createHttpApp } from '../../server/host';
import { spawnSync } from 'node:child_process';
import { copyFixture, createTestApp, createTestEngine, FIXTURES, tempDir } from '../helpers/engine';
import { writeTsCorpus } from '../helpers/corpus';
import { indexSnapshot } from '../helpers/db-snapshot';
import { mountSmallDisk, permissionsApply } from '../helpers/small-disk';

/** Chunks the words backlog holds (no `chunks_fts` row yet; filled by the next run). */
function ftsPending(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'loupe.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM chunks WHERE id >= (SELECT from_id FROM fts_backlog)').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const pageCount = (engine: EngineCore) => engine.db.pragma('page_count', { simple: true }) as number;

test('disk full while indexing: a clear error in the repository status, no half-written batch, and it completes once there is room', { timeout: 120_000 }, async () => {
  const folder = writeTsCorpus(path.join(tempDir('loupe-full-corpus-'), 'corpus'), 1500);
  const disk = mountSmallDisk(3);
  const lines: string[] = [];
  const t = createTestEngine({
    ...(disk ? { dataDir: path.join(disk.dir, 'data') } : {}),
    log: createLogger((level, line) => lines.push(`[${level}] ${line}`)),
  });
  // Without a real small disk, SQLite's own limit gives the same SQLITE_FULL.
  if (!disk) t.engine.db.pragma(`max_page_count = ${pageCount(t.engine) + 300}`);
  try {
    const repo = t.engine.repos.registerLocalFolder(t.ownerId, folder);
    await t.engine.queue.idle();
    // The failure is in the database, or, when the full disk refused even that write, in memory.
    const failed = await t.engine.repos.status({ userId: t.ownerId } as never, folder);
    assert.equal(failed.state, 'failed');
    assert.match(failed.error ?? '', /disk that holds .* is full; free some space/);
    assert.ok(lines.some((l) => /\[error\] indexing .* failed: the disk .* is full/.test(l)), lines.join('\n'));

    const partial = indexSnapshot(path.join(t.dataDir, 'loupe.db'));
    assert.equal(partial.integrity, 'ok');
    assert.ok((partial.files as number) > 0 && (partial.files as number) < 1501, `some batches fit: ${partial.files}`);
    // A large run adds the search rows in bulk after each batch (migration 016): a failed run may leave its last
    // chunks in the backlog, which the next run fills. None is lost: every chunk has its row or is pending.
    assert.equal((partial.ftsRows as number) + ftsPending(t.dataDir), partial.chunks, 'no chunk without its search row, or pending');
    assert.equal(partial.orphanChunks, 0);

    // A charged call while the disk is full is refused in the error shape, and charges nothing.
    const app = await createHttpApp(t.engine);
    if (!disk) t.engine.db.pragma(`max_page_count = ${pageCount(t.engine)}`);
    const used = t.engine.accounts.meta(t.ownerId).credits_used;
    let full = await app.inject({ method: 'GET', url: '/v2/repos', headers: { 'x-api-key': t.key } });
    // Freed pages may still hold one small write; fill them with requests until the disk refuses.
    for (let i = 0; i < 3000 && full.statusCode === 200; i++) full = await app.inject({ method: 'GET', url: '/v2/repos', headers: { 'x-api-key': t.key } });
    assert.equal(full.statusCode, 507, full.body);
    assert.equal(JSON.parse(full.body).code, 'STORAGE_FULL');
    const afterRefusal = t.engine.accounts.meta(t.ownerId).credits_used;
    const refusedAgain = await app.inject({ method: 'GET', url: '/v2/repos', headers: { 'x-api-key': t.key } });
    assert.equal(refusedAgain.statusCode, 507);
    assert.equal(t.engine.accounts.meta(t.ownerId).credits_used, afterRefusal, 'a refused call charges nothing');
    assert.ok(afterRefusal >= used);
    await app.close();

    if (disk) disk.resize(64); else t.engine.db.pragma('max_page_count = 1073741823');
    t.engine.repos.registerLocalFolder(t.ownerId, folder);
    await t.engine.queue.idle();
    const done = t.engine.reposStore.get(repo.id)!;
    assert.equal(done.state, 'ready', done.error ?? '');
    const complete = indexSnapshot(path.join(t.dataDir, 'loupe.db'));
    assert.equal(complete.files, 1501);
    assert.equal(complete.ftsRows, complete.chunks);
    assert.equal(ftsPending(t.dataDir), 0, 'the backlog was filled');
  } finally {
    await t.close();
    disk?.unmount();
  }
});

test('a read-only data dir stops the start with a clear error and leaves the database where it is', async () => {
  const disk = mountSmallDisk(16);
  const dataDir = disk ? path.join(disk.dir, 'data') : tempDir('loupe-ro-');
  const first = createTestEngine({ dataDir });
  const folder = copyFixture('ts-paths');
  first.engine.repos.registerLocalFolder(first.ownerId, folder);
  await first.engine.queue.idle();
  await first.close();
  const before = fs.readdirSync(dataDir).sort();

  if (disk) disk.setReadOnly(true);
  else if (permissionsApply()) fs.chmodSync(dataDir, 0o555);
  else return; // root without mount rights: no way to make a folder read-only for ourselves
  try {
    assert.throws(() => new EngineCore({ dataDir, log: createLogger(() => {}) }), (error: unknown) => {
      assert.ok(error instanceof LoupeError, String(error));
      assert.equal(error.code, 'STORAGE_UNAVAILABLE');
      assert.match(error.message, /cannot be written \(read-only or no permission\); make the data dir writable or pass --data-dir/);
      return true;
    });
    assert.deepEqual(fs.readdirSync(dataDir).sort(), before, 'nothing moved aside or created');
  } finally {
    if (disk) disk.setReadOnly(false); else fs.chmodSync(dataDir, 0o755);
  }
  const again = createTestEngine({ dataDir });
  try {
    assert.equal(again.engine.reposStore.all()[0].state, 'ready', 'the same index, intact');
  } finally {
    await again.close();
    disk?.unmount();
  }
});

test('a repository folder that disappears or stops being a folder is reported in its status, not a crash', async () => {
  const t = await createTestApp();
  try {
    const folder = copyFixture('ts-paths');
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();

    fs.rmSync(folder, { recursive: true });
    const status = await t.call('POST', '/v2/repos/status', { url: folder });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.equal(status.body.data.state, 'missing');
    assert.equal(status.body.data.updating, false);
    // What was indexed stays readable.
    const files = await t.call('GET', `/v2/files/${repoId}?limit=5`);
    assert.equal(files.status, 200);
    assert.ok(files.body.data.length > 0);
    // Asking to re-index a folder that is gone is a clear 4xx, and the server carries on.
    const again = await t.call('POST', '/v2/repos/index/new', { url: folder, update: true });
    assert.ok(again.status >= 400 && again.status < 500, JSON.stringify(again.body));
    assert.match(again.body.message, /does not exist/);

    // A file where the folder was: the queued run fails with a message, nothing throws.
    fs.writeFileSync(folder, 'not a folder');
    t.engine.queue.enqueue(repoId);
    await t.engine.queue.idle();
    const repo = t.engine.reposStore.get(repoId)!;
    assert.equal(repo.state, 'failed');
    assert.match(repo.error ?? '', /does not exist or is not a folder/);
    const list = await t.call('GET', '/v2/repos');
    assert.equal(list.status, 200);
  } finally {
    await t.close();
  }
});

test('a folder that becomes unreadable is reported, not a crash', { timeout: 120_000 }, async () => {
  // Root reads every folder, so as root the scenario runs in a child process without the capabilities
  // that let root ignore permissions (it stays root, so it still reads the checkout wherever that lies,
  // even under a private 0700 folder another user could not enter).
  const work = tempDir('loupe-unreadable-');
  const asRoot = process.getuid?.() === 0;
  const dropped = '-dac_override,-dac_read_search';
  const node = [process.execPath, '--import', 'tsx', path.join(__dirname, 'workers', 'unreadable-folder.ts'), work, path.join(FIXTURES, 'ts-paths')];
  const [command, ...args] = asRoot ? ['setpriv', `--bounding-set=${dropped}`, `--inh-caps=${dropped}`, '--', ...node] : node;
  const child = spawnSync(command, args, { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8', timeout: 100_000 });
  assert.equal(child.status, 0, child.stderr);
  const result = JSON.parse(child.stdout.trim().split('\n').pop()!);
  assert.equal(result.bypassed, false, 'the worker could still read the unreadable folder');
  assert.equal(result.before, 'ready');
  assert.ok(result.after === 'failed' || result.after === 'missing', result.after);
  assert.match(result.error ?? '', /permission|EACCES|cannot be read|does not exist/i);
  assert.ok(result.files > 0, 'the index of the folder is kept, not wiped');
});
