import { execFile } from 'node:child_process';
import { LoupeError } from '../errors';

export interface GitResult { stdout: string; stderr: string }

/**
 * Runs the system git with no prompts. A GitHub token, when given, travels as an HTTP header in the
 * environment: it never appears in arguments, remotes, logs or errors.
 */
export function git(args: string[], options: { cwd?: string; token?: string; timeoutMs?: number } = {}): Promise<GitResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'echo', LC_ALL: 'C' };
  if (options.token) {
    const basic = Buffer.from(`x-access-token:${options.token}`).toString('base64');
    const index = Number(env.GIT_CONFIG_COUNT ?? 0);
    env.GIT_CONFIG_COUNT = String(index + 1);
    env[`GIT_CONFIG_KEY_${index}`] = 'http.https://github.com/.extraheader';
    env[`GIT_CONFIG_VALUE_${index}`] = `AUTHORIZATION: basic ${basic}`;
  }
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const message = scrub(stderr.trim() || error.message, options.token);
        reject(Object.assign(new LoupeError('SERVICE_UNAVAILABLE', message), { stderr: scrub(stderr, options.token) }));
      } else resolve({ stdout, stderr });
    });
  });
}

const scrub = (text: string, token?: string) => (token ? text.split(token).join('***') : text);

/** The short name of the checked-out branch and the head commit, or nulls outside a git work tree. */
export async function headOf(dir: string): Promise<{ branch: string | null; commit: string | null }> {
  try {
    const { stdout } = await git(['rev-parse', '--abbrev-ref', 'HEAD', 'HEAD'], { cwd: dir, timeoutMs: 10_000 });
    const [branch, commit] = stdout.trim().split('\n');
    return { branch: branch && branch !== 'HEAD' ? branch : null, commit: commit ?? null };
  } catch {
    return { branch: null, commit: null };
  }
}
