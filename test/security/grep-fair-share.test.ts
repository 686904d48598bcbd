import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, tempDir } from '../helpers/engine';
import { addUser } from '../accounts/helpers';

/**
 * Attack: one FREE user sends 16 catastrophic regexes (/(a+)+$/ on long lines) at once. Before,
 * all 16 ran, held every grep worker for their whole budget, and the owner's ordinary grep took
 * ~10 s instead of 10–40 ms. Now a user has at most 2 greps running (the rest: 429 with
 * Retry-After, before any work, free), so the owner's grep still gets workers and answers.
 */
test('concurrent greps are capped per user (429 + Retry-After, nothing charged); another user\'s grep still answers', { timeout: 120_000 }, async () => {
  const folder = path.join(tempDir('loupe-fair-'), 'fair');
  fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
  for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(folder, 'src', `long${i}.txt`), `${'a'.repeat(30_000)}!\n`);
  fs.writeFileSync(path.join(folder, 'src', 'main.ts'), 'export const answer = 42;\n');
  const t = await createTestApp({ search: { grepBudgetMs: 2500 }, accounts: { sharedFolders: [{ path: folder, users: ['*'] }] } });
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const attacker = addUser(t, { plan: 'FREE', credits: 1000 });
    assert.equal((await attacker.as('POST', '/v2/repos/index/new', { url: folder })).status, 200);
    const grep = (as: typeof t.call, query: string) => as('POST', '/v2/search', { query, scan_mode: 'grep_code', repo_ids: [repoId] });
    await grep(t.call, '/answer/'); // the workers start
    const baseline = Date.now();
    assert.equal((await grep(t.call, '/answer = \\d+/')).status, 200);
    const alone = Date.now() - baseline;
    const usedBefore = t.engine.accounts.meta(attacker.userId).credits_used;

    const attack = Array.from({ length: 16 }, () => grep(attacker.as, '/(a+)+$/'));
    await new Promise((r) => setTimeout(r, 200)); // the two admitted ones are running
    const started = Date.now();
    const owners = await grep(t.call, '/answer = \\d+/');
    const during = Date.now() - started;
    const answers = await Promise.all(attack);

    assert.equal(owners.status, 200, `the owner's grep: ${JSON.stringify(owners.body)}`);
    assert.ok(JSON.stringify(owners.body.data).includes('answer = 42'));
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 429).length, 14, `statuses: ${statuses}`);
    const limited = answers.find((r) => r.status === 429)!;
    assert.equal(limited.body.code, 'RATE_LIMITED');
    assert.equal(limited.headers['retry-after'], '1');
    assert.deepEqual(statuses.filter((s) => s !== 429), [400, 400], 'the two admitted ones ran out of budget');
    assert.equal(t.engine.accounts.meta(attacker.userId).credits_used, usedBefore, 'refused and timed-out greps cost nothing');
    // The owner's grep answers (it is neither refused nor timed out behind the attacker's workers). Its
    // latency is logged, not bounded: on a machine loaded by other test runs (load 20+ on 2 cores) the
    // runaway workers and everything else share the CPU, and any fixed bound is noise. Measured here at
    // load 22: 120 ms alone, 4.7 s during the attack, most of it a cold grep worker starting under tsx
    // (1.1–1.4 s unloaded) while the attacker's two runaway scans hold the warm ones.
    console.log(`# owner's grep: ${alone} ms alone, ${during} ms during 16 runaway greps of another user`);
  } finally {
    await t.close();
  }
});
