import { test } from 'node:test';
import assert from 'node:assert/strict';
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

test('blueprint: overview, README, dependencies, symbols, conventions; readme is its deprecated alias', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, copyFixture('radius-graph'));
    const res = await t.call('GET', `/v2/repos/${repo}/blueprint`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.meta.credits_used, 1);
    const bp = res.body.data;
    assert.match(bp.documentation, /^# radius-graph\n\nA tiny program with a known import graph, used by the analysis tests\./);
    assert.match(bp.documentation, /## Entry points\n\n- `bin\/cli\.js` \(bin rf in package\.json\)\n- `src\/index\.ts` \(main in package\.json\)\n- 1 test file/);
    assert.match(bp.documentation, /## Central modules[\s\S]*`src\/core\/base\.ts` — imported by 3, reaches 8/);
    assert.match(bp.documentation, /- build: `npm run build`\n- test: `npm test`/);
    assert.match(bp.data, /^# Radius fixture/);
    const deps = Object.fromEntries(bp.dependencies.map((d: { name: string; type: string; files: number; version: string }) => [d.name, [d.type, d.files, d.version]]));
    assert.deepEqual(deps.lodash, ['package', 1, '^4.17.21']);
    assert.deepEqual(deps.typescript, ['dev', 0, '^5.9.0']);
    const symbols = Object.fromEntries(bp.symbols.map((s: { name: string; used_by: number }) => [s.name, s.used_by]));
    assert.equal(symbols.utilValue, 2);
    assert.equal(symbols.baseValue, 2);
    assert.equal(bp.conventions.naming.functions.dominant, 'camelCase');
    assert.equal(bp.conventions.formatting.indentation.dominant, '2 spaces');
    assert.equal(bp.conventions.formatting.quotes.dominant, 'single');

    const scoped = await t.call('GET', `/v2/repos/${repo}/blueprint?conventions_path_prefix=src/core`);
    assert.equal(scoped.body.data.conventions.files, 4);

    const readme = await t.call('GET', `/v2/repos/${repo}/readme`);
    assert.equal(readme.status, 200);
    assert.equal(readme.headers.deprecation, 'true');
    assert.equal(readme.body.data.documentation, bp.documentation);
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(spec.paths['/v2/repos/{repo_id}/readme'].get.deprecated, true);
    for (const p of ['/v2/repos/{repo_id}/radius', '/v2/repos/{repo_id}/scope', '/v2/repos/{repo_id}/map', '/v2/repos/{repo_id}/review', '/v2/repos/{repo_id}/coverage-gaps', '/v2/files/{repo_id}/{file_id}']) {
      assert.ok(spec.paths[p], `${p} is in the OpenAPI document`);
    }
  } finally {
    await t.close();
  }
  const free = await createTestApp({ accounts: { owner: { plan: 'FREE' } } });
  try {
    const repo = await indexed(free, copyFixture('radius-graph'));
    const res = await free.call('GET', `/v2/repos/${repo}/blueprint`);
    assert.deepEqual(res.body.data.symbols, []);
    assert.equal(res.body.data.conventions, null);
    assert.ok(res.body.data.notes.some((n: string) => /PRO plan/.test(n)));
    const prefixed = await free.call('GET', `/v2/repos/${repo}/blueprint?conventions_path_prefix=src`);
    assert.equal(prefixed.status, 403);
  } finally {
    await free.close();
  }
});

test('scope: aggregates, drill-down, comparison; expand without name, over-limit compare_repos and bad type are 400s', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, copyFixture('radius-graph'));
    const other = await indexed(t, copyFixture('ts-paths'));
    const res = await t.call('POST', `/v2/repos/${repo}/scope`, {});
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = res.body.data;
    assert.equal(s.repo.repo_id, repo);
    assert.ok(s.scope.dependencies.items.some((d: { name: string; files: number }) => d.name === 'lodash' && d.files === 1));
    assert.ok(s.scope.functions.items.some((f: { name: string; usage: number }) => f.name === 'baseValue' && f.usage === 2));
    assert.ok(s.scope.variables.items.some((v: { name: string }) => v.name === 'BASE_NAME'));

    const byName = await t.call('POST', `/v2/repos/${repo}/scope`, { include: ['functions'], order: 'name', limit: 2, offset: 1 });
    assert.equal(byName.body.data.scope.dependencies, undefined);
    assert.equal(byName.body.data.scope.functions.items.length, 2);
    assert.equal(byName.body.data.scope.functions.pagination.offset, 1);

    const files = await t.call('POST', `/v2/repos/${repo}/scope`, { name: 'lodash', expand: 'files', type: 'package' });
    assert.deepEqual(files.body.data.expanded.files, [{ file_path: 'src/feature/b.ts', role: 'imports', lines: [2] }]);
    const fns = await t.call('POST', `/v2/repos/${repo}/scope`, { name: 'baseValue', expand: 'functions' });
    assert.deepEqual(fns.body.data.expanded.functions.map((f: { file_path: string; function: string }) => [f.file_path, f.function]).sort(), [
      ['src/core/util.ts', 'utilValue'], ['src/feature/b.ts', 'featureB'],
    ]);

    const unknown = '00000000-0000-4000-8000-000000000000';
    const cmp = await t.call('POST', `/v2/repos/${repo}/scope`, { include: ['dependencies'], compare_repos: [other, unknown] });
    assert.equal(cmp.body.data.comparison[0].found, true);
    assert.deepEqual(cmp.body.data.comparison[0].shared, ['lodash']);
    assert.ok(cmp.body.data.comparison[0].only_in_source.includes('typescript'));
    assert.equal(cmp.body.data.comparison[1].found, false);

    const bad: [unknown, RegExp][] = [
      [{ expand: 'files' }, /expand: requires name/],
      [{ compare_repos: Array.from({ length: 26 }, () => unknown) }, /compare_repos: must NOT have more than 25 items/],
      [{ type: 'bogus' }, /type: must be one of "package", "builtin", "dev", "peer", "local"/],
      [{ expand: 'classes', name: 'x' }, /expand: must be one of "files", "functions"/],
      [{ include: ['classes'] }, /include\.0: must be one of/],
      [{ order: 'random' }, /order: must be one of "usage", "name"/],
    ];
    for (const [body, message] of bad) {
      const r = await t.call('POST', `/v2/repos/${repo}/scope`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.message, message);
    }
  } finally {
    await t.close();
  }
});

