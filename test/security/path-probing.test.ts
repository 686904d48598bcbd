import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestApp, tempDir } from '../helpers/engine';
import { addUser } from '../accounts/helpers';

/**
 * Attack: index/new as a file-system oracle. It answered "is not a folder" for /etc/passwd and
 * "does not exist" for /etc/nope before checking that the path was one the server may read, so any
 * user could learn which paths exist anywhere on the machine. Outside the allowed folders every
 * path now gets the same 403, whatever is (or is not) there; links are followed before deciding.
 */
test('index/new outside the allowed folders answers the same for a file, a folder, nothing, and a link out', async () => {
  // Outside both allowed roots of the test app (the temp folder and the fixtures).
  const outside = fs.mkdtempSync(path.join(os.homedir(), '.loupe-outside-'));
  const t = await createTestApp();
  try {
    fs.writeFileSync(path.join(outside, 'file.txt'), 'x');
    fs.mkdirSync(path.join(outside, 'folder'));
    const inside = tempDir('loupe-inside-');
    fs.symlinkSync(path.join(outside, 'folder'), path.join(inside, 'link-out'));
    const eve = addUser(t, { plan: 'PRO', credits: 100 });
    const probes = [
      path.join(outside, 'file.txt'), path.join(outside, 'folder'), path.join(outside, 'nothing'),
      path.join(outside, 'nothing', 'deeper'), path.join(inside, 'link-out'), path.join(inside, 'link-out', 'nothing'),
    ];
    const answers = [];
    for (const url of probes) {
      const res = await eve.as('POST', '/v2/repos/index/new', { url });
      answers.push({ status: res.status, code: res.body.code, message: String(res.body.message).replace(url, '<path>') });
    }
    assert.equal(answers[0].status, 403, JSON.stringify(answers[0]));
    for (const a of answers) assert.deepEqual(a, answers[0]);
    assert.equal(answers[0].code, 'PATH_NOT_ALLOWED');
    assert.equal((await eve.as('GET', '/v2/repos')).body.data.length, 0);
  } finally {
    await t.close();
    fs.rmSync(outside, { recursive: true, force: true });
  }
});
