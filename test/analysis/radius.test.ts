import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestApp, type TestApp } from '../helpers/engine';
import { gitFixture } from './git-fixture';

async function indexed(t: TestApp, folder: string): Promise<string> {
  const res = await t.call('POST', '/v2/repos/index/new', { url: folder });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await t.engine.queue.idle();
  return res.body.data.repo.repo_id;
}

type Dep = { file_path: string; depth: number; via: string[]; type_only: boolean };
const table = (deps: Dep[]) => Object.fromEntries(deps.map((d) => [d.file_path, [d.depth, d.type_only]]));

test('radius of a file is the exact reverse closure with depth, via and type-only', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, copyFixture('radius-graph'));
    let res = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/core/base.ts' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.meta.credits_used, 3);
    // Call sites not parsed within the call's time budget are parsed in the background: a later call is complete.
    for (let i = 0; i < 50 && res.body.data.targets[0].call_graph_complete === false; i++) {
      await new Promise((r) => setTimeout(r, 120)); // background parsing waits for a pause in analysis calls
      res = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/core/base.ts' });
    }
    assert.equal(res.body.data.targets[0].call_graph_complete, true);
    const target = res.body.data.targets[0];
    assert.deepEqual(table(target.dependents), {
      'src/core/util.ts': [1, false],
      'src/core/index.ts': [1, false],
      'src/feature/only-types.ts': [1, true],
      'src/feature/a.ts': [2, false], // through the tsconfig path alias @core/util
      'src/feature/b.ts': [2, false], // through the barrel's `export … from`
      'test/util.spec.ts': [2, false],
      'src/index.ts': [3, false],
      'bin/cli.js': [4, false], // a .js file importing ../src/index.js, resolved to index.ts
    });
    for (const d of target.dependents as Dep[]) {
      assert.equal(d.via.length, d.depth + 1);
      assert.equal(d.via[0], d.file_path);
      assert.equal(d.via.at(-1), 'src/core/base.ts');
    }
    assert.equal(res.body.data.summary.max_depth, 4);
    assert.deepEqual(target.entry_points.map((e: { file_path: string; kind: string }) => [e.file_path, e.kind]), [
      ['test/util.spec.ts', 'test'], ['src/index.ts', 'package-entry'], ['bin/cli.js', 'binary'],
    ]);
    assert.deepEqual(target.call_edges.map((c: { from_file: string; from_symbol: string; to_symbol: string }) => [c.from_file, c.from_symbol, c.to_symbol]), [
      ['src/core/util.ts', 'utilValue', 'baseValue'],
      ['src/feature/b.ts', 'featureB', 'baseValue'], // through the barrel
    ]);
    assert.deepEqual(target.data_flows.map((f: { symbol: string; file_path: string; in: string }) => [f.symbol, f.file_path, f.in]), [
      ['BASE_NAME', 'src/core/util.ts', 'utilValue'],
    ]);

    // Only types flow from types.ts: every dependent is type-only.
    const types = await t.call('POST', `/v2/repos/${repo}/radius`, { files: ['src/core/types.ts'], include: ['dependents'] });
    const typeDeps = types.body.data.targets[0].dependents as Dep[];
    assert.equal(typeDeps.length, 7);
    assert.ok(typeDeps.every((d) => d.type_only), JSON.stringify(typeDeps));
    assert.equal(types.body.data.targets[0].related_files, undefined, 'include projects the parts');

    // A `/// <reference path>` is a compile-time dependency only.
    const globals = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/globals.d.ts', include: ['dependents'] });
    assert.deepEqual(table(globals.body.data.targets[0].dependents), { 'src/index.ts': [1, true], 'bin/cli.js': [2, true] });

    // CommonJS require; a file nobody imports has no dependents.
    const helper = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/helper.cjs', include: ['dependents'] });
    assert.deepEqual(table(helper.body.data.targets[0].dependents), { 'src/legacy.cjs': [1, false] });
    const unused = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/unused.ts' });
    assert.equal(unused.body.data.targets[0].dependents_total, 0);
    assert.equal(unused.body.data.summary.risk, 'none');

    // A symbol target: only files that use the symbol, then their file-level closure.
    const sym = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/core/base.ts#BASE_NAME', include: ['dependents'] });
    const symDeps = table(sym.body.data.targets[0].dependents);
    assert.deepEqual(symDeps['src/core/util.ts'], [1, false]);
    assert.equal(symDeps['src/feature/only-types.ts'], undefined, 'does not use BASE_NAME');

    // A dependency target; limit caps the list, totals stay exact.
    const lodash = await t.call('POST', `/v2/repos/${repo}/radius`, { dependency: 'lodash', limit: 1 });
    const lt = lodash.body.data.targets[0];
    assert.equal(lt.dependents_total, 3);
    assert.equal(lt.dependents.length, 1);
    assert.equal(lt.truncated, true);
    assert.equal(lodash.body.data.source, 'dependencies');

    // Unknown items are reported per item, next to the known ones.
    const mixed = await t.call('POST', `/v2/repos/${repo}/radius`, { files: ['src/core/util.ts', 'src/nope.ts', 'src/core/base.ts#Nope'], dependencies: ['left-pad'] });
    assert.equal(mixed.status, 200);
    assert.deepEqual(mixed.body.data.summary.unknown, ['src/nope.ts', 'src/core/base.ts#Nope', 'left-pad']);
    assert.deepEqual(mixed.body.data.targets.map((x: { found: boolean }) => x.found), [true, false, false, false]);
    assert.match(mixed.body.data.targets[1].reason, /no indexed file/);
  } finally {
    await t.close();
  }
});

