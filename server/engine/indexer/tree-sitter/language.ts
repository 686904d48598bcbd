import type { Node, Parser, QueryMatch, Tree } from '@vscode/tree-sitter-wasm';
import type { ImportKind, SymbolKind } from '../../types';
import type { Resolution } from '../resolver';
import type { RepoFiles } from './repo-files';
import type { SourceText } from './source';

/** A definition found by a language's query, before the shared code decides its parent and final kind. */
export interface Definition {
  node: Node;
  kind: SymbolKind;
  name: string;
  /** The enclosing definition (class, struct, trait, impl, module) when the definition is a member. */
  container: Definition | null;
  /** A parent named by the syntax itself: a Go receiver, a C++ `Type::` qualifier, a Rust `impl` type. */
  explicitParent: string | null;
}

export interface RawImport {
  specifier: string;
  kind: ImportKind;
  names: string[];
  typeOnly: boolean;
  line: number;
  /** Python's `from X import …` (the names are X's attributes or submodules), as opposed to `import X`. */
  from?: boolean;
  /** Python: written in a function or class body, so the names it binds are local, not the module's. */
  nested?: boolean;
}

/** Parses another file of the same language and reads something from its syntax tree (freed afterwards). */
export type ParseText = <T>(text: string, read: (root: Node) => T) => T | null;

/** What one language contributes: its grammar, its queries, and the few rules that differ between languages. */
export interface LanguageSpec {
  /** Stem of the grammar file: `tree-sitter-<grammar>.wasm`. */
  grammar: string;
  /** Captures the language's comment nodes as `@comment`. */
  comments: string;
  /**
   * Captures definitions as `@def.<kind>` (a SymbolKind, or `scope` for a container that is not itself a
   * symbol such as a Rust `impl`), with `@name` and optionally `@parent`. The first pattern that captures a
   * node wins. Definitions inside functions are locals and are dropped.
   */
  definitions: string;
  /** Captures import statements; each match goes to `importsOf`. */
  imports: string;
  importsOf(match: QueryMatch, source: SourceText): RawImport[];
  /** Names (with parent and kind) when a pattern has no `@name` capture, e.g. C++ declarators (`int x, y;`). */
  nameOf?(node: Node, kind: SymbolKind): { name: string; parent?: string; kind?: SymbolKind }[] | null;
  /** Adjusts a captured kind (an UPPER_CASE Python variable is a constant); null drops the definition. */
  refineKind?(node: Node, kind: SymbolKind, name: string): SymbolKind | null;
  /** The node whose lines the symbol covers, when wider than the definition (decorators, attributes, `type (…)`). */
  rangeOf?(node: Node): { first: Node; last: Node };
  /** The node the signature is cut from, when not the definition itself. */
  signatureNodeOf?(node: Node): Node;
  /** A doc string held inside the definition (Python docstrings); comments above it are the fallback. */
  innerDoc?(node: Node): string | null;
  isExported(def: Definition, source: SourceText): boolean;
  /** Kinds whose member functions are methods; default: class, struct, interface, trait, enum, scope. */
  memberContainers?: ReadonlySet<string>;
  description(root: Node, source: SourceText): string | null;
  /** The unit the file declares it belongs to: Go's package clause. */
  unitOf?(root: Node): string | null;
  /** True when the file holds tests of its own code (Rust's `#[test]` functions beside the code they test). */
  holdsTests?(root: Node): boolean;
  /** True for languages with one type per file by convention: the first type's doc describes the file. */
  describeByFirstType?: boolean;
  /** Splits one import into several when the file system decides it (Python `from pkg import submodule`). */
  expand?(fromPath: string, imp: RawImport, files: RepoFiles, parse?: ParseText): RawImport[];
  /**
   * Dependencies no import statement names, read from the code itself: a Java type of the same package or
   * of an on-demand import, a C# type of the file's namespace or of a `using`. Each is returned with a
   * specifier that `resolve` maps to one file (kind `reference`), so it is resolved again like any import.
   */
  references?(root: Node, imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[];
  /**
   * Code held inside the tree as unparsed tokens that the compiler expands as items of this language (a
   * Rust `cfg_fs! { pub mod fs; }`): each fragment is parsed like a file and its imports count, at its rows.
   */
  embedded?(root: Node): { text: string; row: number }[];
  /**
   * Parses a file, when the language opens up part of it that the grammar keeps as unparsed tokens (Rust's item
   * macros, `rust-macros.ts`): the tree of a text of the same length and lines as the file's, so positions hold.
   */
  parseFile?(text: string, parser: Parser): Tree | null;
  /** Resolves an import to a repository file, or names the package; never leaves the repository. */
  resolve(fromPath: string, specifier: string, kind: ImportKind, files: RepoFiles): Resolution;
}

export const unresolved = (packageName: string | null): Resolution => ({ targetPath: null, packageName });
export const resolvedTo = (targetPath: string): Resolution => ({ targetPath, packageName: null });
