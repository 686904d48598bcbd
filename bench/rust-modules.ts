/**
 * Rust's module tree against rustc's: for each crate, the files Loupe reaches from the crate root over its stored
 * `mod x;` declarations (and `include!`s) are compared with the files rustc's dep-info lists for the same root,
 * united over Cargo features, --test, windows and each custom cfg the sources test (bench/oracles/rust-modules.py).
 * A `mod` declaration is not an edge of the analysis graph (ARCHITECTURE.md, Rust), so the exactness table's
 * edge comparison does not cover it; this does. Every file rustc lists must be in Loupe's tree; Loupe's tree may
 * hold more (files behind a cfg no configuration here turns on), and those are listed.
 *
 *   node --import tsx bench/rust-modules.ts [--rustc PATH] [--golden] [tokio regex-syntax …]
 *
 * `--golden` writes each crate's oracle answer to test/fixtures/oracle/rust-modules-<crate>.json, which
 * test/analysis/rust-modules.test.ts compares Loupe with where no rustc is installed (CI).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { debianPackage, debianPinned } from './debian';

export const CRATES: Record<string, { spec: string; sub: string; root: string }> = {
  tokio: { spec: 'librust-tokio-dev=1.24.2-1', sub: 'usr/share/cargo/registry/tokio-1.24.2', root: 'src/lib.rs' },
  'regex-syntax': { spec: 'librust-regex-syntax-dev=0.6.27-1', sub: 'usr/share/cargo/registry/regex-syntax-0.6.27', root: 'src/lib.rs' },
  nix: { spec: 'librust-nix-dev=0.26.1-3', sub: 'usr/share/cargo/registry/nix-0.26.1', root: 'src/lib.rs' },
  hyper: { spec: 'librust-hyper-dev=0.14.19-1', sub: 'usr/share/cargo/registry/hyper-0.14.19', root: 'src/lib.rs' },
};

/** Loupe's module tree: the files reached from `root` over the Rust files' `mod`/`include!` rows. */
export async function loupeTree(dir: string, root: string): Promise<{ files: Set<string>; rustFiles: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-rust-mods-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [dir] });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    engine.repos.registerLocalFolder(userId, dir);
    await engine.queue.idle();
    const db = new Database(path.join(dataDir, 'loupe.db'), { readonly: true });
    try {
      const rows = db.prepare(`SELECT f.path AS src, i.target_path AS dst FROM imports i JOIN files f ON f.id = i.file_id
        WHERE f.language = 'rust' AND i.kind IN ('import', 'include') AND i.target_path IS NOT NULL`).all() as { src: string; dst: string }[];
      const out = new Map<string, string[]>();
      for (const r of rows) out.set(r.src, [...(out.get(r.src) ?? []), r.dst]);
      // Not the analysis graph's reachableFrom: a `mod` declaration is no edge there.
      const files = new Set([root]);
      const queue = [root];
      for (let head = 0; head < queue.length; head++) {
        for (const next of out.get(queue[head]) ?? []) if (!files.has(next)) { files.add(next); queue.push(next); }
      }
      const rustFiles = (db.prepare(`SELECT count(*) AS n FROM files WHERE language = 'rust'`).get() as { n: number }).n;
      return { files, rustFiles };
    } finally {
      db.close();
    }
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface RustcTree { files: string[]; configurations: number }

/** The crate's folder (downloaded once) and whether it is the pinned version. */
export function crateDir(name: string): { dir: string; pinned: boolean } {
  const c = CRATES[name];
  if (!c) throw new Error(`unknown crate ${name}: ${Object.keys(CRATES).join(', ')}`);
  const dir = path.join(debianPackage(c.spec), c.sub);
  return { dir, pinned: debianPinned(c.spec.replace(/[=:+~]/g, '_'), [c.spec]) };
}

/** rustc's module tree of a crate (bench/oracles/rust-modules.py), killed after thirty minutes. */
export function rustcTree(dir: string, root: string, rustc = 'rustc'): RustcTree {
  const out = execFileSync('python3', [path.join(__dirname, 'oracles', 'rust-modules.py'), dir, root, rustc],
    { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 30 * 60_000, killSignal: 'SIGKILL' });
  const { files, configurations } = JSON.parse(out) as RustcTree;
  return { files, configurations };
}

export const goldenFile = (name: string) => path.join(__dirname, '..', 'test', 'fixtures', 'oracle', `rust-modules-${name}.json`);

if (require.main === module) {
  (async () => {
    const args = process.argv.slice(2);
    const at = args.indexOf('--rustc');
    const rustc = at >= 0 ? args.splice(at, 2)[1] : 'rustc';
    const golden = args.includes('--golden');
    const names = args.filter((a) => !a.startsWith('--'));
    for (const name of names.length ? names : Object.keys(CRATES)) {
      const c = CRATES[name];
      const { dir } = crateDir(name);
      const t0 = performance.now();
      const oracle = rustcTree(dir, c.root, rustc);
      const oracleMs = performance.now() - t0;
      if (golden) fs.writeFileSync(goldenFile(name), `${JSON.stringify(oracle, null, 2)}\n`);
      const ours = await loupeTree(dir, c.root);
      const missed = oracle.files.filter((f) => !ours.files.has(f));
      const extra = [...ours.files].filter((f) => !oracle.files.includes(f)).sort();
      console.log(JSON.stringify({ crate: name, rustFiles: ours.rustFiles, rustc: oracle.files.length, configurations: oracle.configurations, loupe: ours.files.size, missed, extra, oracleSeconds: Math.round(oracleMs / 100) / 10 }));
    }
  })().catch((error) => { console.error(error); process.exit(1); });
}
