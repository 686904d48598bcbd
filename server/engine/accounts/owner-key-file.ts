import fs from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR/owner-key: the owner's key in plaintext, mode 0600, so that each start can show it again
 * (as Jupyter does with its token). Only this file holds a plaintext key; the database keeps hashes.
 */
export const ownerKeyFile = (dataDir: string) => path.join(dataDir, 'owner-key');

/** Replaces the file whole (a temporary file renamed over it): a reader never sees half a key. */
export function writeOwnerKeyFile(dataDir: string, key: string): void {
  const file = ownerKeyFile(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

export function readOwnerKeyFile(dataDir: string): string | null {
  try {
    return fs.readFileSync(ownerKeyFile(dataDir), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
