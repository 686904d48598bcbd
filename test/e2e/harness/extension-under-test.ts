/**
 * Which build of the extension the scenarios run: by default the .vsix that `npm run package`
 * makes (so the shipped package is what is tested); LOUPE_E2E_LINK=1 links the working tree
 * instead, for a quicker loop while developing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const REPO = path.join(__dirname, '..', '..', '..');

export async function extensionUnderTest(): Promise<{ extensionFolder?: string; vsix?: string }> {
  if (process.env.LOUPE_E2E_LINK === '1') {
    if (!fs.existsSync(path.join(REPO, 'dist', 'client.js'))) throw new Error('run `npm run build` first');
    return { extensionFolder: REPO };
  }
  return { vsix: packageVsix() };
}

/** Runs `npm run package` and returns the .vsix it wrote. */
export function packageVsix(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = path.join(REPO, `${pkg.name}-${pkg.version}.vsix`);
  const result = spawnSync('npm', ['run', 'package'], {
    cwd: REPO, encoding: 'utf8',
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
  });
  if (result.status !== 0) throw new Error(`npm run package failed:\n${result.stdout}\n${result.stderr}`);
  if (!fs.existsSync(vsix)) throw new Error(`npm run package did not write ${vsix}`);
  return vsix;
}