test('map: which other repositories share packages, imports and environment variables; limits are 400s', async () => {
  const t = await createTestApp();
  try {
    const repo = await indexed(t, copyFixture('radius-graph'));
    const other = await indexed(t, copyFixture('ts-paths'));
    const res = await t.call('GET', `/v2/repos/${repo}/map?type=package&files_per_repo=1`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.meta.credits_used, 4);
    const lodash = res.body.data.dependencies.find((d: { name: string }) => d.name === 'lodash');
    assert.deepEqual(lodash.source_files, ['src/feature/b.ts']);
    assert.deepEqual(lodash.repos, [{ repo_id: other, name: 'ts-paths', file_count: 1, files: ['src/app/main.ts'] }]);
    assert.equal(res.body.data.scope.repos_compared, 1);

    const env = await t.call('GET', `/v2/repos/${repo}/map?type=env&compare_repos=${other},00000000-0000-4000-8000-000000000000`);
    assert.deepEqual(env.body.data.dependencies.map((d: { name: string; source_files: string[] }) => [d.name, d.source_files]), [['FEATURE_FLAG', ['src/feature/a.ts']]]);
    assert.deepEqual(env.body.data.scope.compare_repos.map((c: { found: boolean }) => c.found), [true, false]);

    // Exports: a third repository imports the fixture's package by name.
    const consumer = path.join(copyFixture('ts-paths'), '..', 'consumer');
    fs.mkdirSync(path.join(consumer, 'src'), { recursive: true });
    fs.writeFileSync(path.join(consumer, 'package.json'), '{ "name": "consumer", "dependencies": { "radius-fixture": "1.0.0" } }\n');
    fs.writeFileSync(path.join(consumer, 'src/app.ts'), "import { utilValue, baseValue } from 'radius-fixture';\nexport const v = utilValue('x') + baseValue();\n");
    const consumerId = await indexed(t, consumer);
    const exportsMap = await t.call('GET', `/v2/repos/${repo}/map?type=export&compare_repos=${consumerId}`);
    const used = exportsMap.body.data.dependencies.filter((d: { repos: unknown[] }) => d.repos.length);
    assert.deepEqual(used.map((d: { name: string; source_files: string[]; repos: { files: string[] }[] }) => [d.name, d.source_files, d.repos[0].files]).sort(), [
      ['baseValue', ['src/core/base.ts'], ['src/app.ts']],
      ['utilValue', ['src/core/util.ts'], ['src/app.ts']],
    ]);

    const many = Array.from({ length: 11 }, (_, i) => `00000000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`).join(',');
    const bad: [string, RegExp][] = [
      [`compare_repos=${many}`, /compare_repos: must name at most 10 repositories/],
      ['type=bogus', /type: must be one of "package", "import", "export", "env"/],
      ['limit=51', /limit: must be <= 50/],
      ['files_per_repo=0', /files_per_repo: must be >= 1/],
    ];
    for (const [query, message] of bad) {
      const r = await t.call('GET', `/v2/repos/${repo}/map?${query}`);
      assert.equal(r.status, 400, query);
      assert.match(r.body.message, message);
    }
  } finally {
    await t.close();
  }
});