test('the summary is the union of its targets, in every mode (file, files, dependency, symbol, pull request)', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, gitFixture());
    const requests = [
      { file: 'src/core/base.ts' },
      { files: ['src/core/util.ts', 'src/feature/b.ts', 'src/core/types.ts'] },
      { dependency: 'lodash' },
      { files: ['src/core/types.ts'], dependencies: ['lodash'] },
      { file: 'src/core/base.ts#BASE_NAME' },
      { files: ['src/core/base.ts#baseValue', 'src/core/types.ts'], dependencies: ['lodash'] },
      { pr: 7 },
    ];
    for (const body of requests) {
      const res = await t.call('POST', `/v2/repos/${repo}/radius`, { ...body, include: ['dependents'], limit: 1 });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { targets, summary } = res.body.data;
      const all = await t.call('POST', `/v2/repos/${repo}/radius`, { ...body, include: ['dependents'], limit: 10000 });
      const union = new Map<string, Dep>();
      for (const target of all.body.data.targets as { found: boolean; dependents: Dep[] }[]) {
        assert.ok(target.found, JSON.stringify(target));
        for (const d of target.dependents) {
          const seen = union.get(d.file_path);
          union.set(d.file_path, seen ? { ...d, depth: Math.min(seen.depth, d.depth), type_only: seen.type_only && d.type_only } : d);
        }
      }
      const label = JSON.stringify(body);
      assert.ok(union.size > 0, label);
      assert.equal(summary.total_dependents, union.size, label);
      assert.equal(summary.direct_dependents, [...union.values()].filter((d) => d.depth === 1).length, label);
      assert.equal(summary.type_only_dependents, [...union.values()].filter((d) => d.type_only).length, label);
      assert.ok(summary.total_dependents >= Math.max(...targets.map((x: { dependents_total: number }) => x.dependents_total)), label);
      assert.notEqual(summary.risk, 'none', label);
    }
  } finally {
    await t.close();
  }
});

test('radius follows index changes (the cached graph is invalidated by the generation counter)', async () => {
  const t = await createTestApp();
  try {
    const folder = copyFixture('radius-graph');
    const repo = await indexed(t, folder);
    const before = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/unused.ts', include: ['dependents'] });
    assert.equal(before.body.data.targets[0].dependents_total, 0);
    fs.writeFileSync(path.join(folder, 'src/uses-unused.ts'), "import { lonely } from './unused.js';\nexport const x = lonely();\n");
    const record = t.engine.reposStore.get(repo)!;
    await t.engine.indexer.updatePaths(record, ['src/uses-unused.ts']);
    const after = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/unused.ts', include: ['dependents'] });
    assert.deepEqual(table(after.body.data.targets[0].dependents), { 'src/uses-unused.ts': [1, false] });
    fs.rmSync(path.join(folder, 'src/uses-unused.ts'));
    await t.engine.indexer.updatePaths(record, ['src/uses-unused.ts']);
    const removed = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/unused.ts', include: ['dependents'] });
    assert.equal(removed.body.data.targets[0].dependents_total, 0);
  } finally {
    await t.close();
  }
});

