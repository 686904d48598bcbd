import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { copyOf, debianPackage, npmPackage, within } from '../helpers/real-code';
import { svProject, withKitOutDir } from '../helpers/sv-project';


/** Indexes each folder with a fresh engine and copies its database aside: the repositories' ids and the copy's data dir. */
async function indexedCopy(folders: string[]): Promise<{ ids: string[]; copy: string }> {
  const first = createTestEngine();
  const copy = tempDir('loupe-parse-again-data-');
  try {
    const ids: string[] = [];
    for (const folder of folders) ids.push((await indexFolder(first, folder)).id);
    await first.engine.db.backup(path.join(copy, 'loupe.db'));
    return { ids, copy };
  } finally {
    await first.close();
  }
}

/**
 * An index written by the parsers before migration 22 (express 4.21.2: its Router methods were not symbols,
 * every file's description was the license banner) is parsed again at the next index run after it opens,
 * though no file changed on disk; a run after that reads nothing again.
 */
test('migration 22: an index made by the old parsers is parsed again at the next run, once', async () => {
  const folder = copyOf(npmPackage('express@4.21.2'), 'loupe-parse-again-');
  const { ids: [repoId], copy } = await indexedCopy([folder]);
  // What the old parsers left: no methods of Layer, a banner for a description, and the version before 22.
  const old = new Database(path.join(copy, 'loupe.db'));
  const layer = old.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, 'lib/router/layer.js') as { id: number };
  old.prepare("DELETE FROM symbols WHERE file_id = ? AND parent = 'Layer'").run(layer.id);
  old.prepare("UPDATE files SET description = '! express Copyright(c) 2009-2013 TJ Holowaychuk' WHERE repo_id = ?").run(repoId);
  old.pragma('user_version = 21');
  old.close();

  const t = createTestEngine({ dataDir: copy });
  try {
    const repo = t.engine.reposStore.get(repoId)!;
    const files = t.engine.filesStore;
    const indexed = files.paths(repoId).length;
    const run = await t.engine.indexer.indexRepository(repo);
    assert.equal(run.changed, indexed, 'every file parsed again');
    const layerNow = files.getByPath(repoId, 'lib/router/layer.js')!;
    assert.ok(files.symbols(layerNow.id).some((s) => s.parent === 'Layer' && s.name === 'match'));
    assert.ok(!files.getByPath(repoId, 'lib/router/index.js')!.description?.includes('Copyright'));
    const again = await t.engine.indexer.indexRepository(t.engine.reposStore.get(repoId)!);
    assert.deepEqual([again.changed, again.unchanged], [0, indexed]);
  } finally {
    await t.close();
  }
});

/**
 * Migration 23: Rust, C, C++ and script files (inline modules' paths and paths outside `use`, `** ` comments, the
 * compiler's resolution mode and `#name` imports) are parsed again at the next run after it opens, and no other file:
 * regex-syntax 0.6.27 (Debian; its Cargo.toml and README stay) beside chalk 5.3.0 (npm; its readme and package.json
 * stay), whose source/index.js imports `#ansi-styles`.
 */
test('migration 23: Rust, C, C++ and script files are parsed again, nothing else', async () => {
  const rust = copyOf(within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*'), 'loupe-parse-again-rs-');
  const chalk = copyOf(npmPackage('chalk@5.3.0'), 'loupe-parse-again-js-');
  const { ids, copy } = await indexedCopy([rust, chalk]);
  const old = new Database(path.join(copy, 'loupe.db'));
  old.pragma('user_version = 22');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const runs = [];
    for (const id of ids) runs.push(await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!));
    assert.equal(runs[0].changed, files.filesOfLanguages(ids[0], ['rust']).length);
    assert.equal(runs[1].changed, files.filesOfLanguages(ids[1], ['javascript', 'typescript']).length);
    for (const run of runs) assert.ok(run.unchanged >= 2, 'manifests and readmes are not read again');
    const index = files.getByPath(ids[1], 'source/index.js')!;
    assert.ok(files.imports(index.id).some((i) => i.specifier === '#ansi-styles' && i.targetPath?.startsWith('source/vendor/ansi-styles/')));
  } finally {
    await t.close();
  }
});

/**
 * Migration 24: Vue and Svelte components, and the script files that import a declaration file, are parsed again at
 * the next run, no other file. In
 * an index made before it, chalk 5.3.0's source/index.js imports `#ansi-styles` as the declaration beside the
 * vendored index.js; after it, as that index.js (and the declaration as a type-only import).
 */
