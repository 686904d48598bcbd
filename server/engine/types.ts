/** Domain records the engine hands to transports. Wire shapes are converted in transport/. */

export type RepoSource = 'local' | 'git';
export type RepoState = 'queued' | 'indexing' | 'ready' | 'failed' | 'missing';

export interface RepoRecord {
  id: string;
  url: string;
  name: string;
  rootPath: string;
  source: RepoSource;
  branch: string | null;
  visibility: 'private' | 'public';
  state: RepoState;
  updating: boolean;
  active: boolean;
  error: string | null;
  filesTotal: number;
  filesDone: number;
  headCommit: string | null;
  createdAt: string;
  lastUpdated: string | null;
}

export interface FileRecord {
  id: number;
  uid: string;
  repoId: string;
  path: string;
  name: string;
  language: string | null;
  size: number;
  lines: number;
  hash: string;
  mtimeMs: number;
  description: string | null;
  indexedAt: string;
}

/** `namespace` is a C++ namespace; unlike a `module` (a Rust `mod`, a Ruby module) it is no parent of what it declares. */
export type SymbolKind =
  | 'function' | 'class' | 'method' | 'variable' | 'constant' | 'interface' | 'type' | 'enum' | 'module' | 'namespace' | 'struct' | 'trait' | 'property';

export interface ParsedSymbol {
  name: string;
  kind: SymbolKind;
  parent: string | null;
  startLine: number;
  endLine: number;
  exported: boolean;
  signature: string | null;
  doc: string | null;
}

/**
 * `reference`: a dependency read from the code, not from a statement (a Java type of the same package).
 * `test-use`: a `use` written in test code (Rust's `#[cfg(test)]` items and `#[test]` functions): its file
 * depends on the target, the file's own users do not through it.
 * `types`: a script's `/// <reference types>` (a package of types; `include` is its `/// <reference path>`).
 */
export type ImportKind = 'import' | 'export' | 'export-all' | 'require' | 'require-relative' | 'dynamic' | 'include' | 'types' | 'use' | 'test-use' | 'reference';

export interface ParsedImport {
  specifier: string;
  kind: ImportKind;
  typeOnly: boolean;
  /** Repository-relative path of the file it resolves to, when it resolves inside the repository. */
  targetPath: string | null;
  /** Package or module name when it does not resolve to a file in the repository. */
  packageName: string | null;
  names: string[];
  line: number;
}

export interface ParsedChunk {
  startLine: number;
  endLine: number;
  symbols: string[];
  content: string;
}

export interface ParsedFile {
  path: string;
  language: string | null;
  size: number;
  lines: number;
  hash: string;
  mtimeMs: number;
  description: string | null;
  /** Written by a tool (a generator's banner at its head, util/generated-banner.ts): indexed, flagged, ranked below source. */
  generated: boolean;
  /** The unit the file declares it belongs to, where the language has one (Go: the package clause). */
  unit: string | null;
  /** Holds tests of its own code, whatever its path (Rust's `#[cfg(test)] mod tests { #[test] fn … }`). */
  holdsTests?: boolean;
  symbols: ParsedSymbol[];
  imports: ParsedImport[];
  chunks: ParsedChunk[];
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