test('pull requests resolve from local history (merge commit, refs/pull) with co-change related files; otherwise a 400 that says why', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, gitFixture());
    const merged = await t.call('POST', `/v2/repos/${repo}/radius`, { pr: 7, include: ['dependents'] });
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.equal(merged.body.data.source, 'pull_request');
    assert.equal(merged.body.data.pull_request.source, 'git-merge-commit');
    assert.deepEqual(merged.body.data.pull_request.files, ['src/feature/b.ts']);
    assert.deepEqual(table(merged.body.data.targets[0].dependents), { 'src/index.ts': [1, false], 'bin/cli.js': [2, false] });

    const ref = await t.call('POST', `/v2/repos/${repo}/radius`, { pull_request: 9, include: ['dependents'] });
    assert.equal(ref.body.data.pull_request.source, 'git-pull-ref');
    assert.deepEqual(ref.body.data.pull_request.files, ['src/unused.ts']);

    // Files take precedence over the PR number.
    const both = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/core/types.ts', pr_number: 7, include: ['dependents'] });
    assert.equal(both.body.data.source, 'files');

    const missing = await t.call('POST', `/v2/repos/${repo}/radius`, { pr: 99 });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /#99 could not be resolved.*no GitHub remote.*local git: no refs\/pull\/99\/head/);

    // util.ts and a.ts changed together in a commit of their own.
    const related = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/core/util.ts', include: ['related_files'] });
    assert.equal(related.body.data.targets[0].related_files[0].file_path, 'src/feature/a.ts');
    assert.equal(related.body.data.targets[0].related_files[0].co_changes, 2);
  } finally {
    await t.close();
  }
});

test('pull requests resolve through the GitHub API (a local server stands in for it) with the token', async () => {
  const seen: { url?: string; auth?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url, auth: req.headers.authorization });
    if (req.url?.startsWith('/repos/acme/radius-fixture/pulls/5/files')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ filename: 'src/core/types.ts', status: 'modified' }, { filename: 'docs/gone.md', status: 'removed' }]));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = await createTestApp({ githubApiUrl: base, githubToken: 'test-token-123' });
  try {
    const repo = await indexed(t, gitFixture({ githubRemote: 'https://github.com/acme/radius-fixture.git' }));
    const res = await t.call('POST', `/v2/repos/${repo}/radius`, { pr: 5, include: ['dependents'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.pull_request.source, 'github-api');
    assert.deepEqual(res.body.data.summary.unknown, ['docs/gone.md']);
    assert.equal(res.body.data.targets[0].dependents_total, 7);
    assert.equal(seen[0].auth, 'Bearer test-token-123');
    // The API does not know #7; local history does.
    const fallback = await t.call('POST', `/v2/repos/${repo}/radius`, { pr: 7, include: ['dependents'] });
    assert.equal(fallback.body.data.pull_request.source, 'git-merge-commit');
  } finally {
    await t.close();
    server.close();
  }
});

test('radius input errors are 400s naming the field; the plan gate is a 403', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, copyFixture('radius-graph'));
    const cases: [unknown, RegExp][] = [
      [{}, /file: give file\/files, dependency\/dependencies, or pr/],
      [{ file: 42 }, /file: must be string/],
      [{ files: 'src/a.ts' }, /files: must be array/],
      [{ pr: 0 }, /pr: must be >= 1/],
      [{ pr: 7, pr_number: 8 }, /pr: pr, pull_request and pr_number name different/],
      [{ file: 'src/core/base.ts', include: ['everything'] }, /include\.0: must be one of/],
      [{ file: 'src/core/base.ts', limit: 0 }, /limit: must be >= 1/],
      [{ file: 'src/core/base.ts', surprise: true }, /surprise: is not a known field/],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('POST', `/v2/repos/${repo}/radius`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.message, message);
    }
    const unknownRepo = await t.call('POST', '/v2/repos/00000000-0000-4000-8000-000000000000/radius', { file: 'x.ts' });
    assert.equal(unknownRepo.status, 404);
  } finally {
    await t.close();
  }
  const free = await createTestApp({ accounts: { owner: { plan: 'FREE' } } });
  try {
    const repo = await indexed(free, copyFixture('radius-graph'));
    const res = await free.call('POST', `/v2/repos/${repo}/radius`, { file: 'src/core/base.ts' });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'PLAN_REQUIRED');
    assert.match(res.body.message, /DEV plan/);
    assert.equal(free.engine.accounts.meta(free.ownerId).credits_used, 0, 'a refused call is not charged');
  } finally {
    await free.close();
  }
});
