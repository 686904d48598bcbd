import { LoupeError } from '../errors';

/**
 * SQLite reports a full disk, a read-only data dir or a failing device as error codes that mean
 * nothing to a user ("database or disk is full"). This turns them into coded errors that say what
 * happened and what to do; anything else is returned unchanged. It lives in the store because only
 * the store knows SQLite's codes.
 */
export function storageError(error: unknown, file?: string): LoupeError | null {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) {
    const errno = (error as NodeJS.ErrnoException)?.code;
    if (errno === 'ENOSPC') return full(file);
    if (errno === 'EROFS' || errno === 'EACCES' || errno === 'EPERM') return readOnly(file);
    return null;
  }
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_WRITE' && /full/i.test(String((error as Error).message))) return full(file);
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') return readOnly(file);
  if (code.startsWith('SQLITE_IOERR')) {
    return new LoupeError('STORAGE_UNAVAILABLE', `the index could not be written (${code}); check the disk that holds ${where(file)}. Nothing was half-written.`);
  }
  return null;
}

const where = (file?: string) => file ?? 'the data dir';

const full = (file?: string) =>
  new LoupeError('STORAGE_FULL', `the disk that holds ${where(file)} is full; free some space and retry. Nothing was half-written.`);

const readOnly = (file?: string) =>
  new LoupeError('STORAGE_UNAVAILABLE', `${where(file)} cannot be written (read-only or no permission); make the data dir writable or pass --data-dir. Nothing was half-written.`);
