import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aptDownload } from '../../bench/debian';

/**
 * Real source code nobody here wrote, for tests: npm packages (`npm pack`) and Debian packages
 * (`apt-get download PKG=VERSION && dpkg-deb -x`), pinned, unpacked once into a cache that outlives
 * the test run (CI reaches the npm registry and Debian). `LOUPE_TEST_CACHE` moves the cache.
 *
 * Debian pins can vanish: a stable point release or a security update replaces a version, and the mirrors keep
 * only the newest (ruby-rack 2.2.22-0+deb12u1 was superseded by deb12u2 while this was written). Rather than
 * depend on snapshot.debian.org (not reachable from CI), a pin that is gone falls back to the version the
 * archive has now (`aptDownload`), says so on stderr, and `debianPinned` tells the test: checks that hold for
 * any release (each hand-checked edge, while the code that makes it is still there) stay strict; a committed
 * golden file of the whole graph is compared edge by edge only where the new release still has the code
 * (see goldenEdgesStillDue). Bump the pin (and rewrite the golden file) when that happens.
 */
const CACHE = process.env.LOUPE_TEST_CACHE ?? path.join(os.homedir(), '.cache', 'loupe-test');

/**
 * Filled in a private folder and renamed into place, so test files running at once (the runner's
 * --concurrency, or several checkouts sharing the cache) never see or delete each other's half-unpacked copy.
 */
function cached(kind: string, name: string, fill: (dir: string) => void): string {
  const dir = path.join(CACHE, kind, name);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  try {
    fill(partial);
    fs.writeFileSync(path.join(partial, '.complete'), '');
    if (!fs.existsSync(path.join(dir, '.complete'))) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(partial, dir);
    }
  } catch (error) {
    if (!fs.existsSync(path.join(dir, '.complete'))) throw error;
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
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

/** The text of every `ext` file under `dir` (in path order) in pieces of `lines` lines: chunks of real code as the index holds them. */
export function codeChunks(dir: string, ext = '.js', lines = 25): string[] {
  const texts: string[] = [];
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(ext)).sort()) {
    const all = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
    for (let i = 0; i < all.length; i += lines) texts.push(all.slice(i, i + lines).join('\n'));
  }
  return texts;
}

/**
 * A Debian package unpacked (not installed), e.g. `debianPackage('ruby-rack', '2.2.6.4-1')`: the folder
 * holding its `usr/`. Needs `apt-get update` to have run once (CI's setup does).
 */
export function debianPackage(name: string, version: string): string {
  return cached('deb', `${name}_${version}`, (target) => {
    const obtained = aptDownload(name, version, target);
    const deb = fs.readdirSync(target).find((f) => f.endsWith('.deb'))!;
    execFileSync('dpkg-deb', ['-x', deb, '.'], { cwd: target });
    fs.rmSync(path.join(target, deb));
    fs.writeFileSync(path.join(target, '.version'), obtained);
  });
}

/** The version unpacked for a pin (the pin itself unless the archive had replaced it). */
export function debianVersion(name: string, version: string): string {
  const file = path.join(debianPackage(name, version), '.version');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : version;
}

export const debianPinned = (name: string, version: string): boolean => debianVersion(name, version) === version;

/**
 * A path inside an unpacked package whose folder names carry the upstream version (`gems/rack-*`,
 * `registry/tokio-*`): each `*` segment is the one entry that matches, so a newer release is found too.
 */
export function within(dir: string, rel: string): string {
  let at = dir;
  for (const segment of rel.split('/')) {
    if (!segment.includes('*')) { at = path.join(at, segment); continue; }
    const pattern = new RegExp(`^${segment.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const matches = fs.readdirSync(at).filter((e) => pattern.test(e));
    if (matches.length !== 1) throw new Error(`${path.join(at, segment)}: ${matches.length} entries match`);
    at = path.join(at, matches[0]);
  }
  return at;
}

/** A copy of part of an unpacked package in a fresh temp folder, so a test may index (and change) it. */
export function copyOf(source: string, prefix = 'loupe-real-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const target = path.join(dir, path.basename(source));
  fs.cpSync(source, target, { recursive: true });
  return target;
}
