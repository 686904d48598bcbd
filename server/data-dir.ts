/**
 * The data directory's default and Node's compile cache in it, for the CLI's small entry (server/cli.ts),
 * which reads them before the rest of the CLI loads: node: modules only.
 */
import module from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The default data directory: $LOUPE_HOME, else ~/.loupe. */
export const homeDataDir = (home: string | undefined) => path.resolve(home ?? path.join(os.homedir(), '.loupe'));

/** Where Node keeps the compiled code of the bundles and packages this data dir's CLI loads. */
export const compileCacheDir = (dataDir: string) => path.join(dataDir, 'compile-cache');

/**
 * Turns on Node's compile cache (`module.enableCompileCache`) in DATA_DIR/compile-cache, for this thread
 * and, through NODE_COMPILE_CACHE, for the worker threads and processes started after it (the index
 * writer, the parse workers): a restart then reads the V8 code of dist/*.js and the packages loaded from
 * node_modules instead of compiling them again. Only in a data dir that exists (a first start gets it
 * once the engine has made the folder) and only from the bundle (dist/): a no-op from source (tsx).
 * Node checks each entry against the file's contents, so a rebuilt bundle is compiled afresh.
 */
export function enableCompileCache(dataDir: string): void {
  if (__filename.endsWith('.ts') || !fs.existsSync(dataDir)) return;
  const enable = (module as { enableCompileCache?: typeof module.enableCompileCache }).enableCompileCache;
  if (!enable) return;
  try {
    const result = enable(compileCacheDir(dataDir));
    if (result.directory && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = result.directory;
  } catch {
    // A cache is an optimisation: a start without one is a slower start, nothing else.
  }
}
