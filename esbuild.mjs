// Builds every entry point into dist/. `node esbuild.mjs --watch` rebuilds on change.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// Packages that carry native binaries, WASM or static assets stay in node_modules and load at run time.
const nodeExternals = [
  'vscode',
  'better-sqlite3',
  'sqlite-vec',
  'typescript',
  'ts-morph',
  'web-tree-sitter',
  '@vscode/tree-sitter-wasm',
  '@fastify/swagger-ui',
  'onnxruntime-node',
];

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
    outdir: 'dist',
    entryNames: '[name]',
    entryPoints: {
      cli: 'server/cli.ts',
      server: 'server/main.ts',
      'parse-worker': 'server/engine/indexer/parse-worker.ts',
      'grep-worker': 'server/engine/search/grep-worker.ts',
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

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
