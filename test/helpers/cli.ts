import { spawn, type ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

export interface RunningCli {
  child: ChildProcess;
  url: string;
  key: string;
  stderr: () => string;
  /** The exit code, or the signal's name when a signal ended it; after its output was read to the end. */
  exited: Promise<number | NodeJS.Signals>;
}

/** Starts the real built CLI (dist/cli.js) like a user would, and waits for its address and key. */
export async function startCli(args: string[], env: Record<string, string> = {}): Promise<RunningCli> {
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  // 'close', not 'exit': the output is read to the end first, so a failure's message has all of it.
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal!)));
  const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not start in time:\n${out}\n${err}`));
    }, 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const url = /^Loupe API: (\S+)$/m.exec(out)?.[1];
      const key = /^API key: (\S+)$/m.exec(out)?.[1];
      if (url && key) { clearTimeout(timer); resolve({ url, key }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`CLI exited with ${code}:\n${out}\n${err}`)); });
  });
  return { child, ...ready, stderr: () => err, exited };
}

/** Polls until check() returns a truthy value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Kills a child process when the test ends, however it ends: passed, failed, or timed out (a timed-out
 * test's own `finally` may never run, and a live child keeps the test file from exiting).
 */
export function killAtEnd(t: TestContext, child: ChildProcess): void {
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
}
