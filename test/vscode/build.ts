/**
 * Bundles the in-host suite (test/vscode/suite) into .tmp/vscode-tests, the folder given to VS Code as
 * --extensionTestsPath. `vscode` comes from the extension host; mocha is bundled in.
 */
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
export const SUITE_DIR = path.join(root, '.tmp', 'vscode-tests');

/** Returns the --extensionTestsPath to give VS Code. */
export async function buildSuite(): Promise<string> {
  const suite = path.join(root, 'test', 'vscode', 'suite');
  const entryPoints = Object.fromEntries(fs.readdirSync(suite).filter((f) => f.endsWith('.ts')).map((f) => [f.replace(/\.ts$/, ''), path.join(suite, f)]));
  fs.rmSync(SUITE_DIR, { recursive: true, force: true });
  await esbuild.build({
    entryPoints, outdir: SUITE_DIR, bundle: true, platform: 'node', format: 'cjs', target: 'node22',
    external: ['vscode'], logLevel: 'warning', sourcemap: 'inline',
  });
  return path.join(SUITE_DIR, 'index.js');
}
