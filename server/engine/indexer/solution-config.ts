import path from 'node:path';

/** A tsconfig.json as written (comments allowed), or null when it cannot be read. */
export type RawConfig = { files?: unknown; include?: unknown; exclude?: unknown; references?: unknown } | null;

/**
 * The config a folder's files belong to when the nearest tsconfig.json is a "solution" (`"files": []` and
 * `references`, as `npm create vite` and `npm create vue` write it): the first referenced config whose
 * `files`/`include` reach the folder and whose `exclude` does not, as the editor's TypeScript picks the project of
 * an open file. tsconfig.app.json's `paths` (`@/*` → `src/*`) then resolve the app's imports. Null for any other config,
 * or when no reference reaches the folder. `read` reads a config inside the repository only.
 */
export function solutionMember(configFile: string, dir: string, read: (file: string) => RawConfig, isDir: (p: string) => boolean): string | null {
  const solution = read(configFile);
  if (!solution || !Array.isArray(solution.files) || solution.files.length > 0 || solution.include !== undefined) return null;
  if (!Array.isArray(solution.references)) return null;
  for (const ref of solution.references as { path?: unknown }[]) {
    if (typeof ref?.path !== 'string') continue;
    let file = path.resolve(path.dirname(configFile), ref.path);
    if (isDir(file)) file = path.join(file, 'tsconfig.json');
    const member = read(file);
    if (member && reaches(member, path.relative(path.dirname(file), dir).split(path.sep).join('/'))) return file;
  }
  return null;
}

/** Whether a config's `files`/`include` name files in folder `rel` (relative to the config; '' for its own) and `exclude` leaves them. */
function reaches(config: NonNullable<RawConfig>, rel: string): boolean {
  if (rel.startsWith('..')) return false;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const files = strings(config.files);
  // The compiler's default when neither is given: every file under the config's folder.
  const include = config.include === undefined && config.files === undefined ? ['**/*'] : strings(config.include);
  const folder = `${rel}/`.replace(/^\//, '');
  const named = files.some((f) => folderOf(f) === folder) || include.some((p) => folderPattern(p).test(folder));
  return named && !strings(config.exclude).some((p) => excludes(p, folder));
}

/** `./src/main.ts` → `src/`; `vite.config.ts` → ''. */
const folderOf = (file: string) => {
  const clean = file.replace(/^\.\//, '');
  return clean.includes('/') ? clean.slice(0, clean.lastIndexOf('/') + 1) : '';
};

/**
 * The folders whose files an include pattern names, as a regular expression over `a/b/` ('' for the config's own):
 * `src/**\/*.ts` → src/ and every folder below; `vite.config.*` → ''; a pattern without wildcards and without an
 * extension (`src`) is a folder, and names everything below it.
 */
function folderPattern(pattern: string): RegExp {
  let clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  const last = clean.slice(clean.lastIndexOf('/') + 1);
  if (!/[*?]/.test(clean) && !last.includes('.')) clean = `${clean}/**/*`;
  return globFolders(folderOf(clean));
}

/** An exclude pattern: a folder (`dist`, `node_modules`) excludes everything below it; a glob, the folders it names. */
function excludes(pattern: string, folder: string): boolean {
  const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  if (!/[*?]/.test(clean)) return folder === `${clean}/` || folder.startsWith(`${clean}/`);
  return globFolders(folderOf(clean)).test(folder);
}

/** `src/**\/` → /^src\/(?:[^/]+\/)*$/; `*` and `?` stay within one folder name. */
function globFolders(folders: string): RegExp {
  const parts = folders.split('/').filter(Boolean).map((part) => (part === '**'
    ? '(?:[^/]+/)*'
    : `${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}/`));
  return new RegExp(`^${parts.join('')}$`);
}
