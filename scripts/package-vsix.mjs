// `npm run package [-- --target linux-arm64]`: builds for production and writes
// loupe-<version>[-<target>].vsix, one package per platform (`vsce package --target`).
//
// The bundles in dist/ leave out packages with native binaries, WASM or static assets (see
// esbuild.mjs); those, and everything they need at run time, are copied next to the bundles into
// dist/node_modules of a staging folder, so the .vsix carries better-sqlite3's and sqlite-vec's
// binaries without shipping the project's whole dependency tree (vsce's own dependency walk would).
// Per target it keeps one better-sqlite3 build and that platform's sqlite-vec; of TypeScript only
// the compiler API (lib/typescript.js: the language services' lib.d.ts files are never loaded);
// onnxruntime-node (an optional embedding provider, off by default) is not shipped: it loads from
// the extension's runtime folder when the user installs it (README, "ONNX embeddings").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const stage = path.join(root, '.tmp', 'vsix-stage');
// The packages esbuild.mjs leaves out of the bundles, read from it so the two lists cannot drift.
const RUNTIME_EXTERNALS = (() => {
  const source = fs.readFileSync(path.join(root, 'esbuild.mjs'), 'utf8');
  const list = /const nodeExternals = \[([^\]]*)\]/.exec(source);
  if (!list) throw new Error('esbuild.mjs: cannot find the nodeExternals list');
  return [...list[1].matchAll(/'([^']+)'/g)].map((m) => m[1]).filter((name) => name !== 'vscode');
})();
// VS Code's platform names (`vsce package --target`): win32-x64, linux-arm64, alpine-x64, darwin-arm64…
const targetArg = process.argv.indexOf('--target');
const TARGET = targetArg > 0 ? process.argv[targetArg + 1] : `${process.platform === 'linux' && isMusl() ? 'alpine' : process.platform}-${process.arch}`;
const [targetOs, targetArch] = TARGET.split('-');
// better-sqlite3's prebuild and sqlite-vec's package for the target (Alpine is musl).
const SQLITE_BUILD = `${targetOs === 'alpine' ? 'linuxmusl' : targetOs}-${targetArch}`;
const VEC_PACKAGE = `sqlite-vec-${targetOs === 'win32' ? 'windows' : targetOs === 'alpine' ? 'linux' : targetOs}-${targetArch}`;
/** Packages the extension never loads at run time, though an external references them. */
const NOT_SHIPPED = new Set(['onnxruntime-node', 'onnxruntime-common']);

function isMusl() {
  try { return !process.report.getReport().header.glibcVersionRuntime; } catch { return false; }
}

// The tree-sitter grammars the indexer loads (`grammar: '…'` in its language specs); TypeScript and
// JavaScript go through the TypeScript compiler, and VS Code's other grammars are never loaded.
const GRAMMARS = new Set(fs.readdirSync(path.join(root, 'server', 'engine', 'indexer', 'tree-sitter'))
  .flatMap((f) => [...fs.readFileSync(path.join(root, 'server', 'engine', 'indexer', 'tree-sitter', f), 'utf8').matchAll(/grammar: '([\w-]+)'/g)].map((m) => m[1])));

/** Within a copied package: what a platform package needs at run time, by package. */
const KEEP = {
  '@vscode/tree-sitter-wasm': (rel) => !/^wasm[/\\]tree-sitter-.+\.wasm$/.test(rel) || GRAMMARS.has(/tree-sitter-(.+)\.wasm$/.exec(rel)[1]),
  'better-sqlite3': (rel) => !/^(deps|src|build)([/\\]|$)/.test(rel) && (!rel.startsWith(`prebuilds${path.sep}`) || rel === path.join('prebuilds', `${SQLITE_BUILD}.node`)),
  typescript: (rel) => rel === 'package.json' || rel === 'LICENSE.txt' || rel === 'lib' || rel === path.join('lib', 'typescript.js'),
};

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/** The directory of `name` as Node would resolve it from `fromDir`. */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === path.dirname(dir)) return null;
  }
}

/** Every package the externals load at run time (dependencies and installed optional ones). */
function closure(names) {
  const found = new Map();
  const visit = (name, fromDir, optional) => {
    const dir = packageDir(name, fromDir) ?? (name === VEC_PACKAGE ? packageDir(name, PLATFORM_PACKAGES) : null);
    if (!dir) {
      if (optional) return; // another platform's binary package
      throw new Error(`cannot find ${name} (needed from ${fromDir})`);
    }
    if (found.has(dir)) return;
    found.set(dir, name);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) {
      // sqlite-vec's binaries come one package per platform: only the target's.
      if (dep.startsWith('sqlite-vec-') && dep !== VEC_PACKAGE) continue;
      visit(dep, dir, true);
    }
  };
  for (const name of names) if (!NOT_SHIPPED.has(name)) visit(name, root, false);
  return found;
}

