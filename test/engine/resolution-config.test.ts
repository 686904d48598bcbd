import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage, npmPackage, within } from '../helpers/real-code';

/**
 * A file that decides how imports resolve (composer.json's PSR-4 prefixes, go.mod's module path, a tsconfig's
 * paths) changes the edges of files that did not change: after an edit, and after a restart that finds it
 * changed, every import is resolved again. Before, only imports that had not resolved were, so a renamed
 * module or a fixed PSR-4 prefix kept the old edges until each importing file changed.
 */

/** Every import of the repository with what it resolves to, one line each. */
const edges = (t: TestEngine, repoId: string) => t.engine.filesStore.staleImports(repoId, ['typescript', 'javascript', 'go', 'php', 'rust', 'ruby'])
  .map((i) => `${i.filePath} ${i.kind} ${i.specifier} -> ${i.targetPath ?? `(${i.packageName})`}`).sort();
const edgesTo = (all: string[], target: string) => all.filter((e) => e.endsWith(`-> ${target}`));

test('composer.json: fixing the PSR-4 folder links the PHP files that did not change (league/commonmark, Debian)', async () => {
  const root = tempDir('loupe-php-');
  fs.cpSync(path.join(debianPackage('php-league-commonmark', '2.3.9-1+deb12u1'), 'usr/share/php/League/CommonMark'), path.join(root, 'src'), { recursive: true });
  fs.rmSync(path.join(root, 'src/autoload.php'));
  const composer = (dir: string) => fs.writeFileSync(path.join(root, 'composer.json'),
    JSON.stringify({ name: 'league/commonmark', autoload: { 'psr-4': { 'League\\CommonMark\\': dir } } }, null, 2));
  composer('lib'); // a wrong folder: nothing of the project resolves
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, root);
    assert.deepEqual(edgesTo(edges(t, repo.id), 'src/Parser/Inline/NewlineParser.php'), []);
    composer('src');
    await t.engine.indexer.updatePaths(repo, ['composer.json']);
    assert.deepEqual(edgesTo(edges(t, repo.id), 'src/Parser/Inline/NewlineParser.php').map((e) => e.split(' ')[0]), [
      'src/Extension/CommonMark/CommonMarkCoreExtension.php',
      'src/Extension/InlinesOnly/InlinesOnlyExtension.php',
    ]);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a .gemspec\'s require_paths: concurrent-ruby\'s lib/concurrent-ruby links the Ruby files that did not change (Debian)', async () => {
  const installed = path.join(debianPackage('ruby-concurrent', '1.1.6+dfsg-5'), 'usr/share/rubygems-integration/all');
  const root = copyOf(path.join(installed, 'gems/concurrent-ruby-1.1.6'), 'loupe-concurrent-');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, root);
    const requires = (all: string[]) => all.filter((e) => /^lib\/concurrent-ruby\/concurrent\.rb require concurrent\/(agent|array|atom) /.test(e));
    // Without its gemspec the gem's load path is lib/, where `concurrent/agent` is not.
    assert.deepEqual(requires(edges(t, repo.id)), [
      'lib/concurrent-ruby/concurrent.rb require concurrent/agent -> (concurrent)',
      'lib/concurrent-ruby/concurrent.rb require concurrent/array -> (concurrent)',
      'lib/concurrent-ruby/concurrent.rb require concurrent/atom -> (concurrent)',
    ]);
    // The gemspec upstream keeps at the gem's root (Debian moves it to specifications/): `s.require_paths = ["lib/concurrent-ruby".freeze]`.
    fs.copyFileSync(path.join(installed, 'specifications/concurrent-ruby-1.1.6.gemspec'), path.join(root, 'concurrent-ruby.gemspec'));
    await t.engine.indexer.updatePaths(repo, ['concurrent-ruby.gemspec']);
    assert.deepEqual(requires(edges(t, repo.id)), [
      'lib/concurrent-ruby/concurrent.rb require concurrent/agent -> lib/concurrent-ruby/concurrent/agent.rb',
      'lib/concurrent-ruby/concurrent.rb require concurrent/array -> lib/concurrent-ruby/concurrent/array.rb',
      'lib/concurrent-ruby/concurrent.rb require concurrent/atom -> lib/concurrent-ruby/concurrent/atom.rb',
    ]);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('go.mod: a module renamed while the server was down moves the imports of unchanged files (cobra, Debian)', async () => {
  const root = copyOf(path.join(debianPackage('golang-github-spf13-cobra-dev', '1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra'), 'loupe-cobra-');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, root);
    const docToCobra = (all: string[]) => all.filter((e) => e.startsWith('doc/man_docs.go import github.com/spf13/cobra '));
    assert.deepEqual(docToCobra(edges(t, repo.id)), ['doc/man_docs.go import github.com/spf13/cobra -> cobra.go']);
    const goMod = path.join(root, 'go.mod');
    fs.writeFileSync(goMod, fs.readFileSync(goMod, 'utf8').replace('module github.com/spf13/cobra', 'module example.com/cobra'));
    // A restart: the walk finds go.mod changed, and no .go file.
    const run = await t.engine.indexer.indexRepository(repo);
    assert.equal(run.changed, 1);
    assert.deepEqual(docToCobra(edges(t, repo.id)), ['doc/man_docs.go import github.com/spf13/cobra -> (github.com/spf13/cobra)']);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('tsconfig.json: a changed paths alias moves the import that uses it', async () => {
  // A hand-made project: the smallest that shows an alias pointing elsewhere.
  const root = tempDir('loupe-ts-');
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), text); };
  const tsconfig = (to: string) => write('tsconfig.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@lib/*': [`${to}/*`] } } }));
  tsconfig('src/old');
  write('src/old/x.ts', 'export const x = 1;\n');
  write('src/new/x.ts', 'export const x = 2;\n');
  write('src/a.ts', "import { x } from '@lib/x';\nexport const a = x;\n");
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, root);
    assert.deepEqual(edges(t, repo.id), ['src/a.ts import @lib/x -> src/old/x.ts']);
    tsconfig('src/new');
    await t.engine.indexer.updatePaths(repo, ['tsconfig.json']);
    assert.deepEqual(edges(t, repo.id), ['src/a.ts import @lib/x -> src/new/x.ts']);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('resolving every import again agrees with the parse, edge for edge (express, cobra, regex-syntax, commonmark, react-native-windows)', async () => {
  const corpora: { root: string; config: string }[] = [
    { root: copyOf(npmPackage('express@4.21.2'), 'loupe-express-'), config: 'package.json' },
    { root: copyOf(path.join(debianPackage('golang-github-spf13-cobra-dev', '1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra'), 'loupe-cobra-'), config: 'go.mod' },
    { root: copyOf(within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*'), 'loupe-regex-syntax-'), config: 'Cargo.toml' },
  ];
  const php = tempDir('loupe-php-');
  fs.cpSync(path.join(debianPackage('php-league-commonmark', '2.3.9-1+deb12u1'), 'usr/share/php/League/CommonMark'), path.join(php, 'src'), { recursive: true });
  fs.writeFileSync(path.join(php, 'composer.json'), JSON.stringify({ autoload: { 'psr-4': { 'League\\CommonMark\\': 'src' } } }));
  corpora.push({ root: php, config: 'composer.json' });
  // Flow sources with hand-written declarations beside them: an import is stored twice, the JavaScript and the
  // declaration (resolver-runtime-file.test.ts), and each row keeps its own target.
  const rnw = tempDir('loupe-rnw-');
  for (const f of ['package.json', 'Libraries/StyleSheet', 'Libraries/Animated']) {
    fs.cpSync(path.join(npmPackage('react-native-windows@0.76.9'), f), path.join(rnw, f), { recursive: true });
  }
  corpora.push({ root: rnw, config: 'package.json' });
  const t = createTestEngine();
  try {
    for (const { root, config } of corpora) {
      const repo = await indexFolder(t, root);
      const before = edges(t, repo.id);
      assert.ok(before.filter((e) => !e.endsWith(')')).length > 20, `${config}: edges inside the repository`);
      // An edit that keeps the config's meaning: every import is resolved again, and none moves.
      fs.appendFileSync(path.join(root, config), '\n');
      await t.engine.indexer.updatePaths(repo, [config]);
      assert.deepEqual(edges(t, repo.id), before, config);
    }
  } finally {
    await t.close();
    for (const { root } of corpora) fs.rmSync(root, { recursive: true, force: true });
  }
});
