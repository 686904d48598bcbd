// Builds every entry point into dist/. `node esbuild.mjs --watch` rebuilds on change;
// `--if-changed` (npm start) builds only when a file that went into the last build has changed.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const ifChanged = process.argv.includes('--if-changed');
// `--metafile`: each build's esbuild metafile into .tmp/esbuild-meta/ (what went into which bundle).
const writeMeta = process.argv.includes('--metafile');
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
  'koffi',
];

// TypeScript takes about a third of the language server's start-up to load, yet the first parse comes
// later: project code gets a stand-in that loads it on first use. All of the project's imports of it are
// default imports (`import ts from 'typescript'`), so the stand-in is an ES module whose default export
// forwards to the real one: nothing is copied from it when a module imports it.
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
      contents: `let real;
const load = () => (real ??= require('typescript'));
export default new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const found = Reflect.getOwnPropertyDescriptor(load(), key);
    return found && { ...found, configurable: true };
  },
});`,
    }));
  },
};

// The language server's first lens needs the engine and the LSP binding; not the HTTP sidecar
// (Fastify, OpenAPI, MCP, A2A) nor the packages the engine calls only for a configured provider, a mail
// or a manifest. Those are bundled once, into dist/vendor.js, and loaded when first needed:
// - SIDECAR: imported only by the sidecar's transports, which host.ts reaches through import(), so
//   esbuild initialises them on first use. Their imports become a stand-in that requires vendor.js when
//   the importing module initialises. The build fails if the language server's entry reaches one of
//   them without an import() on the way (checkFirstLensPath below).
// - ON_FIRST_CALL: imported by engine modules that load at start. Their stand-in's exports are proxies
//   that load vendor.js on the first call (`request(…)`, `new XMLParser(…)`, `nodemailer.createTransport`).
// Our own code stays in one copy, in the entry bundle, so its classes (LoupeError) stay one class; each
// vendored package is in vendor.js once, whoever imports it.
const SIDECAR = [
  'fastify', 'find-my-way', '@fastify/swagger', '@a2a-js/sdk/server', '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/server/streamableHttp.js', '@modelcontextprotocol/sdk/server/stdio.js', 'zod', 'ajv', 'ajv-formats', 'typebox',
  '@fastify/fast-json-stringify-compiler',
];
const ON_FIRST_CALL = ['undici', 'nodemailer', 'yaml', 'fast-xml-parser', 'smol-toml'];
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
const VENDORED = new Set([...SIDECAR, ...ON_FIRST_CALL].map(packageOf));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const vendoredImport = new RegExp(`^(${[...VENDORED].map(escape).join('|')})(/|$)`);

const deferToVendor = {
  name: 'defer-to-vendor',
  setup(build) {
    build.onResolve({ filter: vendoredImport }, (args) => {
      if (args.namespace === 'vendor-stand-in') return undefined;
      if (SIDECAR.includes(args.path)) return { path: args.path, namespace: 'vendor-stand-in', pluginData: 'sidecar' };
      if (ON_FIRST_CALL.includes(args.path)) return { path: args.path, namespace: 'vendor-stand-in', pluginData: 'first-call' };
      // Another entry of a vendored package bundled here would be a second copy of its code: list it.
      return { errors: [{ text: `${args.path} (imported by ${args.importer}) belongs to a package bundled into dist/vendor.js: add it to SIDECAR or ON_FIRST_CALL in esbuild.mjs` }] };
    });
    build.onResolve({ filter: /^\.\/vendor\.js$/, namespace: 'vendor-stand-in' }, () => ({ path: './vendor.js', external: true }));
    build.onLoad({ filter: /.*/, namespace: 'vendor-stand-in' }, (args) => {
      const spec = JSON.stringify(args.path);
      if (args.pluginData === 'sidecar') return { loader: 'js', contents: `module.exports = require('./vendor.js')[${spec}];` };
      // The names the package exports (read here, at build time); each forwards to the real one once loaded.
      const real = require(args.path);
      const names = Object.keys(real).filter((name) => name !== 'default' && name !== '__esModule' && /^[A-Za-z_$][\w$]*$/.test(name)
        && (typeof real[name] === 'function' || (typeof real[name] === 'object' && real[name] !== null)));
      return {
        loader: 'js',
        contents: `let real;
const load = () => (real ??= require('./vendor.js')[${spec}]);
const lazy = (pick) => new Proxy(function () {}, {
  apply: (_, self, args) => Reflect.apply(pick(), self, args),
  construct: (_, args) => Reflect.construct(pick(), args),
  get: (_, key) => Reflect.get(pick(), key),
  has: (_, key) => key in pick(),
});
export default lazy(() => (load().__esModule ? load().default : load()));
${names.map((name) => `export const ${name} = lazy(() => load().${name});`).join('\n')}`,
      };
    });
  },
};