const PLATFORM_PACKAGES = path.join(root, '.tmp', 'platform-packages');

/** The target's sqlite-vec package, fetched from the registry when this machine is another platform. */
function ensureVecPackage() {
  if (packageDir(VEC_PACKAGE, root) || packageDir(VEC_PACKAGE, PLATFORM_PACKAGES)) return;
  const version = JSON.parse(fs.readFileSync(path.join(packageDir('sqlite-vec', root), 'package.json'), 'utf8')).version;
  const into = PLATFORM_PACKAGES;
  fs.mkdirSync(into, { recursive: true });
  run('npm', ['pack', `${VEC_PACKAGE}@${version}`, '--silent', '--pack-destination', into], root);
  const target = path.join(into, 'node_modules', VEC_PACKAGE);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  run('tar', ['xzf', path.join(into, `${VEC_PACKAGE}-${version}.tgz`), '-C', target, '--strip-components=1'], root);
}

run(process.execPath, [path.join(root, 'esbuild.mjs'), '--production'], root);
ensureVecPackage();

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
for (const key of ['dependencies', 'devDependencies', 'scripts', 'allowScripts']) delete manifest[key];
fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
// The Marketplace page is docs/marketplace/README.md (a user's guide with the e2e run's screenshots).
fs.copyFileSync(path.join(root, 'docs', 'marketplace', 'README.md'), path.join(stage, 'README.md'));
for (const file of ['LICENSE', 'CHANGELOG.md']) fs.copyFileSync(path.join(root, file), path.join(stage, file));
fs.cpSync(path.join(root, 'media'), path.join(stage, 'media'), { recursive: true, filter: (src) => !src.endsWith('icon.svg') });
fs.cpSync(path.join(root, 'docs', 'marketplace', 'images'), path.join(stage, 'images'), { recursive: true });
// The headless entries (npm start, the MCP stdio server, the team server's serve and worker) are not part of the extension; the
// sidecar's /mcp endpoint is in server.js.
const NOT_IN_EXTENSION = new Set(['cli.js', 'cli-main.js', 'mcp.js', 'serve.js', 'worker.js']);
fs.cpSync(path.join(root, 'dist'), path.join(stage, 'dist'), {
  recursive: true,
  filter: (src) => !src.endsWith('.map') && !src.includes(`${path.sep}node_modules${path.sep}`) && !NOT_IN_EXTENSION.has(path.basename(src)),
});
// Copy each package to the same place relative to dist/ as it has relative to the repository root,
// so nested versions (node_modules inside a package) still resolve the way they do in development.
// Sources a package only needs to be compiled from, never at run time.
const BUILD_ONLY = { 'better-sqlite3': ['deps', 'src'] };
for (const [dir, name] of closure(RUNTIME_EXTERNALS)) {
  const skip = (BUILD_ONLY[name] ?? []).map((d) => `${d}${path.sep}`);
  // A platform package fetched for another target goes where an installed one would be.
  const rel = dir.startsWith(PLATFORM_PACKAGES) ? path.join('node_modules', name) : path.relative(root, dir);
  const target = path.join(stage, 'dist', rel);
  fs.cpSync(dir, target, {
    recursive: true,
    dereference: true,
    filter: (src) => {
      const rel = path.relative(dir, src);
      if (rel && KEEP[name] && !KEEP[name](rel)) return false;
      // Nested node_modules are copied as packages of their own when they are in the closure.
      return !rel.split(path.sep).includes('node_modules') && !/\.(md|map|d\.ts)$/.test(rel) && !skip.some((d) => `${rel}${path.sep}`.startsWith(d));
    },
  });
}
// The .vsix includes everything staged; vsce's own dependency walk is off.
fs.writeFileSync(path.join(stage, '.vscodeignore'), '**/*.map\n');
const out = path.join(root, targetArg > 0 ? `${manifest.name}-${manifest.version}-${TARGET}.vsix` : `${manifest.name}-${manifest.version}.vsix`);
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--target', TARGET, '--out', out], stage);
const size = fs.statSync(out).size;
process.stderr.write(`wrote ${path.relative(root, out)} (${(size / 1024 / 1024).toFixed(1)} MiB)\n`);
