import path from 'node:path';
import type { ParsedFile } from '../types';
import { declarationsOf } from './tree-sitter/csharp';
import { goDeclarations } from './tree-sitter/go-names';

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
 * The names by which other files may refer to this one, as whole words of their code (lower case):
 * Java (a/b/C.java), PHP (PSR-4) and Ruby (Zeitwerk: basic_item_rep_view.rb is BasicItemRepView) find a
 * type's file by its path, so its stem; C# by the types the file declares, Go by its package-level names
 * and methods, so those (text needed).
 */
export function providedNames(language: string | null, relPath: string, text: string | null): string[] {
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
    if (!language || !NAME_LOOKUP_LANGUAGES.has(language)) return;
    const changed = [...before.filter((n) => !after.includes(n)), ...after.filter((n) => !before.includes(n))];
    if (!changed.length) return;
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