test('review signals for files and for a pull request, with public API changes against the base', async () => {
  const t = await createTestApp();
  try {
    const folder = gitFixture();
    const repo = await indexed(t, folder);
    const res = await t.call('POST', `/v2/repos/${repo}/review`, { files: ['src/core/base.ts', 'src/unused.ts', 'src/gone.ts'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byPath = Object.fromEntries(res.body.data.files.map((f: { file_path: string }) => [f.file_path, f]));
    assert.equal(byPath['src/core/base.ts'].signals.dependents, 8);
    assert.equal(byPath['src/core/base.ts'].signals.tested, true);
    assert.deepEqual(byPath['src/core/base.ts'].signals.tests, ['test/util.spec.ts']);
    assert.equal(byPath['src/unused.ts'].signals.tested, false);
    assert.ok(byPath['src/unused.ts'].reasons.includes('no test reaches it'));
    assert.equal(byPath['src/gone.ts'].found, false);
    assert.ok(byPath['src/core/base.ts'].score > byPath['src/unused.ts'].score);
    assert.equal(res.body.data.summary.untested, 1);

    const pr = await t.call('POST', `/v2/repos/${repo}/review`, { pr: 9 });
    assert.equal(pr.status, 200, JSON.stringify(pr.body));
    assert.equal(pr.body.data.source, 'pull_request');
    assert.deepEqual(pr.body.data.files[0].signals.public_api.added, ['alsoLonely']);
    assert.deepEqual(pr.body.data.files[0].signals.public_api.removed, []);

    const bad = await t.call('POST', `/v2/repos/${repo}/review`, {});
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /files: give files or pr/);
  } finally {
    await t.close();
  }
});

test('coverage gaps: files and exported functions no test reaches; lcov data when present', async () => {
  const t = await createTestApp();
  try {
    const folder = copyFixture('radius-graph');
    const repo = await indexed(t, folder);
    const res = await t.call('GET', `/v2/repos/${repo}/coverage-gaps?path_prefix=src&limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const files = res.body.data.untested_files.map((f: { file_path: string }) => f.file_path).sort();
    assert.deepEqual(files, ['src/core/index.ts', 'src/feature/a.ts', 'src/feature/b.ts', 'src/feature/only-types.ts', 'src/helper.cjs', 'src/index.ts', 'src/legacy.cjs', 'src/unused.ts']);
    const fns = res.body.data.untested_functions.map((f: { name: string }) => f.name).sort();
    assert.deepEqual(fns, ['featureA', 'featureB', 'help', 'lonely', 'run']); // help: module.exports of helper.cjs
    assert.equal(res.body.data.lcov, null);

    fs.mkdirSync(path.join(folder, 'coverage'));
    fs.writeFileSync(path.join(folder, 'coverage/lcov.info'), `SF:${path.join(folder, 'src/unused.ts')}\nFN:1,lonely\nFNDA:3,lonely\nLF:3\nLH:3\nend_of_record\n`);
    const withLcov = await t.call('GET', `/v2/repos/${repo}/coverage-gaps?path_prefix=src&limit=100`);
    assert.deepEqual(withLcov.body.data.lcov, { path: 'coverage/lcov.info', files: 1, lines_found: 3, lines_hit: 3, line_rate: 1 });
    assert.ok(!withLcov.body.data.untested_files.some((f: { file_path: string }) => f.file_path === 'src/unused.ts'));
    assert.ok(!withLcov.body.data.untested_functions.some((f: { name: string }) => f.name === 'lonely'));
  } finally {
    await t.close();
  }
});

test('file docs: processing (free) first, then ready (2 credits); depth by plan; regenerated when the file changes', async () => {
  const t = await createTestApp();
  try {
    const folder = copyFixture('radius-graph');
    const repo = await indexed(t, folder);
    const url = `/v2/files/${repo}/${encodeURIComponent('src/core/base.ts')}`;
    const first = await t.call('GET', url);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.meta.processing, true);
    assert.equal(first.body.meta.credits_used, 0);
    assert.equal(first.body.data.documentation, null);
    await t.engine.docs.idle();
    const ready = await t.call('GET', url);
    assert.equal(ready.body.meta.processing, false);
    assert.equal(ready.body.meta.fields_applied, 'full');
    assert.equal(ready.body.meta.credits_used, 2);
    assert.equal(ready.body.data.generator, 'static');
    const doc: string = ready.body.data.documentation;
    assert.match(doc, /^# src\/core\/base\.ts\n\nThe base layer every feature builds on\. Used by 3 files directly \(8 in all\)/);
    assert.match(doc, /## Exports\n\n- `export interface Config` \(interface, line 3\)\n- `export function baseValue\(\): number` \(function, line 8\)\n {2}Returns the base value\./);
    assert.match(doc, /## Dependents\n\n- `src\/core\/index\.ts`\n- `src\/core\/util\.ts`\n- `src\/feature\/only-types\.ts`/);
    assert.match(doc, /## Risks/);
    assert.match(doc, /Tests that reach it: `test\/util\.spec\.ts`/);

    const basic = await t.call('GET', `${url}?fields=basic`);
    assert.equal(basic.body.meta.fields_applied, 'basic');
    assert.doesNotMatch(basic.body.data.documentation, /## Functions|## Dependents/);
    const byUid = await t.call('GET', `/v2/files/${repo}/${ready.body.data.id}?fields=summary`);
    assert.match(byUid.body.data.documentation, /## Dependents/);
    assert.doesNotMatch(byUid.body.data.documentation, /## Risks/);

    // A changed file is regenerated by the docs index after the update.
    fs.appendFileSync(path.join(folder, 'src/core/base.ts'), '\n/** Doubles. */\nexport function doubled(): number {\n  return 2;\n}\n');
    await t.engine.indexer.updatePaths(t.engine.reposStore.get(repo)!, ['src/core/base.ts']);
    await t.engine.indexer.derivedIdle();
    const fresh = await t.call('GET', url);
    assert.equal(fresh.body.meta.processing, false);
    assert.match(fresh.body.data.documentation, /doubled\(\): number/);

    const bad = await t.call('GET', `${url}?fields=everything`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /fields: must be one of "basic", "summary", "full"/);
    const missing = await t.call('GET', `/v2/files/${repo}/${encodeURIComponent('src/nope.ts')}`);
    assert.equal(missing.status, 404);
  } finally {
    await t.close();
  }
  const free = await createTestApp({ accounts: { owner: { plan: 'FREE' } } });
  try {
    const repo = await indexed(free, copyFixture('radius-graph'));
    const url = `/v2/files/${repo}/${encodeURIComponent('src/core/util.ts')}`;
    await free.call('GET', url);
    await free.engine.docs.idle();
    const res = await free.call('GET', url);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.meta.fields_applied, 'basic');
    const full = await free.call('GET', `${url}?fields=full`);
    assert.equal(full.status, 403);
    assert.equal(full.body.code, 'PLAN_REQUIRED');
  } finally {
    await free.close();
  }
});
