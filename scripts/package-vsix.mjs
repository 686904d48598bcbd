// `npm run package`: builds for production and writes loupe-<version>.vsix.
//
// The bundles in dist/ leave out packages with native binaries, WASM or static assets (see
// esbuild.mjs); those, and everything they need at run time, are copied next to the bundles into
// dist/node_modules of a staging folder, so the .vsix carries better-sqlite3's and sqlite-vec's
// binaries without shipping the project's whole dependency tree (vsce's own dependency walk would).
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
// onnxruntime-node carries CPU binaries for every platform (~290 MB); only this platform's go in, and
// the .vsix is marked for this platform.
const TARGET = `${process.platform}-${process.arch}`;
const onnxKeep = (rel) => !rel.startsWith(`bin${path.sep}`) || rel.split(path.sep).length < 4
  || rel.startsWith(path.join('bin', 'napi-v6', process.platform, process.arch));

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
    const dir = packageDir(name, fromDir);
    if (!dir) {
      if (optional) return; // another platform's binary package
      throw new Error(`cannot find ${name} (needed from ${fromDir})`);
    }
    if (found.has(dir)) return;
    found.set(dir, name);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const name of names) visit(name, root, false);
  return found;
}

run(process.execPath, [path.join(root, 'esbuild.mjs'), '--production'], root);

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
for (const key of ['dependencies', 'devDependencies', 'scripts', 'allowScripts']) delete manifest[key];
fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
for (const file of ['README.md', 'LICENSE']) {
  if (fs.existsSync(path.join(root, file))) fs.copyFileSync(path.join(root, file), path.join(stage, file));
}
fs.cpSync(path.join(root, 'media'), path.join(stage, 'media'), { recursive: true });
fs.cpSync(path.join(root, 'dist'), path.join(stage, 'dist'), {
  recursive: true,
  filter: (src) => !src.endsWith('.map') && !src.includes(`${path.sep}node_modules${path.sep}`),
});
// Copy each package to the same place relative to dist/ as it has relative to the repository root,
// so nested versions (node_modules inside a package) still resolve the way they do in development.
// Sources a package only needs to be compiled from, never at run time.
const BUILD_ONLY = { 'better-sqlite3': ['deps', 'src'] };
for (const [dir, name] of closure(RUNTIME_EXTERNALS)) {
  const skip = (BUILD_ONLY[name] ?? []).map((d) => `${d}${path.sep}`);
  const target = path.join(stage, 'dist', path.relative(root, dir));
  fs.cpSync(dir, target, {
    recursive: true,
    dereference: true,
    filter: (src) => {
      const rel = path.relative(dir, src);
      // Nested node_modules are copied as packages of their own when they are in the closure.
      if (name === 'onnxruntime-node' && !onnxKeep(rel)) return false;
      return !rel.split(path.sep).includes('node_modules') && !/\.(md|map|d\.ts)$/.test(rel) && !skip.some((d) => `${rel}${path.sep}`.startsWith(d));
    },
  });
}
// The .vsix includes everything staged; vsce's own dependency walk is off.
fs.writeFileSync(path.join(stage, '.vscodeignore'), '**/*.map\n');
const out = path.join(root, `${manifest.name}-${manifest.version}.vsix`);
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '--target', TARGET, '--out', out], stage);
const size = fs.statSync(out).size;
process.stderr.write(`wrote ${path.relative(root, out)} (${(size / 1024 / 1024).toFixed(1)} MiB)\n`);