test('migration 24: components, and script files importing a declaration, are parsed again, nothing else', async () => {
  const chalk = copyOf(npmPackage('chalk@5.3.0'), 'loupe-runtime-files-');
  const vue = copyOf(path.join(npmPackage('create-vite@9.3.0'), 'template-vue-ts'), 'loupe-runtime-files-');
  const { ids: [id, vueId], copy } = await indexedCopy([chalk, vue]);
  // What the index held before: the declaration as the target, no type-only row beside it.
  const old = new Database(path.join(copy, 'loupe.db'));
  const index = old.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(id, 'source/index.js') as { id: number };
  old.prepare("DELETE FROM imports WHERE file_id = ? AND type_only = 1 AND target_path LIKE '%.d.ts'").run(index.id);
  old.prepare("UPDATE imports SET target_path = replace(target_path, 'index.js', 'index.d.ts') WHERE file_id = ? AND target_path LIKE 'source/vendor/%'").run(index.id);
  const importing = (old.prepare(
    `SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = ? AND i.target_path LIKE '%.d.ts' ORDER BY f.path`,
  ).all(id) as { path: string }[]).map((r) => r.path);
  // source/index.js, and the declarations importing declarations (parsed again, unchanged).
  assert.deepEqual(importing, ['source/index.d.ts', 'source/index.js', 'source/vendor/supports-color/browser.d.ts']);
  old.pragma('user_version = 23');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const scripts = files.filesOfLanguages(id, ['javascript', 'typescript']).length;
    const run = await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!);
    assert.equal(run.changed, importing.length);
    assert.equal(run.unchanged, files.paths(id).length - importing.length, `${scripts} script files, the others not read again`);
    const targets = files.imports(files.getByPath(id, 'source/index.js')!.id).filter((i) => i.specifier === '#ansi-styles')
      .map((i) => `${i.typeOnly ? 'type ' : ''}${i.targetPath}`);
    assert.deepEqual(targets, ['source/vendor/ansi-styles/index.js', 'type source/vendor/ansi-styles/index.d.ts']);
    // The Vue template's two components, and its two scripts (its tsconfig.json is a solution: `"files": []` and
    // `references`); its configs, index.html and README are not read again.
    const vueRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(vueId)!);
    const vueFiles = files.filesOfLanguages(vueId, ['vue', 'typescript']).map((f) => f.path);
    assert.deepEqual(vueFiles, ['src/App.vue', 'src/components/HelloWorld.vue', 'src/main.ts', 'vite.config.ts']);
    assert.deepEqual([vueRun.changed, vueRun.unchanged], [4, files.paths(vueId).length - 4]);
  } finally {
    await t.close();
  }
});

test('migration 25: the scripts and components of a Nuxt app, and Rust, C and C++ files, are parsed again, nothing else', async () => {
  const docus = copyOf(npmPackage('docus@5.12.3'), 'loupe-nuxt-again-');
  // chalk: scripts of no Nuxt app, with a Rust file and a C header beside them (parsed again, the scripts not).
  const chalk = copyOf(npmPackage('chalk@5.3.0'), 'loupe-nuxt-again-');
  fs.writeFileSync(path.join(chalk, 'bytes.rs'), 'pub trait Buf {}\nimpl Buf for &[u8] {\n    fn remaining(&self) -> usize { self.len() }\n}\n');
  fs.writeFileSync(path.join(chalk, 'colors.h'), 'int colors(void);\n');
  const { ids: [id, chalkId], copy } = await indexedCopy([docus, chalk]);
  // What the index held before: no auto-imported edge.
  const old = new Database(path.join(copy, 'loupe.db'));
  old.prepare("DELETE FROM imports WHERE kind = 'reference' AND file_id IN (SELECT id FROM files WHERE repo_id = ?)").run(id);
  old.pragma('user_version = 24');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const scripts = files.filesOfLanguages(id, ['vue', 'typescript', 'javascript']).length;
    const run = await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!);
    assert.deepEqual([run.changed, run.unchanged], [scripts, files.paths(id).length - scripts]);
    const app = files.imports(files.getByPath(id, 'app/app.vue')!.id).filter((i) => i.kind === 'reference').map((i) => i.targetPath);
    assert.ok(app.includes('app/components/app/AppHeader.vue'), JSON.stringify(app));
    // A repository without a nuxt.config: its Rust and C files only.
    const chalkRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(chalkId)!);
    assert.equal(chalkRun.changed, 2);
    const impl = files.symbols(files.getByPath(chalkId, 'bytes.rs')!.id).find((s) => s.name === 'remaining');
    assert.equal(impl?.parent, '[u8]');
  } finally {
    await t.close();
  }
});

