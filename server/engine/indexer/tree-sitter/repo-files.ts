import fs from 'node:fs';
import path from 'node:path';

/**
 * Cached, read-only questions about files of one repository, by repository-relative POSIX path. Every
 * path is normalised first and anything that would leave the root (`..`, absolute paths, symlinks that
 * point outside) is treated as missing, so import resolution can never reach outside the repository.
 */
export class RepoFiles {
  private readonly root: string;
  private realRoot: string;
  private readonly stats = new Map<string, 'file' | 'dir' | null>();
  private readonly listings = new Map<string, string[]>();
  private readonly texts = new Map<string, string | null>();
  private readonly found = new Map<string, string[]>();

  constructor(root: string) {
    this.root = path.resolve(root);
    this.realRoot = safeRealpath(this.root) ?? this.root;
  }

  private readonly memos = new Map<string, unknown>();

  /** The repository's folder (absolute). */
  get absoluteRoot(): string {
    return this.root;
  }

  /** Forget cached answers (files were added or removed). */
  reset(): void {
    this.memos.clear();
    this.stats.clear();
    this.listings.clear();
    this.texts.clear();
    this.found.clear();
    this.realRoot = safeRealpath(this.root) ?? this.root;
  }

  isFile(rel: string | null): rel is string {
    return rel !== null && this.kind(rel) === 'file';
  }

  isDir(rel: string | null): rel is string {
    return rel !== null && this.kind(rel) === 'dir';
  }

  /** The first candidate that is a file, or null. */
  firstFile(candidates: (string | null)[]): string | null {
    for (const c of candidates) if (this.isFile(c)) return c;
    return null;
  }

  /** Sorted names of the files (not folders) directly in a folder. */
  list(relDir: string): string[] {
    let names = this.listings.get(relDir);
    if (!names) {
      names = [];
      if (this.isDir(relDir)) {
        try {
          names = fs.readdirSync(path.join(this.root, relDir)).filter((n) => this.isFile(joinRel(relDir, n))).sort();
        } catch { /* unreadable folder: no files */ }
      }
      this.listings.set(relDir, names);
    }
    return names;
  }

  /** The names in a folder, files and folders alike, unsorted and unchecked (confirm with isFile/isDir); [] when unreadable. */
  names(relDir: string): string[] {
    return this.memo(`names:${relDir}`, () => {
      if (relDir !== '' && joinRel(relDir) !== relDir) return [];
      try { return fs.readdirSync(path.join(this.root, relDir)); } catch { return []; }
    });
  }

  /** A value computed from the repository's files (a project's declarations), kept until reset(). */
  memo<T>(key: string, compute: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, compute());
    return this.memos.get(key) as T;
  }

  /**
   * Files with the extension anywhere below a folder (sorted, repository-relative), not entering folders
   * named in skip nor folders for which stopAt is true (a nested project).
   */
  filesBelow(relDir: string, extension: string, skip: ReadonlySet<string>, stopAt: (dir: string) => boolean = () => false): string[] {
    const out: string[] = [];
    const visit = (dir: string) => {
      let entries: fs.Dirent[];
      try { entries = fs.readdirSync(path.join(this.root, dir), { withFileTypes: true }); } catch { return; }
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const rel = joinRel(dir, e.name);
        if (rel === null) continue;
        if (e.isDirectory() && !skip.has(e.name) && !e.name.startsWith('.') && this.isDir(rel) && !stopAt(rel)) visit(rel);
        else if (e.name.endsWith(extension) && this.isFile(rel)) out.push(rel);
      }
    };
    if (this.isDir(relDir) || relDir === '') visit(relDir);
    return out;
  }

  /**
   * Every file or folder with one of `names` in the repository, in path order, not looking into folders `skipDir`
   * refuses (nor into symbolic links to folders, which would visit a folder twice). Cached by `names`.
   */
  findAll(names: readonly string[], skipDir: (dirName: string) => boolean): string[] {
    const key = names.join('\0');
    let paths = this.found.get(key);
    if (!paths) {
      paths = [];
      const visit = (relDir: string) => {
        let entries: fs.Dirent[];
        try { entries = fs.readdirSync(path.join(this.root, relDir), { withFileTypes: true }); } catch { return; }
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const e of entries) {
          const rel = joinRel(relDir, e.name);
          if (rel === null) continue;
          if (e.isDirectory()) {
            if (skipDir(e.name)) continue;
            if (names.includes(e.name)) paths!.push(rel);
            visit(rel);
          } else if (names.includes(e.name) && this.isFile(rel)) paths!.push(rel);
        }
      };
      visit('');
      this.found.set(key, paths);
    }
    return paths;
  }

  /** A small text file (go.mod, composer.json), or null. */
  read(rel: string): string | null {
    let text = this.texts.get(rel);
    if (text === undefined) {
      try { text = this.isFile(rel) ? fs.readFileSync(path.join(this.root, rel), 'utf8') : null; } catch { text = null; }
      this.texts.set(rel, text);
    }
    return text;
  }

  private kind(rel: string): 'file' | 'dir' | null {
    let kind = this.stats.get(rel);
    if (kind === undefined) {
      kind = null;
      try {
        const abs = path.join(this.root, rel);
        const stat = fs.statSync(abs);
        const real = safeRealpath(abs);
        const inside = real !== null && (real === this.realRoot || real.startsWith(this.realRoot + path.sep));
        if (inside) kind = stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : null;
      } catch { /* missing */ }
      this.stats.set(rel, kind);
    }
    return kind;
  }
}

/** Joins POSIX path parts inside the repository; null when the result would leave it. '' is the root. */
export function joinRel(...parts: string[]): string | null {
  const joined = path.posix.normalize(parts.filter((p) => p !== '').join('/') || '.');
  if (joined === '.' ) return '';
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined.replace(/\/$/, '');
}

/** The folder of a repository-relative file path ('' at the root). */
export const dirOf = (rel: string): string => {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
};

/** A folder and each folder above it, up to and including the root (''). */
export function ancestors(relDir: string): string[] {
  const out = [relDir];
  for (let d = relDir; d !== ''; ) { d = dirOf(d); out.push(d); }
  return out;
}

function safeRealpath(p: string): string | null {
  try { return fs.realpathSync.native(p); } catch { return null; }
}

/**
 * A package (Go) or namespace (C#) is a folder, while an import edge points at one file: the one named
 * like the folder, else the first other source file in name order.
 */
export function packageFile(dir: string, extension: string, files: RepoFiles, exclude = /_test\.go$/): string | null {
  const names = files.list(dir).filter((n) => n.endsWith(extension) && !exclude.test(n));
  const base = dir.slice(dir.lastIndexOf('/') + 1);
  const chosen = names.find((n) => n === `${base}${extension}`) ?? names[0];
  return chosen ? joinRel(dir, chosen) : null;
}
