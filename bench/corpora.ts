/**
 * Benchmark corpora, fetched from the npm registry by `npm pack` and unpacked under bench/.corpora
 * (gitignored). Each is fetched once and reused.
 *
 *   rxjs      rxjs@7.8.1 src/   (~262 files)
 *   phaser    phaser@3.90.0 src/ (~2,034 files, 8.2 MB)
 *   hono, axios: hono@4.13.19 and axios@1.7.9 as published (the exactness table's held-out corpora)
 *   phaser-x2 / phaser-x4: phaser's src copied 2 and 4 times side by side (the scale series)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CORPORA_DIR = path.join(__dirname, '.corpora');

const PACKAGES: Record<string, { spec: string; sub: string }> = {
  rxjs: { spec: 'rxjs@7.8.1', sub: 'src' },
  phaser: { spec: 'phaser@3.90.0', sub: 'src' },
  // Held out for the exactness table: as published (hono's dist/, axios's lib/ and dist/).
  hono: { spec: 'hono@4.13.19', sub: '' },
  axios: { spec: 'axios@1.7.9', sub: '' },
};

/** The unpacked package folder of `name` (rxjs, phaser), fetched on first use. */
export function packageDir(name: keyof typeof PACKAGES | string): string {
  const pkg = PACKAGES[name];
  if (!pkg) throw new Error(`unknown corpus ${name}`);
  const dir = path.join(CORPORA_DIR, pkg.spec.replace('@', '-'));
  if (fs.existsSync(path.join(dir, 'package', 'package.json'))) return path.join(dir, 'package');
  fs.mkdirSync(dir, { recursive: true });
  process.stderr.write(`fetching ${pkg.spec} from the npm registry…\n`);
  const out = execFileSync('npm', ['pack', pkg.spec, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim().split('\n').pop()!;
  execFileSync('tar', ['xzf', path.join(dir, out), '-C', dir]);
  fs.rmSync(path.join(dir, out));
  return path.join(dir, 'package');
}

/** A corpus folder to index: `rxjs`, `phaser`, `phaser-x2`, `phaser-x4`. */
export function corpus(name: string): string {
  const scaled = /^(.*)-x(\d+)$/.exec(name);
  if (!scaled) {
    const dir = path.join(packageDir(name), PACKAGES[name].sub);
    return dir;
  }
  const [, base, times] = scaled;
  const target = path.join(CORPORA_DIR, name);
  if (!fs.existsSync(path.join(target, '.complete'))) {
    fs.rmSync(target, { recursive: true, force: true });
    const src = corpus(base);
    for (let i = 1; i <= Number(times); i++) fs.cpSync(src, path.join(target, `copy${i}`, 'src'), { recursive: true });
    fs.writeFileSync(path.join(target, '.complete'), '');
  }
  return target;
}

/** Counts files and bytes under a folder (for the report). */
export function sizeOf(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) { files++; bytes += fs.statSync(p).size; }
    }
  };
  walk(dir);
  return { files, bytes };
}

if (require.main === module) {
  for (const name of process.argv.slice(2).length ? process.argv.slice(2) : ['rxjs', 'phaser', 'phaser-x2', 'phaser-x4']) {
    const dir = corpus(name);
    const { files, bytes } = sizeOf(dir);
    console.log(`${name}: ${dir} (${files} files, ${(bytes / 1e6).toFixed(1)} MB)`);
  }
}