test('migration 26: scripts with unresolved imports or a resolution-mode, and SvelteKit apps\' files, are parsed again, nothing else', async () => {
  const react = copyOf(path.join(npmPackage('create-vite@9.3.0'), 'template-react-ts'), 'loupe-bundler-imports-');
  // sv 0.17.1's minimal SvelteKit app, as `sv create` writes it (its files JSON, and shared.json's TypeScript entries).
  const kit = tempDir('loupe-bundler-imports-kit-');
  const sv = path.join(npmPackage('sv@0.17.1'), 'dist');
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(kit, rel)), { recursive: true }); fs.writeFileSync(path.join(kit, rel), text); };
  for (const f of JSON.parse(fs.readFileSync(path.join(sv, 'templates/minimal/files.types=typescript.json'), 'utf8')) as { name: string; contents: string }[]) write(f.name, f.contents);
  fs.cpSync(path.join(sv, 'templates/minimal/assets/src'), path.join(kit, 'src'), { recursive: true });
  for (const f of (JSON.parse(fs.readFileSync(path.join(sv, 'shared.json'), 'utf8')) as { files: { name: string; include: string[]; exclude: string[]; contents: string }[] }).files) {
    if (f.include.length === 1 && f.include[0] === 'typescript') write(f.name, f.contents);
  }
  // Hand-made: a type import with a resolution mode (parse-typescript.ts now reads it), and none but it resolved.
  fs.writeFileSync(path.join(react, 'src/types.ts'), "export type { Root } from 'react-dom/client' with { 'resolution-mode': 'require' };\n");
  const { ids: [reactId, kitId], copy } = await indexedCopy([react, kit]);
  // What the index held before: the assets unresolved, `$lib` and `$app` packages.
  const old = new Database(path.join(copy, 'loupe.db'));
  old.prepare("UPDATE imports SET target_path = NULL WHERE specifier LIKE './assets/%'").run();
  old.prepare("UPDATE imports SET target_path = NULL, package = '$lib' WHERE specifier LIKE '$lib/%'").run();
  old.pragma('user_version = 25');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const reactRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(reactId)!);
    assert.deepEqual([reactRun.changed, reactRun.unchanged], [2, files.paths(reactId).length - 2], 'src/App.tsx and src/types.ts alone');
    assert.deepEqual(files.imports(files.getByPath(reactId, 'src/App.tsx')!.id).filter((i) => i.specifier.startsWith('./assets/')).map((i) => i.targetPath),
      ['src/assets/hero.png', 'src/assets/react.svg', 'src/assets/vite.svg']);
    const kitRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(kitId)!);
    const scripts = files.filesOfLanguages(kitId, ['typescript', 'javascript', 'svelte']).map((f) => f.path);
    assert.deepEqual(scripts, ['src/app.d.ts', 'src/lib/index.ts', 'src/routes/+layout.svelte', 'src/routes/+page.svelte', 'vite.config.ts']);
    assert.deepEqual([kitRun.changed, kitRun.unchanged], [scripts.length, files.paths(kitId).length - scripts.length]);
    assert.deepEqual(files.imports(files.getByPath(kitId, 'src/routes/+layout.svelte')!.id).map((i) => `${i.specifier} ${i.targetPath}`),
      ['$lib/assets/favicon.svg src/lib/assets/favicon.svg']);
  } finally {
    await t.close();
  }
});

test('migration 30: the scripts that write `/// <reference types>`, and a SvelteKit app with `kit.outDir`, are parsed again, nothing else', async () => {
  // undici-types 6.21.0 (npm): eight declaration files reference the node types.
  const types = copyOf(npmPackage('undici-types@6.21.0'), 'loupe-type-references-');
  const kit = withKitOutDir(svProject('minimal'), 'build/kit');
  const { ids: [typesId, kitId], copy } = await indexedCopy([types, kit]);
  // What the index held before: no import for the directive, and `$lib` a package.
  const old = new Database(path.join(copy, 'loupe.db'));
  old.prepare("DELETE FROM imports WHERE kind = 'types'").run();
  old.prepare("UPDATE imports SET target_path = NULL, package = '$lib' WHERE specifier LIKE '$lib/%'").run();
  old.pragma('user_version = 29');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const referencing = files.paths(typesId).filter((p) => fs.readFileSync(path.join(types, p), 'utf8').includes('/// <reference types='));
    assert.equal(referencing.length, 8);
    const run = await t.engine.indexer.indexRepository(t.engine.reposStore.get(typesId)!);
    assert.deepEqual([run.changed, run.unchanged], [8, files.paths(typesId).length - 8]);
    for (const p of referencing) {
      assert.deepEqual(files.imports(files.getByPath(typesId, p)!.id).filter((i) => i.kind === 'types').map((i) => `${i.specifier} ${i.packageName}`), ['node node'], p);
    }
    const kitRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(kitId)!);
    const scripts = files.filesOfLanguages(kitId, ['typescript', 'javascript', 'svelte']).map((f) => f.path);
    assert.deepEqual([kitRun.changed, kitRun.unchanged], [scripts.length, files.paths(kitId).length - scripts.length]);
    assert.deepEqual(files.imports(files.getByPath(kitId, 'src/routes/+layout.svelte')!.id).map((i) => `${i.specifier} ${i.targetPath}`),
      ['$lib/assets/favicon.svg src/lib/assets/favicon.svg']);
  } finally {
    await t.close();
  }
});

