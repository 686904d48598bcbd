import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';
import { builtCopies } from '../../server/engine/search/copies';

/**
 * Built copies of a repository's own sources rank as generated files (search/copies.ts): @tanstack/query-core 5.62.0
 * from npm ships `build/legacy/` and `build/modern/` (.js, .cjs, .d.ts, .d.cts) beside `src/`. A `build/` folder of
 * scripts, a C library's `lib/x.c` beside its `include/x.h` and a Ruby `lib/` file whose test reopens its class are not.
 */
let t: TestEngine;
let queryCore = '';
let scripts = '';

/** Build scripts in build/, a C library in lib/ with its headers in include/, a Ruby lib/ and its test, a workspace package. */
function scriptsFolder(): string {
  const dir = path.join(tempDir('loupe-copies-'), 'tool');
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true }); fs.writeFileSync(path.join(dir, rel), text); };
  write('src/index.ts', 'export function retryRelease(attempts: number): number { return attempts + 1; }\n');
  write('build/release.js', '// Publishes the package: retries a failed upload.\nfunction retryRelease(attempts) { return attempts; }\nmodule.exports = { retryRelease };\n');
  write('include/ring.h', 'int ring_push(int *ring, int value);\nint ring_pop(int *ring);\n');
  write('lib/ring.c', '#include "ring.h"\nint ring_push(int *ring, int value) { ring[0] = value; return 0; }\nint ring_pop(int *ring) { return ring[0]; }\n');
  // A Ruby library in lib/ whose test reopens the same class: the test is no source of it.
  write('lib/tool/base.rb', 'module Tool\n  class Base\n    def run; end\n  end\nend\n');
  write('test/tool/base.rb', 'module Tool\n  class Base\n    def run; :overridden; end\n  end\nend\n');
  // A workspace package's build beside its own src/ (not the root's).
  write('packages/ui/src/theme.ts', 'export function darken(color: string): string { return color; }\n');
  write('packages/ui/build/theme.js', 'export function darken(color) { return color; }\n');
  return dir;
}

before(async () => {
  t = createTestEngine();
  queryCore = (await indexFolder(t, copyOf(npmPackage('@tanstack/query-core@5.62.0'), 'loupe-query-core-'))).id;
  scripts = (await indexFolder(t, scriptsFolder())).id;
  await t.engine.vectors.idle();
});
after(async () => { await t?.close(); });

async function files(repo: string, query: string) {
  const r = await t.engine.search.search(t.ownerId, { query, scope: 'files', limit: 10, repoIds: [repo] });
  assert.deepEqual(r.warnings, [], 'the vectors are ready: the search is hybrid');
  return r.results.map((h) => h.filePath!);
}

test('query-core: the built copies of src/retryer.ts rank below the sources', async () => {
  const found = await files(queryCore, 'retry a failed query with backoff');
  assert.equal(found[0], 'src/retryer.ts');
  // Before: build/legacy/retryer.cjs came third, ahead of every other source file.
  assert.deepEqual(found.slice(0, 5).filter((p) => /^build\/.*retryer/.test(p)), [], found.join(', '));
});

test('which files are copies: the build of src/, not build scripts, a bundle\'s chunk or a C file beside its header', async () => {
  const store = t.engine.reads.search;
  const all = [...await store.files([queryCore]), ...await store.files([scripts])];
  const copied = await builtCopies(store, all);
  const is = (p: string) => copied.has(all.find((f) => f.path === p)!.id);
  for (const p of ['build/legacy/retryer.js', 'build/legacy/retryer.cjs', 'build/modern/retryer.d.ts', 'build/modern/queryClient.d.cts']) assert.ok(is(p), `${p} is a copy`);
  assert.ok(is('packages/ui/build/theme.js'), 'a workspace package\'s build is a copy of its own src/');
  for (const p of ['src/retryer.ts', 'build/legacy/chunk-2HYBKCYP.js', 'build/release.js', 'lib/ring.c', 'include/ring.h', 'lib/tool/base.rb']) {
    assert.ok(!is(p), `${p} is not a copy`);
  }
});
