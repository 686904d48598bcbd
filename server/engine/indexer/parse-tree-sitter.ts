import type { ScriptAnalysis } from './parse-typescript';

/**
 * Languages parsed with the tree-sitter WASM grammars that VS Code ships (@vscode/tree-sitter-wasm).
 * Filled in by the polyglot parser; until a language is listed here its files are indexed as text.
 */
export const treeSitterLanguages = new Set<string>();

export async function analyzeWithTreeSitter(_language: string, _relPath: string, _text: string, _root: string): Promise<ScriptAnalysis> {
  return { symbols: [], imports: [], description: null };
}