test('migration 31: Python files importing a missing module under packages that exist are parsed again, nothing else', async () => {
  // docutils 0.19 as Debian ships it: utils/roman.py left out, so manpage.py's `import docutils.utils.roman`
  // imports docutils and docutils.utils, then fails (importlib's oracle has the edge to utils/__init__.py).
  const docutils = copyOf(within(debianPackage('python3-docutils', '0.19+dfsg-6'), 'usr/lib/python3/dist-packages/docutils'), 'loupe-missing-submodule-');
  const { ids: [id], copy } = await indexedCopy([path.dirname(docutils)]);
  const manpage = 'docutils/writers/manpage.py';
  const old = new Database(path.join(copy, 'loupe.db'));
  // What the index held before: no row for the package on the way.
  const removed = old.prepare(`DELETE FROM imports WHERE specifier = 'docutils.utils' AND target_path = 'docutils/utils/__init__.py'
    AND file_id = (SELECT f.id FROM files f WHERE f.path = ?)`).run(manpage).changes;
  assert.equal(removed, 1, 'the index written now has the edge');
  const again = old.prepare(`SELECT DISTINCT f.path FROM files f JOIN imports i ON i.file_id = f.id
    WHERE f.language = 'python' AND i.target_path IS NULL AND i.package IS NULL AND i.specifier LIKE '%.%' ORDER BY f.path`).pluck().all() as string[];
  old.pragma('user_version = 30');
  old.close();
  assert.ok(again.includes(manpage) && again.length < 10, JSON.stringify(again));
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const run = await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!);
    assert.deepEqual([run.changed, run.unchanged], [again.length, files.paths(id).length - again.length]);
    assert.deepEqual(files.imports(files.getByPath(id, manpage)!.id).filter((i) => i.specifier.startsWith('docutils.utils')).map((i) => `${i.specifier} ${i.targetPath}`),
      ['docutils.utils docutils/utils/__init__.py', 'docutils.utils.roman null']);
  } finally {
    await t.close();
  }
});

test('migration 32: Ruby files with an unresolved require, in a repository holding a .gemspec, are parsed again, nothing else', async () => {
  // concurrent-ruby 1.1.6 with the gemspec upstream keeps at its root: `s.require_paths = ["lib/concurrent-ruby"]`.
  const installed = path.join(debianPackage('ruby-concurrent', '1.1.6+dfsg-5'), 'usr/share/rubygems-integration/all');
  const gem = copyOf(path.join(installed, 'gems/concurrent-ruby-1.1.6'), 'loupe-require-paths-');
  fs.copyFileSync(path.join(installed, 'specifications/concurrent-ruby-1.1.6.gemspec'), path.join(gem, 'concurrent-ruby.gemspec'));
  const { ids: [id], copy } = await indexedCopy([gem]);
  const main = 'lib/concurrent-ruby/concurrent.rb';
  const old = new Database(path.join(copy, 'loupe.db'));
  // What the index held before: the gem's own requires looked up under lib/, where they are not.
  const made = old.prepare(`UPDATE imports SET target_path = NULL, package = 'concurrent'
    WHERE kind = 'require' AND target_path LIKE 'lib/concurrent-ruby/%'`).run().changes;
  assert.ok(made > 100, `${made} requires resolved in the index written now`);
  const again = old.prepare(`SELECT DISTINCT f.path FROM files f JOIN imports i ON i.file_id = f.id
    WHERE f.language = 'ruby' AND i.target_path IS NULL AND i.kind = 'require' ORDER BY f.path`).pluck().all() as string[];
  // Migration 33 after it parses the gem's Java files (its JRuby extension) again.
  const java = old.prepare(`SELECT COUNT(*) FROM files WHERE language = 'java'`).pluck().get() as number;
  old.pragma('user_version = 31');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const run = await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!);
    assert.ok(again.includes(main), JSON.stringify(again));
    assert.deepEqual([run.changed, run.unchanged], [again.length + java, files.paths(id).length - again.length - java]);
    assert.deepEqual(files.imports(files.getByPath(id, main)!.id).filter((i) => i.specifier === 'concurrent/agent').map((i) => i.targetPath),
      ['lib/concurrent-ruby/concurrent/agent.rb']);
  } finally {
    await t.close();
  }
});

