import path from 'node:path';
import type { ParsedFile } from '../types';
import { declarationsOf } from './tree-sitter/csharp';
import { goDeclarations } from './tree-sitter/go-names';
import { exportedNames, nuxtComponentName, NUXT_USER_LANGUAGES } from './nuxt-auto-imports';
import { kebabCase } from '../util/text';

/**
 * Languages whose edges also come from names the code uses without importing them (a Java type of the
 * same package, a C# type of the file's namespace, a Ruby constant under Zeitwerk, a PHP class of the
 * file's namespace, a Go package-level name or method of a sibling file: `references` in their LanguageSpec).
 * Such an edge exists only while the named file does, so adding, removing or re-declaring a file changes the
 * edges of files that were not edited.
 */
export const NAME_LOOKUP_LANGUAGES: ReadonlySet<string> = new Set(['java', 'csharp', 'ruby', 'php', 'go']);

/** Languages whose provided names are read from the file's text (its declarations), not its path. */
/** Languages whose names are looked up only among the files of the same folder (a Go package's siblings). */
export const FOLDER_SCOPED: ReadonlySet<string> = new Set(['go']);

export const NAMES_FROM_TEXT: ReadonlySet<string> = new Set(['csharp', 'go']);

/**
 * Nuxt's auto-imports (nuxt-auto-imports.ts) are name lookups too: a component under `components/` provides its Nuxt
 * name, a module of `composables/` or `utils/` (a subfolder's index too) its exports, to the scripts and components of
 * the app. Decided here by the path alone (whether the folder is a Nuxt app's is asked when the names are looked up,
 * `refreshNameEdges`); the names are kept under this key, for the users' languages.
 */
export const NUXT_NAMES = 'nuxt';
const NUXT_COMPONENT = /(?:^|\/)components\/(.+\.(?:vue|tsx|jsx))$/;
const NUXT_MODULE = /(?:^|\/)(?:composables|utils|shared\/types)\/(?:[^/]+\.(?:ts|js|mts|mjs)|[^/]+\/index\.(?:ts|js|mts|mjs))$/;

function nuxtProvider(language: string | null, relPath: string): 'component' | 'exports' | null {
  if (!language || !NUXT_USER_LANGUAGES.has(language)) return null;
  if (NUXT_COMPONENT.test(relPath)) return 'component';
  return NUXT_MODULE.test(relPath) && !/\.d\.[mc]?ts$/.test(relPath) ? 'exports' : null;
}

/** Whether a file may provide names to other files' lookups (so its names are noted when it changes). */
export const providesNames = (language: string | null, relPath: string): boolean =>
  language !== null && (NAME_LOOKUP_LANGUAGES.has(language) || nuxtProvider(language, relPath) !== null);

/** Whether the names a file provides are read from its text (the caller reads it; null is passed otherwise). */
export const namesFromText = (language: string | null, relPath: string): boolean =>
  language !== null && (NAMES_FROM_TEXT.has(language) || nuxtProvider(language, relPath) === 'exports');

/**
 * The names by which other files may refer to this one, as whole words of their code (lower case):
 * Java (a/b/C.java), PHP (PSR-4) and Ruby (Zeitwerk: basic_item_rep_view.rb is BasicItemRepView) find a
 * type's file by its path, so its stem; C# by the types the file declares, Go by its package-level names
 * and methods, so those (text needed).
 */
export function providedNames(language: string | null, relPath: string, text: string | null): string[] {
  const nuxt = nuxtProvider(language, relPath);
  if (nuxt === 'component') {
    // As a template may write it: `<AppHeader>` or `<app-header>`.
    const name = nuxtComponentName(NUXT_COMPONENT.exec(relPath)![1]);
    return [...new Set([name.toLowerCase(), kebabCase(name)])];
  }
  if (nuxt === 'exports') return [...new Set(exportedNames(relPath, text ?? '').map((n) => n.toLowerCase()))];
  if (!language || !NAME_LOOKUP_LANGUAGES.has(language)) return [];
  if (language === 'csharp') return [...new Set(declarationsOf(text ?? '').map(([, type]) => type.toLowerCase()))];
  if (language === 'go') {
    const { top, methods } = goDeclarations(text ?? '');
    return [...new Set([...top, ...methods].map((n) => n.toLowerCase()))];
  }
  const stem = path.posix.basename(relPath).replace(/\.[^.]+$/, '');
  return [(language === 'ruby' ? stem.replace(/_/g, '') : stem).toLowerCase()];
}

/** A parsed file's text, as the index keeps it (its chunks, which cover the file). */
export const parsedText = (file: ParsedFile): string => file.chunks.map((c) => c.content).join('\n');

/**
 * Names whose lookup may answer differently now, by language: those a file provided before and not now,
 * or now and not before (an added, removed or re-declared file). A file that keeps its names changes no
 * other file's edges.
 */
export class ChangedNames {
  readonly byLanguage = new Map<string, Set<string>>();
  /** For a language whose names reach only the file's own folder (Go: a package is a folder), the folders. */
  readonly folders = new Map<string, Set<string>>();

  note(language: string | null, before: string[], after: string[], relPath: string): void {
    if (!language || !providesNames(language, relPath)) return;
    const changed = [...before.filter((n) => !after.includes(n)), ...after.filter((n) => !before.includes(n))];
    if (!changed.length) return;
    if (!NAME_LOOKUP_LANGUAGES.has(language)) {
      // Nuxt's: the provider's folder is kept, to ask whether it is in a Nuxt app.
      language = NUXT_NAMES;
      let folders = this.folders.get(language);
      if (!folders) this.folders.set(language, (folders = new Set()));
      folders.add(path.posix.dirname(relPath));
    }
    let set = this.byLanguage.get(language);
    if (!set) this.byLanguage.set(language, (set = new Set()));
    for (const n of changed) set.add(n);
    if (FOLDER_SCOPED.has(language)) {
      let folders = this.folders.get(language);
      if (!folders) this.folders.set(language, (folders = new Set()));
      folders.add(path.posix.dirname(relPath));
    }
  }

  get empty(): boolean {
    return this.byLanguage.size === 0;
  }
}
