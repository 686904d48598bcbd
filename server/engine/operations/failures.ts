import type { LoupeError } from '../errors';
import { storageError } from '../store/storage-errors';

/**
 * A failure of the machine rather than of the request (a full disk, a read-only data dir, a
 * failing device) as the coded error that says what happened and what to do; null for anything
 * else. Transports use it for errors that reach them uncoded.
 */
export function machineFailure(error: unknown): LoupeError | null {
  return storageError(error);
}
