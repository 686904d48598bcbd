/**
 * The radius of a change: which files the working tree's changes (or the current branch's, against
 * the branch it came from) touch, and the union of their blast radius from the import graph, with
 * the tests to run first. Git lists the files; `Analysis.radius` (the engine's /v2/radius) does the rest.
 */
import type { Analysis } from '../analysis/analysis';
import { isTestPath } from '../analysis/entry-points';
import { git } from '../repos/git';
import type { RepoRecord } from '../types';
import { LoupeError } from '../errors';
import { librariesOf } from '../analysis/testing-libraries';

export type ChangeBase = 'workingTree' | 'branch';
export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked';

export interface ChangedPath { path: string; status: ChangeStatus }
export interface ChangeImpactEntry { path: string; depth: number; isEntryPoint: boolean; isTest: boolean }

export interface ChangeRadius {
  base: string | null;
  changed: (ChangedPath & { dependents: number })[];
  dependents: ChangeImpactEntry[];
  tests: ChangeImpactEntry[];
  entryPoints: number;
  note: string | null;
}

const DEPENDENTS_LIMIT = 10_000;
/** Branches a feature branch is usually cut from, in the order they are tried. */
const BASE_CANDIDATES = ['origin/HEAD', 'origin/main', 'origin/master', 'main', 'master', 'origin/develop', 'develop'];

const STATUS: Record<string, ChangeStatus> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'added', T: 'modified', U: 'modified' };

/** `git diff --name-status -z` output (paths relative to `root`, thanks to --relative). */
export function parseNameStatus(out: string): ChangedPath[] {
  const parts = out.split('\0');
  const files: ChangedPath[] = [];
  for (let i = 0; i < parts.length - 1;) {
    const code = parts[i++];
    if (!code) continue;
    const status = STATUS[code[0]] ?? 'modified';
    if (code[0] === 'R' || code[0] === 'C') {
      const from = parts[i++];
      const to = parts[i++];
      if (code[0] === 'R') files.push({ path: from, status: 'deleted' });
      files.push({ path: to, status: code[0] === 'R' ? 'renamed' : 'added' });
    } else {
      files.push({ path: parts[i++], status });
    }
  }
  return files;
}

/** The changed files under `root`, and what they are compared with. Throws with git's reason outside a work tree. */
export async function changedPaths(root: string, against: ChangeBase): Promise<{ base: string; files: ChangedPath[] }> {
  const run = async (args: string[]) => (await git(args, { cwd: root, timeoutMs: 30_000 })).stdout;
  await run(['rev-parse', '--is-inside-work-tree']);
  const hasHead = await run(['rev-parse', '--verify', '--quiet', 'HEAD']).then(() => true, () => false);
  let base = 'HEAD';
  let baseLabel = 'HEAD';
  if (against === 'branch') {
    let found: { ref: string; commit: string } | null = null;
    for (const ref of BASE_CANDIDATES) {
      const commit = await run(['merge-base', 'HEAD', ref]).then((o) => o.trim(), () => '');
      if (commit) { found = { ref, commit }; break; }
    }
    if (!found) throw new LoupeError('BAD_REQUEST', `no base branch to compare with (tried ${BASE_CANDIDATES.join(', ')})`);
    base = found.commit;
    baseLabel = `${found.ref.replace(/^origin\/HEAD$/, 'origin default branch')} @ ${found.commit.slice(0, 7)}`;
  }
  const files = new Map<string, ChangedPath>();
  if (hasHead) {
    // Committed and uncommitted changes against the base, staged or not.
    for (const f of parseNameStatus(await run(['diff', '--relative', '--name-status', '-z', '-M', base, '--', '.']))) files.set(f.path, f);
  } else {
    for (const p of (await run(['ls-files', '-z', '--', '.'])).split('\0').filter(Boolean)) files.set(p, { path: p, status: 'added' });
  }
  for (const p of (await run(['ls-files', '--others', '--exclude-standard', '-z', '--', '.'])).split('\0').filter(Boolean)) {
    files.set(p, { path: p, status: 'untracked' });
  }
  return { base: hasHead ? baseLabel : 'no commit yet', files: [...files.values()].sort((a, b) => a.path.localeCompare(b.path)) };
}

/** The union radius of `changed`: each dependent at its nearest depth, the changed files left out. */
export async function changeRadius(analysis: Analysis, repo: RepoRecord, against: ChangeBase): Promise<ChangeRadius> {
  let listed: { base: string; files: ChangedPath[] };
  try {
    listed = await changedPaths(repo.rootPath, against);
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    return { base: null, changed: [], dependents: [], tests: [], entryPoints: 0, note: `${repo.name}: ${reason}` };
  }
  const graph = await analysis.ctx.graph(repo.id);
  const indexed = listed.files.filter((f) => f.status !== 'deleted' && graph.indexOfPath.has(f.path)).map((f) => f.path);
  const changedSet = new Set(listed.files.map((f) => f.path));
  const perFile = new Map<string, number>();
  const nearest = new Map<string, number>();
  const entryFiles = new Set<string>();
  if (indexed.length) {
    const result = await analysis.radius(repo, { files: indexed, dependencies: [], include: ['dependents', 'entry_points'], limit: DEPENDENTS_LIMIT });
    for (const target of result.targets) {
      perFile.set(target.target, target.dependents_total);
      for (const d of target.dependents ?? []) {
        if (changedSet.has(d.file_path)) continue;
        nearest.set(d.file_path, Math.min(d.depth, nearest.get(d.file_path) ?? Infinity));
      }
      for (const e of target.entry_points ?? []) if (e.kind !== 'test' && !changedSet.has(e.file_path)) entryFiles.add(e.file_path);
    }
  }
  const dependents: ChangeImpactEntry[] = [...nearest].map(([path, depth]) => ({ path, depth, isEntryPoint: entryFiles.has(path), isTest: isTestPath(path, librariesOf(graph)) }))
    .sort((a, b) => a.depth - b.depth || a.path.localeCompare(b.path));
  const changedTests = listed.files.filter((f) => f.status !== 'deleted' && isTestPath(f.path, librariesOf(graph)))
    .map((f) => ({ path: f.path, depth: 0, isEntryPoint: false, isTest: true }));
  return {
    base: listed.base,
    changed: listed.files.map((f) => ({ ...f, dependents: perFile.get(f.path) ?? 0 })),
    dependents,
    tests: [...changedTests, ...dependents.filter((d) => d.isTest)],
    entryPoints: dependents.filter((d) => d.isEntryPoint).length,
    note: null,
  };
}
