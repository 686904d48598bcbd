import path from 'node:path';
import { Language, Parser, Query } from '@vscode/tree-sitter-wasm';

/**
 * The tree-sitter runtime and grammars come from the same package (@vscode/tree-sitter-wasm), so the
 * runtime's ABI range always covers the grammars'. It is resolved at run time because the bundle keeps
 * the package external: dist/parse-worker.js finds the .wasm files in node_modules like the sources do.
 */
const WASM_DIR = path.dirname(require.resolve('@vscode/tree-sitter-wasm'));

export interface Grammar {
  parser: Parser;
  language: Language;
  /** Compiles a query once per grammar and process (each worker thread has its own). */
  query(source: string): Query;
}

// Emscripten prints to console.log (stdout) unless told otherwise, and stdout may carry the LSP stream.
const toStderr = (text: string) => { process.stderr.write(`tree-sitter: ${text}\n`); };
const RUNTIME_OPTIONS = { print: toStderr, printErr: toStderr } as unknown as Parameters<typeof Parser.init>[0];

let runtime: Promise<void> | null = null;
const grammars = new Map<string, Promise<Grammar>>();

/** Loads `tree-sitter-<name>.wasm` on first use; later calls share the same parser and queries. */
export function loadGrammar(name: string): Promise<Grammar> {
  let grammar = grammars.get(name);
  if (!grammar) {
    runtime ??= Parser.init(RUNTIME_OPTIONS);
    grammar = runtime.then(async () => {
      const language = await Language.load(path.join(WASM_DIR, `tree-sitter-${name}.wasm`));
      const parser = new Parser();
      parser.setLanguage(language);
      const queries = new Map<string, Query>();
      return {
        parser,
        language,
        query(source: string): Query {
          let q = queries.get(source);
          if (!q) queries.set(source, (q = new Query(language, source)));
          return q;
        },
      };
    });
    // A failed load (missing file) is retried on the next call instead of being cached.
    grammar.catch(() => grammars.delete(name));
    grammars.set(name, grammar);
  }
  return grammar;
}
