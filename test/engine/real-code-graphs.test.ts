import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter, resetTreeSitterResolution } from '../../server/engine/indexer/parse-tree-sitter';
import { detectLanguage } from '../../server/engine/indexer/languages';
import os from 'node:os';
import { aptDownload } from '../../bench/debian';
import { copyOf, debianPackage, debianPinned, npmPackage, within } from '../helpers/real-code';

/**
 * The import graph of real projects nobody here wrote, one per language, against its rule in
 * ARCHITECTURE.md ("What an edge is, per language"). Sources come pinned from Debian and npm (cached);
 * the edges of a chosen part of each project are kept in test/golden/graphs/<name>.txt (checked by hand
 * against the rule; `UPDATE_GOLDEN=1` rewrites them), and the edges named below were each checked by
 * reading the code. When Debian no longer has a pinned version (test/helpers/real-code.ts), the newer one is
 * held to every such edge whose code it still has (`stillDue`), not to the rest of the old graph.
 */
const GOLDEN = path.join(__dirname, '..', 'golden', 'graphs');

interface Graph { root: string; files: number; edges: string[]; packages: number; pinned: boolean }

async function graphOf(root: string, goldenPart: (file: string) => boolean, pinned = true): Promise<Graph> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (detectLanguage(e.name)) files.push(rel);
    }
  };
  walk('');
  const edges: string[] = [];
  let packages = 0;
  let parsed = 0;
  for (const file of files.sort()) {
    const language = detectLanguage(path.basename(file))!;
    const analysis = await analyzeWithTreeSitter(language, file, fs.readFileSync(path.join(root, file), 'utf8'), root);
    if (analysis.imports.length || analysis.symbols.length) parsed++;
    for (const i of analysis.imports) {
      if (i.targetPath === null) { if (i.packageName) packages++; continue; }
      if (goldenPart(file)) edges.push(`${file} ${i.kind} ${i.specifier} -> ${i.targetPath}`);
    }
  }
  return { root, files: parsed, edges: [...new Set(edges)], packages, pinned };
}

/**
 * Whether a newer release than the pinned one must still have an edge of the pinned one: its file and target
 * are still there and the file still names what the edge is made of (the last part of the specifier).
 */
