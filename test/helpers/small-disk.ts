import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tempDir } from './engine';

/**
 * A real small filesystem (tmpfs) when the tests run as root with mount rights, as in CI
 * containers; null otherwise, and the caller falls back to SQLite's own page limit.
 */
export interface SmallDisk {
  dir: string;
  resize(megabytes: number): void;
  setReadOnly(readOnly: boolean): void;
  unmount(): void;
}

export function mountSmallDisk(megabytes: number): SmallDisk | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || process.env.LOUPE_TEST_NO_MOUNT) return null;
  const dir = tempDir('loupe-small-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    try { execFileSync('umount', ['-l', dir], { stdio: 'ignore' }); } catch { /* already gone */ }
  };
  process.on('exit', unmount);
  return {
    dir,
    resize: (mb) => execFileSync('mount', ['-o', `remount,size=${mb}m`, dir]),
    setReadOnly: (ro) => execFileSync('mount', ['-o', `remount,${ro ? 'ro' : 'rw'}`, dir]),
    unmount,
  };
}

/** Whether chmod can make a folder unreadable here (not for root, who reads everything). */
export const permissionsApply = () => process.getuid?.() !== 0 && process.platform !== 'win32';

export const isDir = (p: string) => fs.existsSync(p) && fs.statSync(p).isDirectory();
