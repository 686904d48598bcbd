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