/** dist/vendor.js: the vendored packages behind one getter each, so loading it runs none of them. */
const vendorEntry = {
  contents: `module.exports = Object.defineProperties({}, {\n${[...SIDECAR, ...ON_FIRST_CALL]
    .map((spec) => `  ${JSON.stringify(spec)}: { enumerable: true, get: () => require(${JSON.stringify(spec)}) },`).join('\n')}\n});`,
  resolveDir: path.dirname(fileURLToPath(import.meta.url)),
  sourcefile: 'vendor-entry.js',
  loader: 'js',
};

/**
 * The language server's start must not load vendor.js: no sidecar stand-in may be reachable from
 * server/main.ts through static imports only (an import() is where esbuild defers initialisation).
 */
function checkFirstLensPath(metafile, entry) {
  const inputs = metafile.inputs;
  const via = new Map([[entry, null]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift();
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind === 'dynamic-import' || imp.external || via.has(imp.path)) continue;
      via.set(imp.path, file);
      queue.push(imp.path);
    }
  }
  for (const file of via.keys()) {
    if (!file.startsWith('vendor-stand-in:') || !SIDECAR.includes(file.slice('vendor-stand-in:'.length))) continue;
    const chain = [];
    for (let at = file; at; at = via.get(at)) chain.push(at);
    throw new Error(`the language server's start would load dist/vendor.js: ${chain.join(' <- ')} (import it with import() instead)`);
  }
}

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

/** Fails the server build when its start would load vendor.js (see checkFirstLensPath). */
const firstLensPath = {
  name: 'first-lens-path',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return undefined;
      try {
        checkFirstLensPath(result.metafile, 'server/main.ts');
        return undefined;
      } catch (error) {
        return { errors: [{ text: error.message }] };
      }
    });
  },
};

const node = { ...common, platform: 'node', format: 'cjs', target: 'node22', external: nodeExternals, metafile: true };

const builds = [
  {
    // The three ways in; what they load late is in dist/vendor.js.
    ...node,
    plugins: [lazyTypescript, deferToVendor, firstLensPath],
    // dist/cli.js turns Node's compile cache on, then requires dist/cli-main.js (server/cli.ts).
    external: [...nodeExternals, './cli-main.js'],
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: { cli: 'server/cli.ts', 'cli-main': 'server/cli-main.ts', mcp: 'server/mcp-cli.ts', server: 'server/main.ts' },
  },
  { ...node, stdin: vendorEntry, outfile: 'dist/vendor.js' },
  {
    // The team server's ways in (npm run serve, npm run worker): the API node loads the sidecar's
    // transports from dist/vendor.js as the CLI does; pg's optional native binding is not installed.
    ...node,
    external: [...nodeExternals, 'pg-native'],
    plugins: [lazyTypescript, deferToVendor],
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: { serve: 'server/serve.ts', worker: 'server/worker.ts' },
  },
  {
    // Worker threads: each bundle complete in itself.
    ...node,
    plugins: [lazyTypescript],
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: {
      'parse-worker': 'server/engine/indexer/parse-worker.ts',
      'write-worker': 'server/engine/indexer/write-worker.ts',
      'grep-worker': 'server/engine/search/grep-worker.ts',
      'train-worker': 'server/engine/embed/train-worker.ts',
      'checkpoint-worker': 'server/engine/store/checkpoint-worker.ts',
    },
  },
  {
    // The extension: a small entry that forks the language server at once (client/extension.ts), then
    // requires the rest (client-main.js, with vscode-languageclient).
    ...node,
    external: [...nodeExternals, './client-main.js'],
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: { client: 'client/extension.ts', 'client-main': 'client/main.ts' },
  },
  {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: { webview: 'webview/main.ts' },
    metafile: true,
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
  const results = await Promise.all(builds.map((options) => esbuild.build(options)));
  if (writeMeta) {
    fs.mkdirSync(path.join('.tmp', 'esbuild-meta'), { recursive: true });
    results.forEach((r, i) => fs.writeFileSync(path.join('.tmp', 'esbuild-meta', `${Object.keys(r.metafile.outputs).find((o) => o.endsWith('.js')).replace(/^dist\//, '').replace(/\.js$/, '')}-${i}.json`), JSON.stringify(r.metafile)));
  }
  const inputs = results.flatMap((r) => Object.keys(r.metafile.inputs));
  const outputs = results.flatMap((r) => Object.keys(r.metafile.outputs));
  const files = stamps([...new Set([...inputs, 'esbuild.mjs', 'package-lock.json'])]);
  fs.writeFileSync(INPUTS, JSON.stringify({ production, files, outputs }));
}
