import fs from 'node:fs';
import path from 'node:path';
import { git } from '../repos/git';

/** Commits that touch more files than this are bulk changes (renames, formatting) and say nothing about coupling. */
const MAX_FILES_PER_COMMIT = 50;
const MAX_COMMITS = 3000;

export interface CoChange { path: string; coChanges: number; ratio: number }

interface History { key: string; commitsByFile: Map<string, number[]>; commits: string[][] }

/**
 * Files that change together with a file in git history (co-change), from one `git log` per
 * repository head, cached until HEAD moves. The head is read from .git directly (no process) so a
 * cache hit costs two small file reads.
 */
export class CoChangeHistory {
  private readonly cache = new Map<string, History>();
  private readonly pending = new Map<string, Promise<History | null>>();

  async related(root: string, file: string, limit = 10): Promise<{ files: CoChange[]; commits: number } | null> {
    const history = await this.history(root);
    if (!history) return null;
    const own = history.commitsByFile.get(file) ?? [];
    const counts = new Map<string, number>();
    for (const c of own) {
      for (const other of history.commits[c]) if (other !== file) counts.set(other, (counts.get(other) ?? 0) + 1);
    }
    const files = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([p, n]) => ({ path: p, coChanges: n, ratio: Math.round((n / own.length) * 1000) / 1000 }));
    return { files, commits: own.length };
  }

  /** How many commits touched each file (churn), or null outside a git work tree. */
  async churn(root: string): Promise<Map<string, number> | null> {
    const history = await this.history(root);
    if (!history) return null;
    return new Map([...history.commitsByFile.entries()].map(([p, c]) => [p, c.length]));
  }

  private async history(root: string): Promise<History | null> {
    const key = headKey(root);
    if (!key) return null;
    const cached = this.cache.get(root);
    if (cached && cached.key === key) return cached;
    let loading = this.pending.get(root);
    if (!loading) {
      loading = load(root, key).finally(() => this.pending.delete(root));
      this.pending.set(root, loading);
    }
    const history = await loading;
    if (history) this.cache.set(root, history);
    return history;
  }
}

async function load(root: string, key: string): Promise<History | null> {
  let stdout: string;
  try {
    ({ stdout } = await git(['log', '--no-merges', '--no-renames', '--name-only', '--format=%x00', '-n', String(MAX_COMMITS), 'HEAD', '--', '.'], { cwd: root, timeoutMs: 60_000 }));
  } catch {
    return null;
  }
  // Paths from git are relative to the top level; the index may be rooted below it.
  let prefix = '';
  try { prefix = (await git(['rev-parse', '--show-prefix'], { cwd: root, timeoutMs: 10_000 })).stdout.trim(); } catch { /* top level */ }
  const commits: string[][] = [];
  const commitsByFile = new Map<string, number[]>();
  for (const block of stdout.split('\0')) {
    const files = block.split('\n').map((l) => l.trim()).filter((l) => l && (!prefix || l.startsWith(prefix))).map((l) => l.slice(prefix.length));
    if (files.length === 0 || files.length > MAX_FILES_PER_COMMIT) continue;
    const index = commits.push(files) - 1;
    for (const f of files) {
      let list = commitsByFile.get(f);
      if (!list) commitsByFile.set(f, (list = []));
      list.push(index);
    }
  }
  return { key, commits, commitsByFile };
}

/** HEAD's commit as stored in .git (loose ref or packed-refs), without running git; null outside git. */
export function headKey(root: string): string | null {
  let dir = path.resolve(root);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    if (fs.existsSync(dotGit)) return readHead(dotGit);
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function readHead(dotGit: string): string | null {
  try {
    let gitDir = dotGit;
    if (fs.statSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
      if (!m) return null;
      gitDir = path.resolve(path.dirname(dotGit), m[1].trim());
    }
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
    if (!ref) return head;
    const loose = path.join(gitDir, ref);
    if (fs.existsSync(loose)) return `${ref}@${fs.readFileSync(loose, 'utf8').trim()}`;
    const packed = fs.readFileSync(path.join(gitDir, 'packed-refs'), 'utf8');
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
    return line ? `${ref}@${line.split(' ')[0]}` : `${ref}@unborn`;
  } catch {
    return null;
  }
}