test('migration 33: Java files are parsed again, nothing else, and a test in javatests/ finds its class in java/', async () => {
  // Bazel's JUnit runner (bazel-bootstrap-source 4.2.3): java/ and javatests/ side by side, no Maven layout, and a
  // build file and a README beside the Java files.
  const junit = copyOf(path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/java_tools/junitrunner'), 'loupe-java-roots-');
  const { ids: [id], copy } = await indexedCopy([junit]);
  const test = 'javatests/com/google/testing/junit/runner/internal/SignalHandlersTest.java';
  const old = new Database(path.join(copy, 'loupe.db'));
  // What the index held before: nothing from javatests/ into java/.
  const removed = old.prepare(`DELETE FROM imports WHERE target_path LIKE 'java/%'
    AND file_id IN (SELECT id FROM files WHERE path LIKE 'javatests/%')`).run().changes;
  assert.ok(removed > 50, `${removed} edges from javatests/ into java/ in the index written now`);
  const java = old.prepare(`SELECT COUNT(*) FROM files WHERE language = 'java'`).pluck().get() as number;
  old.pragma('user_version = 32');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const all = files.paths(id).length;
    assert.ok(java > 100 && all > java, `${java} Java files of ${all}`);
    const run = await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!);
    assert.deepEqual([run.changed, run.unchanged], [java, all - java]);
    assert.deepEqual(files.imports(files.getByPath(id, test)!.id).filter((i) => i.targetPath?.startsWith('java/')).map((i) => `${i.kind} ${i.targetPath}`),
      ['reference java/com/google/testing/junit/runner/internal/SignalHandlers.java']);
  } finally {
    await t.close();
  }
});

test('migration 34: C++ headers named otherwise (.inl, extensionless) are parsed again, nothing else, and their includes become edges', async () => {
  // glm 0.9.9.8 (its detail/*.inl) and Eigen 3.4.0 (Eigen/Dense, Eigen/Core … without an extension), as Debian ships them.
  const glm = copyOf(path.join(debianPackage('libglm-dev', '0.9.9.8+ds-6'), 'usr/include'), 'loupe-cpp-inl-');
  const eigen = copyOf(path.join(debianPackage('libeigen3-dev', '3.4.0-4'), 'usr/include/eigen3'), 'loupe-cpp-eigen-');
  const { ids: [glmId, eigenId], copy } = await indexedCopy([glm, eigen]);
  const old = new Database(path.join(copy, 'loupe.db'));
  // What the parsers before it wrote: no language for those files, so no symbols and no includes of theirs.
  const headers = old.prepare(`SELECT id FROM files WHERE path LIKE '%.inl' OR (path LIKE 'Eigen/%' AND path NOT LIKE 'Eigen/%/%')`).pluck().all() as number[];
  for (const id of headers) {
    old.prepare('DELETE FROM imports WHERE file_id = ?').run(id);
    old.prepare('DELETE FROM symbols WHERE file_id = ?').run(id);
    old.prepare('UPDATE files SET language = NULL WHERE id = ?').run(id);
  }
  const count = (repo: string, where: string) => old.prepare(`SELECT COUNT(*) FROM files WHERE repo_id = ? AND ${where}`).pluck().get(repo) as number;
  const inl = count(glmId, `path LIKE '%.inl'`);
  const modules = count(eigenId, `path LIKE 'Eigen/%' AND path NOT LIKE 'Eigen/%/%'`);
  assert.ok(inl > 100 && modules > 25, `${inl} .inl files, ${modules} files in Eigen/`);
  old.pragma('user_version = 33');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const glmRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(glmId)!);
    assert.deepEqual([glmRun.changed, glmRun.unchanged], [inl, files.paths(glmId).length - inl]);
    const eigenRun = await t.engine.indexer.indexRepository(t.engine.reposStore.get(eigenId)!);
    assert.deepEqual([eigenRun.changed, eigenRun.unchanged], [modules, files.paths(eigenId).length - modules]);
    assert.ok(files.imports(files.getByPath(eigenId, 'Eigen/Dense')!.id).some((i) => i.targetPath === 'Eigen/Core'));
    assert.equal(files.getByPath(eigenId, 'Eigen/Dense')!.language, 'cpp');
  } finally {
    await t.close();
  }
});
