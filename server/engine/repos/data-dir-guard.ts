import fs from 'node:fs';
import path from 'node:path';
import { LoupeError } from '../errors';
import { isInside } from '../indexer/walk';

/**
 * The data directory holds the owner's key (`owner-key`), the accounts database and mail with
 * sign-up codes (`outbox/`). No folder that is it, lies inside it or contains it may become a
 * repository: whoever may read a repository would read those. Paths are compared as real paths,
 * so a symbolic link or a `..` does not get around it.
 */
export type DataDirRelation = 'is' | 'inside' | 'contains';

/**
 * The real path of `target`, resolved through its deepest existing ancestor: a path that does not
 * exist (yet) still resolves the links above it, so a check on it tells nothing about whether it exists.
 */
export function realPathOf(target: string): string {
  const resolved = path.resolve(target);
  let existing = resolved;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return resolved;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** How a folder stands to the data dir (both real paths), or null when they are apart. */
export function relationToDataDir(realFolder: string, realDataDir: string): DataDirRelation | null {
  if (realFolder === realDataDir) return 'is';
  if (isInside(realDataDir, realFolder)) return 'inside';
  if (isInside(realFolder, realDataDir)) return 'contains';
  return null;
}

const WHY: Record<DataDirRelation, string> = {
  is: 'is',
  inside: 'lies inside',
  contains: 'contains',
};

/**
 * Throws 403 PATH_NOT_ALLOWED when `folder` is, lies inside or contains the data dir. The data dir's
 * own path is named only for the machine's owner (the command line, the editor), not API callers.
 */
export function refuseDataDir(folder: string, realDataDir: string, options: { field?: string; forOwner?: boolean } = {}): void {
  const relation = relationToDataDir(realPathOf(folder), realDataDir);
  if (!relation) return;
  const field = options.field ?? 'url';
  const where = options.forOwner ? ` (${realDataDir})` : '';
  const advice = options.forOwner ? 'choose another folder, or start Loupe with a --data-dir outside it' : 'choose another folder';
  throw new LoupeError('PATH_NOT_ALLOWED',
    `${field}: ${folder} ${WHY[relation]} Loupe's data directory${where}, which holds keys and accounts; it cannot be indexed: ${advice}`, { field });
}
