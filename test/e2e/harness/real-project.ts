/**
 * A real project nobody here wrote, for the scenarios that need real sizes: hono's npm package
 * (its ES module build, type declarations and CommonJS build: ~580 files whose imports resolve).
 * Fetched once with `npm pack` from the registry into the e2e cache, then copied per run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheRoot } from './install';
import { tempDir } from '../../helpers/engine';

export const HONO = 'hono@4.13.19';

/** A fresh copy of the unpacked package, in a temp folder the caller may change. */
export function honoWorkspace(): string {
  const cached = path.join(cacheRoot(), HONO.replace('@', '-'), 'package');
  if (!fs.existsSync(path.join(cached, 'package.json'))) {
    const dir = path.dirname(cached);
    fs.mkdirSync(dir, { recursive: true });
    const tarball = execFileSync('npm', ['pack', HONO, '--silent', '--pack-destination', dir], {
      encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
    }).trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', path.join(dir, tarball), '-C', dir]);
    fs.rmSync(path.join(dir, tarball));
  }
  const target = path.join(tempDir('loupe-e2e-hono-'), 'hono'); // removed when the test process exits
  fs.cpSync(cached, target, { recursive: true });
  return target;
}
