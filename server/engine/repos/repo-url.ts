import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalid } from '../errors';

export type RepoLocation =
  | { kind: 'github'; url: string; cloneUrl: string; name: string }
  | { kind: 'local'; url: string; path: string; name: string };

const GITHUB = /^https:\/\/github\.com\/([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100}?)(?:\.git)?\/?$/;

/**
 * Normalises what a caller may pass as a repository: an https GitHub URL, a file:// URL, or an
 * absolute local path. Local repositories are identified by their absolute path.
 */
export function parseRepoLocation(input: string, field = 'url'): RepoLocation {
  const value = input.trim();
  const gh = GITHUB.exec(value);
  if (gh) {
    const name = `${gh[1]}/${gh[2]}`;
    const url = `https://github.com/${name}`;
    return { kind: 'github', url, cloneUrl: `${url}.git`, name };
  }
  let local: string | null = null;
  if (value.startsWith('file://')) {
    try {
      local = fileURLToPath(value);
    } catch {
      throw invalid(field, 'is not a valid file:// URL');
    }
  } else if (path.isAbsolute(value)) {
    local = value;
  }
  if (local === null) {
    throw invalid(field, 'must be an https://github.com/OWNER/REPO URL, a file:// URL or an absolute local path');
  }
  const resolved = path.resolve(local);
  const trimmed = resolved.length > 1 ? resolved.replace(/\/+$/, '') : resolved;
  return { kind: 'local', url: trimmed, path: trimmed, name: path.basename(trimmed) || trimmed };
}
