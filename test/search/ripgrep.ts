import { execFileSync, spawnSync } from 'node:child_process';

/**
 * Debian's ripgrep, the reference grep_code is compared with. Installed with apt-get when missing
 * (CI machines are fresh); a test cannot silently skip the comparison.
 */
export function ensureRipgrep(): string {
  const found = () => spawnSync('rg', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!found()) {
    const apt = (args: string[]) => execFileSync('apt-get', args, { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    try {
      apt(['install', '-y', 'ripgrep']);
    } catch {
      apt(['update']);
      apt(['install', '-y', 'ripgrep']);
    }
  }
  if (!found()) throw new Error('ripgrep (rg) is required to check grep_code and could not be installed with apt-get');
  return 'rg';
}

/**
 * The lines Debian's rg prints for `args` when it walks `cwd` (as `rg … .`, hidden files included,
 * .gitignore honoured without a git repository), as `path:line:text`, each line of a multi-line match
 * on its own, in path then line order.
 */
export function ripgrepLines(cwd: string, args: string[]): string[] {
  const res = spawnSync(ensureRipgrep(), ['--json', '--hidden', '--no-require-git', '--no-config', ...args, '.'], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (res.status === 2) throw new Error(`rg failed: ${res.stderr}`);
  const out = new Map<string, { path: string; line: number }>();
  for (const l of res.stdout.split('\n')) {
    if (!l) continue;
    const e = JSON.parse(l) as { type: string; data: { path: { text: string }; lines: { text: string }; line_number: number } };
    if (e.type !== 'match') continue;
    const path = e.data.path.text.replace(/^\.\//, '');
    e.data.lines.text.replace(/\n$/, '').split('\n').forEach((text, i) => {
      const line = e.data.line_number + i;
      out.set(`${path}:${line}:${text}`, { path, line });
    });
  }
  return [...out].sort(([, a], [, b]) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line)).map(([key]) => key);
}
