import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Real source code nobody here wrote, for tests: npm packages (`npm pack`) and Debian packages
 * (`apt-get download PKG=VERSION && dpkg-deb -x`), pinned, unpacked once into a cache that outlives
 * the test run (CI reaches the npm registry and Debian). `LOUPE_TEST_CACHE` moves the cache.
 */
const CACHE = process.env.LOUPE_TEST_CACHE ?? path.join(os.homedir(), '.cache', 'loupe-test');

function cached(kind: string, name: string, fill: (dir: string) => void): string {
  const dir = path.join(CACHE, kind, name);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fill(dir);
  fs.writeFileSync(path.join(dir, '.complete'), '');
  return dir;
}

/** An npm package's files (the tarball's `package/` folder), e.g. `npmPackage('hono@4.13.19')`. */
export function npmPackage(spec: string): string {
  const dir = cached('npm', spec.replace('/', '+'), (target) => {
    const file = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', target], { encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', path.join(target, file), '-C', target]);
    fs.rmSync(path.join(target, file));
  });
  return path.join(dir, 'package');
}

/**
 * A Debian package unpacked (not installed), e.g. `debianPackage('ruby-rack', '2.2.6.4-1')`: the folder
 * holding its `usr/`. Needs `apt-get update` to have run once (CI's setup does).
 */
export function debianPackage(name: string, version: string): string {
  return cached('deb', `${name}_${version}`, (target) => {
    execFileSync('apt-get', ['download', '-q', `${name}=${version}`], { cwd: target, stdio: ['ignore', 'ignore', 'pipe'] });
    const deb = fs.readdirSync(target).find((f) => f.endsWith('.deb'))!;
    execFileSync('dpkg-deb', ['-x', deb, '.'], { cwd: target });
    fs.rmSync(path.join(target, deb));
  });
}

/** A copy of part of an unpacked package in a fresh temp folder, so a test may index (and change) it. */
export function copyOf(source: string, prefix = 'loupe-real-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const target = path.join(dir, path.basename(source));
  fs.cpSync(source, target, { recursive: true });
  return target;
}
