import path from 'node:path';
import type { Node, QueryMatch } from '@vscode/tree-sitter-wasm';
import type { ImportKind, ParsedImport, ParsedSymbol } from '../types';
import type { ScriptAnalysis } from './parse-typescript';
import type { Resolution } from './resolver';
import { collectSymbols } from './tree-sitter/definitions';
import type { LanguageSpec, ParseText, RawImport } from './tree-sitter/language';
import { RepoFiles } from './tree-sitter/repo-files';
import { loadGrammar, type Grammar } from './tree-sitter/runtime';
import { firstParagraph, SourceText } from './tree-sitter/source';
import { cpp } from './tree-sitter/cpp';
import { csharp } from './tree-sitter/csharp';
import { go } from './tree-sitter/go';
import { java } from './tree-sitter/java';
import { php } from './tree-sitter/php';
import { python } from './tree-sitter/python';
import { ruby } from './tree-sitter/ruby';
import { rust } from './tree-sitter/rust';

/** Each language's grammar, queries and rules. C is parsed with the C++ grammar, which accepts it. */
const SPECS: Record<string, LanguageSpec> = {
  python, go, rust, java, csharp, c: cpp, cpp, ruby, php,
};

/**
 * Languages parsed with the tree-sitter WASM grammars that VS Code ships (@vscode/tree-sitter-wasm).
 * Files of other languages are indexed as text.
 */
export const treeSitterLanguages: ReadonlySet<string> = new Set(Object.keys(SPECS));

/** The grammar file stem of a tree-sitter language (`cpp` for C), or undefined for others. */
export const treeSitterGrammar = (language: string): string | undefined => SPECS[language]?.grammar;

const repoFiles = new Map<string, RepoFiles>();

function filesOf(root: string): RepoFiles {
  const key = path.resolve(root);
  let files = repoFiles.get(key);
  if (!files) repoFiles.set(key, (files = new RepoFiles(key)));
  return files;
}

/** Files were added or removed under root: cached answers used by import resolution are stale. */
export function resetTreeSitterResolution(root: string): void {
  repoFiles.get(path.resolve(root))?.reset();
}

/** Symbols, imports (resolved inside the repository where the language decides it) and the file's description. */
export async function analyzeWithTreeSitter(language: string, relPath: string, text: string, root: string): Promise<ScriptAnalysis> {
  const spec = SPECS[language];
  if (!spec) return { symbols: [], imports: [], description: null };
  const grammar = await loadGrammar(spec.grammar);
  const tree = spec.parseFile ? spec.parseFile(text, grammar.parser) : grammar.parser.parse(text);
  if (!tree) return { symbols: [], imports: [], description: null };
  try {
    const rootNode = tree.rootNode;
    // One query with every pattern of the language: the tree is walked once for comments, definitions and imports.
    const comments: Node[] = [];
    const definitions: QueryMatch[] = [];
    const importMatches: QueryMatch[] = [];
    for (const match of grammar.query(`${spec.comments}\n${spec.definitions}\n${spec.imports}`).matches(rootNode)) {
      const primary = match.captures.find((c) => c.name === 'comment' || c.name === 'import' || c.name.startsWith('def.'));
      if (primary?.name === 'comment') comments.push(primary.node);
      else if (primary?.name === 'import') importMatches.push(match);
      else if (primary) definitions.push(match);
    }
    const source = new SourceText(text, comments);
    const symbols = collectSymbols(definitions, spec, source);
    const files = filesOf(root);
    const parse: ParseText = (other, read) => {
      const otherTree = grammar.parser.parse(other);
      if (!otherTree) return null;
      try { return read(otherTree.rootNode); } finally { otherTree.delete(); }
    };
    const expand = (raw: RawImport) => (spec.expand ? spec.expand(relPath, raw, files, parse) : [raw]);
    const raws: RawImport[] = [];
    for (const match of importMatches) {
      for (const raw of spec.importsOf(match, source)) raws.push(...expand(raw));
    }
    for (const raw of embeddedImports(spec, grammar, rootNode, 0, 2)) raws.push(...expand(raw));
    if (spec.references) raws.push(...spec.references(rootNode, raws, relPath, files));
    const imports: ParsedImport[] = [];
    const implicit = new Set<string>();
    for (const imp of raws) {
      const { alsoTargets, typeTargets, ...resolution } = spec.resolve(relPath, imp.specifier, imp.kind, files);
      const row = { ...imp, ...resolution };
      // A module imported only on the way to another (Python's parent packages, from `expand`) is stored once per file.
      const key = `${row.kind}\0${row.typeOnly}\0${row.specifier}\0${row.targetPath}`;
      const implied = spec.expand !== undefined && row.names.length === 0;
      if (implied && implicit.has(key)) continue;
      if (implied) implicit.add(key);
      imports.push(row);
      for (const targetPath of alsoTargets ?? []) imports.push({ ...imp, targetPath, packageName: null });
      for (const targetPath of typeTargets ?? []) imports.push({ ...imp, typeOnly: true, targetPath, packageName: null });
    }
    return { symbols, imports, description: spec.description(rootNode, source) ?? firstTypeDoc(spec, symbols), unit: spec.unitOf?.(rootNode) ?? null, holdsTests: spec.holdsTests?.(rootNode) ?? false };
  } finally {
    tree.delete();
  }
}

/** Imports of the code fragments a language keeps unparsed (macro bodies), parsed in turn, `depth` levels down. */
function embeddedImports(spec: LanguageSpec, grammar: Grammar, node: Node, rowOffset: number, depth: number): RawImport[] {
  if (!spec.embedded || depth === 0) return [];
  const out: RawImport[] = [];
  for (const fragment of spec.embedded(node)) {
    const tree = grammar.parser.parse(fragment.text);
    if (!tree) continue;
    try {
      const offset = rowOffset + fragment.row;
      const source = new SourceText(fragment.text, []);
      for (const match of grammar.query(spec.imports).matches(tree.rootNode)) {
        for (const raw of spec.importsOf(match, source)) out.push({ ...raw, line: raw.line + offset });
      }
      out.push(...embeddedImports(spec, grammar, tree.rootNode, offset, depth - 1));
    } finally {
      tree.delete();
    }
  }
  return out;
}

function firstTypeDoc(spec: LanguageSpec, symbols: ParsedSymbol[]): string | null {
  if (!spec.describeByFirstType) return null;
  const type = symbols.find((s) => s.parent === null && s.doc && ['class', 'interface', 'struct', 'enum', 'trait'].includes(s.kind));
  return type?.doc ? firstParagraph(type.doc) : null;
}

/**
 * Resolves a stored import again (after files were added or removed) from its specifier and kind alone,
 * for files of a tree-sitter language; null for other languages.
 */
export function resolveTreeSitterImport(root: string, language: string | null, fromPath: string, specifier: string, kind: ImportKind): Resolution | null {
  const spec = language ? SPECS[language] : undefined;
  if (!spec) return null;
  // A stored edge holds one target: the first (the others have rows of their own).
  const { alsoTargets: _others, typeTargets: _stubs, ...resolution } = spec.resolve(fromPath, specifier, kind, filesOf(root));
  return resolution;
}
