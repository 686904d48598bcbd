/**
 * `npm start -- <folder>` (dist/cli.js): a small entry that turns on Node's compile cache in the data dir
 * (server/data-dir.ts) before the CLI itself loads (server/cli-main.ts, dist/cli-main.js: its bundle,
 * dist/vendor.js and the HTTP application's packages, which a restart then does not compile again).
 * Only `--data-dir` is read here, leniently; the CLI parses and checks every flag.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { enableCompileCache, homeDataDir } from './data-dir';

let dataDir: string | undefined;
try {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' } }, strict: false, allowPositionals: true });
  dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
} catch {
  // the CLI reports bad flags
}
enableCompileCache(dataDir ? path.resolve(dataDir) : homeDataDir(process.env.LOUPE_HOME || undefined));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a separate bundle (esbuild.mjs), loaded after the cache is on
require('./cli-main.js');
