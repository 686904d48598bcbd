// Builds every entry point into dist/. `node esbuild.mjs --watch` rebuilds on change;
// `--if-changed` (npm start) builds only when a file that went into the last build has changed.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const ifChanged = process.argv.includes('--if-changed');
/** What the last build read (every bundled file, with its size and mtime), to tell whether dist/ is current. */
const INPUTS = path.join('dist', '.build-inputs.json');

// Packages that carry native binaries, WASM or static assets stay in node_modules and load at run time.
const nodeExternals = [
  'vscode',
  'better-sqlite3',
  'sqlite-vec',
  'typescript',
  '@vscode/tree-sitter-wasm',
  '@fastify/swagger-ui',
  'onnxruntime-node',
];

// TypeScript takes about a third of the language server's start-up to load, yet the first parse comes
// later: project code gets a stand-in that loads it on first use. Its export names are listed at
// build time so that esbuild's ESM interop can copy them without loading anything.
const require = createRequire(import.meta.url);
const lazyTypescript = {
  name: 'lazy-typescript',
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, (args) => {
      if (args.namespace === 'lazy-typescript') return { path: 'typescript', external: true }; // the stand-in's own require
      return args.importer.includes(`${path.sep}node_modules${path.sep}`) ? undefined : { path: 'typescript', namespace: 'lazy-typescript' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-typescript' }, () => ({
      loader: 'js',
      contents: `const KEYS = ${JSON.stringify(Object.keys(require('typescript')))};
let real;
const load = () => (real ??= require('typescript'));
module.exports = new Proxy({}, {
  get: (_, key) => (key === '__esModule' ? undefined : load()[key]),
  has: (_, key) => key in load(),
  ownKeys: () => KEYS,
  getOwnPropertyDescriptor: (_, key) => (KEYS.includes(key) ? { configurable: true, enumerable: true, writable: true, value: undefined } : undefined),
});`,
    }));
  },
};

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

const builds = [
  {
    ...common,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: nodeExternals,
    plugins: [lazyTypescript],
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: {
      cli: 'server/cli.ts',
      mcp: 'server/mcp-cli.ts',
      server: 'server/main.ts',
      'parse-worker': 'server/engine/indexer/parse-worker.ts',
      'write-worker': 'server/engine/indexer/write-worker.ts',
      'grep-worker': 'server/engine/search/grep-worker.ts',
      'train-worker': 'server/engine/embed/train-worker.ts',
      client: 'client/extension.ts',
    },
  },
  {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: { webview: 'webview/main.ts' },
  },
];

/** Size and mtime of each file (namespaced inputs such as `lazy-typescript:typescript` are not files). */
function stamps(files) {
  const out = {};
  for (const file of files) {
    if (/^[a-z-]+:/.test(file)) continue;
    try {
      const st = fs.statSync(file);
      out[file] = `${st.size}:${st.mtimeMs}`;
    } catch {
      out[file] = 'missing';
    }
  }
  return out;
}

/** True when the last build's inputs, this script and the options are all as they were. */
function upToDate() {
  let last;
  try {
    last = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
  } catch {
    return false;
  }
  if (last.production !== production) return false;
  const now = stamps(Object.keys(last.files));
  return Object.entries(last.files).every(([file, stamp]) => now[file] === stamp)
    && last.outputs.every((file) => fs.existsSync(file));
}

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else if (ifChanged && upToDate()) {
  // dist/ was built from exactly these files: nothing to do.
} else {
  const results = await Promise.all(builds.map((options) => esbuild.build({ ...options, metafile: true })));
  const inputs = results.flatMap((r) => Object.keys(r.metafile.inputs));
  const outputs = results.flatMap((r) => Object.keys(r.metafile.outputs));
  const files = stamps([...new Set([...inputs, 'esbuild.mjs', 'package-lock.json'])]);
  fs.writeFileSync(INPUTS, JSON.stringify({ production, files, outputs }));
}
