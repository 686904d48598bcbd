/**
 * How much of parsing is tree-sitter, on any folder of Python/Go/Rust/Java/C#/C/C++/Ruby/PHP sources:
 *   node --import tsx bench/parse-polyglot.ts <folder>
 * Parses every file once in this thread (after one warm-up pass that loads the grammars) and prints one
 * JSON line: files, bytes, the whole per-file parse (read, hash, tree-sitter, resolution, chunking) and
 * the tree-sitter analysis alone, in ms and files/s.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FileParser } from '../server/engine/indexer/parse-file';
import { analyzeWithTreeSitter, treeSitterLanguages } from '../server/engine/indexer/parse-tree-sitter';
import { detectLanguage } from '../server/engine/indexer/languages';
import { walk } from '../server/engine/indexer/walk';

async function main() {
  const root = path.resolve(process.argv[2] ?? '.');
  const entries = walk(root, {}).filter((e) => treeSitterLanguages.has(detectLanguage(path.basename(e.relPath)) ?? ''));
  const texts = entries.map((e) => fs.readFileSync(path.join(root, e.relPath), 'utf8'));
  const analyze = () => Promise.all(entries.map((e, i) => analyzeWithTreeSitter(detectLanguage(path.basename(e.relPath))!, e.relPath, texts[i], root)));
  const warm = performance.now();
  await analyze();
  const warmUpMs = performance.now() - warm;

  const t0 = performance.now();
  const analyses = await analyze();
  const treeSitterMs = performance.now() - t0;

  const parser = new FileParser(root, { maxFileBytes: 1 << 20 });
  const t1 = performance.now();
  for (const e of entries) await parser.parse({ relPath: e.relPath, size: e.size, mtimeMs: e.mtimeMs });
  const fileParseMs = performance.now() - t1;

  const byLanguage: Record<string, number> = {};
  for (const e of entries) { const l = detectLanguage(path.basename(e.relPath))!; byLanguage[l] = (byLanguage[l] ?? 0) + 1; }
  console.log(JSON.stringify({
    files: entries.length,
    bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0),
    byLanguage,
    symbols: analyses.reduce((n, a) => n + a.symbols.length, 0),
    imports: analyses.reduce((n, a) => n + a.imports.length, 0),
    resolved: analyses.reduce((n, a) => n + a.imports.filter((i) => i.targetPath).length, 0),
    warmUpMs: Math.round(warmUpMs),
    treeSitterMs: Math.round(treeSitterMs),
    fileParseMs: Math.round(fileParseMs),
    treeSitterFilesPerSecond: Math.round(entries.length / (treeSitterMs / 1000)),
  }));
}

void main();
