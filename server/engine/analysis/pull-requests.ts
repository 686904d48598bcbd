import { request } from 'undici';
import { LoupeError } from '../errors';
import { git } from '../repos/git';
import type { RepoRecord } from '../types';

export interface PullRequestConfig {
  /** The caller's GitHub token (the owner's: GITHUB_TOKEN; anyone else's: the one they linked), per call. */
  githubToken?: string;
  /** https://api.github.com unless configured (tests point it at a local server). */
  githubApiUrl?: string;
}

export interface ResolvedPullRequest {
  number: number;
  source: 'github-api' | 'git-merge-commit' | 'git-pull-ref';
  /** Paths relative to the repository root, as changed by the pull request. */
  files: string[];
  detail: string;
  /** Revisions before and after the change, when local history knows them. */
  base?: string;
  head?: string;
}

const GITHUB_REMOTE = /github\.com[/:]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/;

/**
 * Turns a pull request number into the files it changes: through the GitHub API when the
 * repository has a GitHub remote, else (or when the API cannot answer) from local history: a
 * fetched `refs/pull/N/head`, or the merge or squash commit whose message names `#N`. When nothing
 * works the 400 lists why each way failed.
 */
export async function resolvePullRequest(repo: RepoRecord, number: number, config: PullRequestConfig): Promise<ResolvedPullRequest> {
  const reasons: string[] = [];
  const slug = await githubSlug(repo);
  if (slug) {
    try {
      return await fromApi(slug, number, config);
    } catch (error) {
      reasons.push(`GitHub API: ${(error as Error).message}`);
    }
  } else {
    reasons.push('GitHub API: the repository has no GitHub remote');
  }
  try {
    return await fromLocalGit(repo.rootPath, number);
  } catch (error) {
    reasons.push(`local git: ${(error as Error).message}`);
  }
  throw new LoupeError('BAD_REQUEST', `pr: pull request #${number} could not be resolved (${reasons.join('; ')})`, { field: 'pr' });
}

async function githubSlug(repo: RepoRecord): Promise<{ owner: string; name: string } | null> {
  let url = repo.url;
  if (repo.source !== 'git') {
    try {
      url = (await git(['config', '--get', 'remote.origin.url'], { cwd: repo.rootPath, timeoutMs: 5_000 })).stdout.trim();
    } catch {
      return null;
    }
  }
  const m = GITHUB_REMOTE.exec(url);
  return m ? { owner: m[1], name: m[2] } : null;
}

async function fromApi(slug: { owner: string; name: string }, number: number, config: PullRequestConfig): Promise<ResolvedPullRequest> {
  const base = (config.githubApiUrl ?? 'https://api.github.com').replace(/\/$/, '');
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json', 'user-agent': 'loupe', 'x-github-api-version': '2022-11-28',
  };
  if (config.githubToken) headers.authorization = `Bearer ${config.githubToken}`;
  const files: string[] = [];
  // GitHub lists at most 3000 files, 100 per page.
  for (let page = 1; page <= 30; page++) {
    const url = `${base}/repos/${encodeURIComponent(slug.owner)}/${encodeURIComponent(slug.name)}/pulls/${number}/files?per_page=100&page=${page}`;
    const res = await request(url, { headers, headersTimeout: 5_000, bodyTimeout: 10_000 });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      const message = safeMessage(text);
      throw new LoupeError('SERVICE_UNAVAILABLE', `${res.statusCode}${message ? ` ${message}` : ''} for ${slug.owner}/${slug.name}#${number}`);
    }
    const batch = (await res.body.json()) as { filename?: string; previous_filename?: string; status?: string }[];
    if (!Array.isArray(batch)) throw new LoupeError('SERVICE_UNAVAILABLE', 'unexpected response shape');
    for (const f of batch) {
      if (typeof f.filename === 'string') files.push(f.filename);
      if (f.status === 'renamed' && typeof f.previous_filename === 'string') files.push(f.previous_filename);
    }
    if (batch.length < 100) break;
  }
  return { number, source: 'github-api', files: [...new Set(files)], detail: `${slug.owner}/${slug.name}#${number} via the GitHub API` };
}

const safeMessage = (text: string): string => {
  try { return String((JSON.parse(text) as { message?: string }).message ?? '').slice(0, 200); } catch { return ''; }
};

async function fromLocalGit(root: string, number: number): Promise<ResolvedPullRequest> {
  const run = async (args: string[]) => (await git(args, { cwd: root, timeoutMs: 30_000 })).stdout;
  try {
    await run(['rev-parse', '--is-inside-work-tree']);
  } catch {
    throw new LoupeError('BAD_REQUEST', 'the folder is not a git repository');
  }
  for (const ref of [`refs/pull/${number}/head`, `refs/remotes/origin/pr/${number}`, `refs/remotes/origin/pull/${number}/head`]) {
    let head: string;
    try { head = (await run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim(); } catch { continue; }
    const base = (await run(['merge-base', 'HEAD', head])).trim();
    if (base === head) {
      // Merged already: the head is in HEAD's history, so against the merge-base it changes nothing. The
      // merge commit that brought it in (the oldest merge on HEAD's first-parent line descending from it) does.
      const merge = (await run(['rev-list', '--first-parent', '--merges', '--ancestry-path', '--reverse', `${head}..HEAD`])).split('\n')[0]?.trim();
      if (!merge) continue;
      const first = (await run(['rev-parse', `${merge}^1`])).trim();
      const files = await changed(run, first, merge);
      return { number, source: 'git-merge-commit', files, base: first, head: merge, detail: `${ref} (${head.slice(0, 12)}) is merged: merge commit ${merge.slice(0, 12)}` };
    }
    const files = await changed(run, base, head);
    return { number, source: 'git-pull-ref', files, base, head, detail: `${ref} (${head.slice(0, 12)}) against merge-base ${base.slice(0, 12)}` };
  }
  // Merge commits ("Merge pull request #N from …") and squash merges ("Title (#N)").
  const log = await run(['log', '--all', '--format=%H%x09%P%x09%s', '-n', '20000']);
  const mention = new RegExp(`(^|[^\\w&])#${number}(?!\\d)`);
  for (const line of log.split('\n')) {
    const [hash, parents, subject] = line.split('\t');
    if (!hash || !subject || !mention.test(subject)) continue;
    const first = parents.split(' ')[0];
    if (!first) continue;
    const files = await changed(run, first, hash);
    return { number, source: 'git-merge-commit', files, base: first, head: hash, detail: `commit ${hash.slice(0, 12)} "${subject.slice(0, 120)}"` };
  }
  throw new LoupeError('BAD_REQUEST', `no refs/pull/${number}/head and no commit message mentioning #${number}`);
}

async function changed(run: (args: string[]) => Promise<string>, from: string, to: string): Promise<string[]> {
  // --relative: paths relative to the indexed folder when it is below the git top level.
  const out = await run(['diff', '--name-only', '--no-renames', '--relative', from, to]);
  return out.split('\n').map((l) => l.trim()).filter(Boolean);
}