function stillDue(graph: Graph, edge: string): boolean {
  const [, file, , specifier, target] = /^(\S+) (\S+) (.*) -> (\S+)$/.exec(edge)!;
  if (!fs.existsSync(path.join(graph.root, file)) || !fs.existsSync(path.join(graph.root, target))) return false;
  const name = specifier.split(/[./\\:<>"]+/).filter(Boolean).pop() ?? specifier;
  return fs.readFileSync(path.join(graph.root, file), 'utf8').includes(name);
}

function checkGolden(name: string, graph: Graph): void {
  const file = path.join(GOLDEN, `${name}.txt`);
  const text = [`# ${graph.files} files parsed, ${graph.packages} imports of packages; edges of the golden part:`, ...graph.edges].join('\n') + '\n';
  if (!graph.pinned) {
    const due = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).filter((e) => stillDue(graph, e));
    has(graph, ...due);
    return;
  }
  if (process.env.UPDATE_GOLDEN) {
    fs.mkdirSync(GOLDEN, { recursive: true });
    fs.writeFileSync(file, text);
  }
  assert.equal(text, fs.readFileSync(file, 'utf8'), `${name}: the graph differs from ${file} (UPDATE_GOLDEN=1 after checking the change by hand)`);
}

const has = (graph: Graph, ...edges: string[]) => {
  for (const e of edges) if (graph.pinned || stillDue(graph, e)) assert.ok(graph.edges.includes(e), `missing edge: ${e}`);
};

test('Rust: tokio (librust-tokio-dev) with tokio-macros as a path dependency of a workspace', async () => {
  const dir = copyOf(within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*'), 'loupe-rust-');
  const pinned = debianPinned('librust-tokio-dev', '1.24.2-1') && debianPinned('librust-tokio-macros-dev', '1.7.0-1');
  const workspace = path.dirname(dir);
  fs.renameSync(dir, path.join(workspace, 'tokio'));
  fs.cpSync(within(debianPackage('librust-tokio-macros-dev', '1.7.0-1'), 'usr/share/cargo/registry/tokio-macros-*'), path.join(workspace, 'tokio-macros'), { recursive: true });
  // The upstream repository's layout: a workspace whose tokio takes tokio-macros by path (Debian's
  // registry copy says only `version`).
  fs.writeFileSync(path.join(workspace, 'Cargo.toml'), '[workspace]\nmembers = ["tokio", "tokio-macros"]\n');
  const manifest = path.join(workspace, 'tokio', 'Cargo.toml');
  fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('[dependencies.tokio-macros]\n', '[dependencies.tokio-macros]\npath = "../tokio-macros"\n'));
  const graph = await graphOf(workspace, (f) => f.startsWith('tokio/src/sync/') || f === 'tokio/src/lib.rs', pinned);
  has(graph,
    'tokio/src/lib.rs import sync -> tokio/src/sync/mod.rs', // `mod sync;` → sync/mod.rs
    'tokio/src/sync/mod.rs import mutex -> tokio/src/sync/mutex.rs', // `mod mutex;` → mutex.rs beside mod.rs
    'tokio/src/sync/mutex.rs use crate::sync::batch_semaphore -> tokio/src/sync/batch_semaphore.rs', // use crate::
    'tokio/src/sync/mpsc/bounded.rs use crate::sync::mpsc::chan -> tokio/src/sync/mpsc/chan.rs',
    'tokio/src/lib.rs export tokio_macros -> tokio-macros/src/lib.rs', // `pub use tokio_macros::main` across the workspace
  );
  checkGolden('rust-tokio', graph);
});

test('Java: bazel\'s buildjar (bazel-bootstrap-source): imports, same-package types, on-demand imports', async () => {
  const root = copyOf(path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/java_tools/buildjar'), 'loupe-java-');
  const graph = await graphOf(root, () => true, debianPinned('bazel-bootstrap-source', '4.2.3+ds-9'));
  const pkg = 'java/com/google/devtools/build/buildjar';
  has(graph,
    `${pkg}/BazelJavaBuilder.java import com.google.devtools.build.buildjar.javac.JavacOptions -> ${pkg}/javac/JavacOptions.java`,
    // `import ….BlazeJavacResult.Status` is a nested type: the file of its outer type.
    `${pkg}/BazelJavaBuilder.java import com.google.devtools.build.buildjar.javac.BlazeJavacResult.Status -> ${pkg}/javac/BlazeJavacResult.java`,
    // Same package, no import: `catch (InvalidCommandLineException e)` on line 154.
    `${pkg}/VanillaJavaBuilder.java reference com.google.devtools.build.buildjar.InvalidCommandLineException -> ${pkg}/InvalidCommandLineException.java`,
    `${pkg}/OptionsParser.java reference com.google.devtools.build.buildjar.InvalidCommandLineException -> ${pkg}/InvalidCommandLineException.java`,
  );
  checkGolden('java-buildjar', graph);
});

test('C#: react-native-windows (npm): namespaces, usings, partial classes, two projects', async () => {
  const root = copyOf(npmPackage('react-native-windows@0.76.9'), 'loupe-cs-');
  for (const e of fs.readdirSync(root)) if (!e.startsWith('Microsoft.ReactNative.Managed')) fs.rmSync(path.join(root, e), { recursive: true });
  const graph = await graphOf(root, (f) => f.startsWith('Microsoft.ReactNative.Managed.CodeGen/'));
  const gen = 'Microsoft.ReactNative.Managed.CodeGen';
  has(graph,
    // App.cs is in namespace …CodeGen and uses `new CodeAnalyzer(…)`; CodeGenerator is partial, in four files.
    `${gen}/App.cs reference ${gen}.CodeAnalyzer -> ${gen}/CodeAnalyzer.cs`,
    `${gen}/App.cs reference ${gen}.CodeGenerator -> ${gen}/CodeGenerator.Module.cs`,
    `${gen}/App.cs reference ${gen}.CodeGenerator -> ${gen}/CodeGenerator.ViewManager.cs`,
    // `using …CodeGen.Model;` and `ReactAssembly` used in App.cs.
    `${gen}/App.cs reference ${gen}.Model.ReactAssembly -> ${gen}/Model/ReactAssembly.cs`,
    // `using static …SyntaxHelpers;`
    `${gen}/CodeGenerator.Module.cs use ${gen}.SyntaxHelpers -> ${gen}/SyntaxHelpers.cs`,
  );
  // `codeAnalyzer.ReactTypes` is a member, not the type ReactTypes.
  assert.ok(!graph.edges.includes(`${gen}/App.cs reference ${gen}.Model.ReactTypes -> ${gen}/Model/ReactTypes.cs`));
  checkGolden('csharp-rnw', graph);
});

test('C: libxcrypt (libxcrypt-source) with a compile_commands.json, as a build writes it', async () => {
  const root = copyOf(path.join(debianPackage('libxcrypt-source', '1:4.4.33-2'), 'usr/src/libxcrypt'), 'loupe-c-');
  const before = await graphOf(root, (f) => f.startsWith('test/'));
  // Without a compilation database, "crypt-port.h" from test/ is not beside the file nor in an include/ folder.
  assert.ok(!before.edges.some((e) => e.startsWith('test/alg-des.c include crypt-port.h')));
  // Makefile.am: AM_CPPFLAGS = -I$(srcdir)/lib for the library and the tests.
  const entries = fs.readdirSync(path.join(root, 'lib')).filter((f) => f.endsWith('.c')).map((f) => `lib/${f}`)
    .concat(fs.readdirSync(path.join(root, 'test')).filter((f) => f.endsWith('.c')).map((f) => `test/${f}`))
    .map((file) => ({ directory: root, file, command: `cc -I${root}/lib -DIN_LIBCRYPT -c ${file}` }));
  fs.writeFileSync(path.join(root, 'compile_commands.json'), JSON.stringify(entries));
  resetTreeSitterResolution(root); // as the indexer does when files are added
  const graph = await graphOf(root, (f) => f.startsWith('test/') || f.startsWith('lib/crypt'), debianPinned('libxcrypt-source', '1:4.4.33-2'));
  has(graph,
    'test/alg-des.c include crypt-port.h -> lib/crypt-port.h', // through -I lib
    'test/alg-des.c include des-cases.h -> test/des-cases.h', // beside the including file first
    'lib/crypt.c include crypt-port.h -> lib/crypt-port.h',
  );
  checkGolden('c-libxcrypt', graph);
});

test('C without a compilation database (libxcrypt): every include resolved is the file gcc opens (gcc -H), all of lib/, none of the -I lib ones from test/', async (t) => {
  if (spawnSync('gcc', ['--version']).status !== 0) return t.skip('gcc is not installed: the oracle is the compiler itself');
  const root = copyOf(path.join(debianPackage('libxcrypt-source', '1:4.4.33-2'), 'usr/src/libxcrypt'), 'loupe-c-');
  // The headers ./configure and the build's scripts write (the source package has none): little-endian, every
  // hash of lib/hashes.conf enabled (so that no #if hides an include), no symbol versions. Outside the repository.
  const generated = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-c-generated-'));
  try {
    fs.writeFileSync(path.join(generated, 'config.h'), '#define ENDIANNESS_IS_LITTLE 1\n');
    fs.writeFileSync(path.join(generated, 'crypt-symbol-vers.h'), '');
    const hashes = fs.readFileSync(path.join(root, 'lib/hashes.conf'), 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split(/\s+/)[0]);
    fs.writeFileSync(path.join(generated, 'crypt-hashes.h'), hashes.map((h) => `#define INCLUDE_${h} 1\n`).join(''));
    const sources = ['lib', 'test'].flatMap((d) => fs.readdirSync(path.join(root, d)).filter((f) => f.endsWith('.c')).map((f) => `${d}/${f}`));
    // gcc -H prints every header it opens, one dot per level of inclusion: the include tree, file by file.
    const compiler = new Set<string>();
    for (const file of sources) {
      // Makefile.am: AM_CPPFLAGS = -I$(srcdir)/lib; the library adds -DIN_LIBCRYPT.
      const flags = ['-E', '-H', '-DHAVE_CONFIG_H', ...(file.startsWith('lib/') ? ['-DIN_LIBCRYPT'] : []), '-Ilib', `-I${generated}`, file, '-o', '/dev/null'];
      const tree = spawnSync('gcc', flags, { cwd: root, encoding: 'utf8' }).stderr;
      const stack = [file];
      for (const [, dots, opened] of tree.matchAll(/^(\.+) (.+)$/gm)) {
        const rel = path.relative(root, path.resolve(root, opened));
        stack.length = dots.length;
        stack[dots.length] = rel;
        const from = stack[dots.length - 1];
        if (!rel.startsWith('..') && !from.startsWith('..')) compiler.add(`${from} -> ${rel}`);
      }
    }
    const ours = new Set<string>();
    const graph = await graphOf(root, () => true);
    for (const e of graph.edges) ours.add(e.replace(/ \S+ .* -> /, ' -> '));
    const opened = new Set([...sources, ...[...compiler].map((e) => e.split(' -> ')[1])]);
    const wrong = [...ours].filter((e) => opened.has(e.split(' -> ')[0]) && !compiler.has(e));
    const missed = [...compiler].filter((e) => !ours.has(e));
    const lib = [...compiler].filter((e) => e.startsWith('lib/'));
    t.diagnostic(`gcc opened ${compiler.size} includes of repository files; Loupe has ${compiler.size - missed.length}, and ${wrong.length} the compiler did not open; lib/ ${lib.filter((e) => ours.has(e)).length}/${lib.length}`);
    assert.ok(compiler.size > 100 && lib.length > 60, `${compiler.size} includes seen`);
    assert.deepEqual(wrong, []);
    // What the fallback cannot know: test/ reaches lib/ only through the build's -I lib (found with a
    // compile_commands.json, test above). Everything else, lib/ whole and test/'s own headers, is found.
    assert.deepEqual(missed.filter((e) => !/^test\/\S+ -> lib\//.test(e)), []);
    // An include inside an initializer, which the grammar leaves as an ERROR node.
    assert.ok(ours.has('test/ka-tester.c -> test/ka-table.inc'));
  } finally {
    fs.rmSync(generated, { recursive: true, force: true });
  }
});

test('Ruby: rack (ruby-rack) by require and autoload; nanoc-core (ruby-nanoc-core) by Zeitwerk conventions', async () => {
  const rack = copyOf(within(debianPackage('ruby-rack', '2.2.22-0+deb12u1'), 'usr/share/rubygems-integration/all/gems/rack-*'), 'loupe-rb-');
  const rackGraph = await graphOf(rack, (f) => f.startsWith('lib/'), debianPinned('ruby-rack', '2.2.22-0+deb12u1'));
  has(rackGraph,
    'lib/rack.rb require-relative rack/version -> lib/rack/version.rb', // beside the file
    'lib/rack.rb require rack/builder -> lib/rack/builder.rb', // autoload :Builder, "rack/builder": the gem's lib/ load path
    'lib/rack/etag.rb require-relative ../rack -> lib/rack.rb', // require_relative '../rack'
    'lib/rack/file.rb require-relative files -> lib/rack/files.rb',
  );
  checkGolden('ruby-rack', rackGraph);
  const nanoc = copyOf(within(debianPackage('ruby-nanoc-core', '4.12.14-3'), 'usr/share/rubygems-integration/all/gems/nanoc-core-*'), 'loupe-rb-');
  const nanocGraph = await graphOf(nanoc, (f) => /^lib\/nanoc\/core\/(basic_|item_rep)/.test(f), debianPinned('ruby-nanoc-core', '4.12.14-3'));
  has(nanocGraph,
    // `class BasicItemRepView < ::Nanoc::Core::View` → nanoc/core/view.rb under lib/ (Zeitwerk::Loader in nanoc/core.rb)
    'lib/nanoc/core/basic_item_rep_view.rb reference Nanoc::Core::View -> lib/nanoc/core/view.rb',
    // `Nanoc::Core::Errors::NoSuchSnapshot` is defined inside errors.rb
    'lib/nanoc/core/basic_item_rep_view.rb reference Nanoc::Core::Errors -> lib/nanoc/core/errors.rb',
  );
  checkGolden('ruby-nanoc-core', nanocGraph);
});

test('PHP: symfony/console (php-symfony-console) through its composer.json PSR-4 autoload', async () => {
  const root = copyOf(path.join(debianPackage('php-symfony-console', '5.4.53+dfsg-0+deb12u1'), 'usr/share/php/Symfony/Component/Console'), 'loupe-php-');
  // Debian replaces composer.json with a generated classmap; this is upstream's autoload section.
  fs.rmSync(path.join(root, 'autoload.php'));
  fs.writeFileSync(path.join(root, 'composer.json'), JSON.stringify({
    name: 'symfony/console', autoload: { 'psr-4': { 'Symfony\\Component\\Console\\': '' }, 'exclude-from-classmap': ['/Tests/'] },
  }));
  const graph = await graphOf(root, (f) => !f.includes('/'), debianPinned('php-symfony-console', '5.4.53+dfsg-0+deb12u1'));
  has(graph,
    'Application.php use Symfony\\Component\\Console\\Command\\Command -> Command/Command.php',
    // Same namespace, no `use`: `new Terminal()` and `ConsoleEvents::COMMAND` in Application.php.
    'Application.php reference Symfony\\Component\\Console\\Terminal -> Terminal.php',
    'Application.php reference Symfony\\Component\\Console\\ConsoleEvents -> ConsoleEvents.php',
  );
  checkGolden('php-symfony-console', graph);
});

test('a Debian pin gone from the archive falls back to the version it has now; the golden graph then holds only where its code is still there', async () => {
  // A version that was never published stands for a pin a point release replaced (the mirrors keep the newest only).
  const into = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-apt-'));
  try {
    const got = aptDownload('ruby-rack', '2.2.22-0+deb12u0', into, false);
    assert.notEqual(got, '2.2.22-0+deb12u0');
    assert.ok(fs.readdirSync(into).some((f) => f === `ruby-rack_${got.replace(/^\d+:/, '')}_all.deb`), fs.readdirSync(into).join(' '));
  } finally {
    fs.rmSync(into, { recursive: true, force: true });
  }
  const rack = copyOf(within(debianPackage('ruby-rack', '2.2.22-0+deb12u1'), 'usr/share/rubygems-integration/all/gems/rack-*'), 'loupe-rb-');
  // "A newer release" without `require_relative '../rack'` in etag.rb: that golden edge is no longer due.
  const etag = path.join(rack, 'lib/rack/etag.rb');
  fs.writeFileSync(etag, fs.readFileSync(etag, 'utf8').replace("require_relative '../rack'", ''));
  const newer = await graphOf(rack, (f) => f.startsWith('lib/'), false);
  assert.ok(!newer.edges.includes('lib/rack/etag.rb require-relative ../rack -> lib/rack.rb'));
  checkGolden('ruby-rack', newer);
  assert.throws(() => checkGolden('ruby-rack', { ...newer, pinned: true }), /differs/);
  // An edge whose code is still there stays due: losing it fails, whatever the version.
  const lost = { ...newer, edges: newer.edges.filter((e) => e !== 'lib/rack.rb require-relative rack/version -> lib/rack/version.rb') };
  assert.throws(() => checkGolden('ruby-rack', lost), /missing edge: lib\/rack.rb require-relative rack\/version/);
});
