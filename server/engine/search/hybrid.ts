import type { SearchStore, ChunkRow, SearchFileRow } from '../store/search-store';
import type { Async } from '../store/surface';
import type { VectorIndex } from '../embed/vector-index';
import { splitIdentifier } from '../util/words';
import { builtCopies } from './copies';
import { fileRole, type FileRole } from './file-role';
import { ftsExpression, type QueryTerms } from './query';
import { testingLibrariesOf } from './testing-libraries-of';
import { underTestFolder, type TestingLibraries } from '../analysis/testing-libraries';
import type { Retriever } from './types';

export interface RankedChunk {
  chunk: ChunkRow;
  file: SearchFileRow;
  score: number;
  lexicalRank: number | null;
  vectorRank: number | null;
  similarity: number | null;
  /** 2: the chunk defines what the whole query names (or its file is named so); 1: that name under another qualifier. */
  exact?: 1 | 2;
}

export interface HybridOptions {
  retriever: Retriever;
  repoIds: string[];
  allowed: Map<number, SearchFileRow> | null;
  similarityThreshold: number;
  /** How many fused chunks to return. */
  depth: number;
  /** Roles of files (tests, benchmarks, …) ranked below source: the ones the query and the filters did not ask for. */
  demoted?: ReadonlySet<FileRole>;
  /** Identifiers a retrieval model named for the query: a chunk defining one weighs as one defining a name the query asks for. */
  expansions?: readonly string[];
}

export interface HybridResult {
  ranked: RankedChunk[];
  embedding: { model: string; dims: number } | null;
  timings: { lexicalMs: number; vectorMs: number; fuseMs: number };
  warnings: string[];
}

// BM25 column weights: path, symbol names, body. A word in a path or a defined name says more.
const BM25_WEIGHTS: [number, number, number] = [2.0, 4.0, 1.0];
const POOL = 200;
// Reciprocal-rank fusion constant (Cormack et al.); the vector list weighs a little less than BM25's.
const RRF_K = 60;
const VECTOR_WEIGHT = 0.8;
/**
 * A chunk whose file's path carries the query's words weighs up to this much more: the vector side never sees the
 * path. (A like boost for the names a chunk defines was dropped: BM25's symbols column already weighs them 4×, and
 * `chunks.symbols` also lists import bindings (`var Clamp = require(…)`), so it favoured chunks that import what the
 * query names; without it MRR@10 rose on phaser, Flask and gin alike, docs/benchmarks.md.)
 */
const PATH_BOOST = 0.3;
/** A chunk defining the symbol the whole query names (or in the file the query names) is placed above every other. */
export const EXACT_NAME = 1;
/** A chunk defining a name the query asks for under another qualifier (`View.dispatch_request` for `Flask.dispatch_request`). */
export const NAME_ONLY_BOOST = 1;
/** A test, benchmark, example, generated, translation or configuration file the search did not ask for weighs this much. */
export const ROLE_DEMOTION = 0.5;

/**
 * Semantic retrieval: BM25 over identifier-split text and cosine similarity of chunk vectors, fused
 * by reciprocal rank, then boosted where the chunk lives at a path that carries the query's words, or
 * defines the symbol the query names. Either side alone is available for evaluation.
 */
export async function hybridSearch(
  search: Async<SearchStore>, vectors: VectorIndex, query: string, terms: QueryTerms, o: HybridOptions,
): Promise<HybridResult> {
  const warnings: string[] = [];
  const pool = o.allowed ? POOL * 5 : POOL;
  let started = performance.now();
  const lexical: { chunkId: number; fileId: number; score: number }[] = [];
  if (o.retriever !== 'vector') {
    const match = ftsExpression(terms);
    if (match) {
      const allowed = o.allowed;
      lexical.push(...await search.lexical(match, o.repoIds, POOL, BM25_WEIGHTS, allowed ? (fileId) => allowed.has(fileId) : undefined));
    }
  }
  const lexicalMs = performance.now() - started;

  started = performance.now();
  let embedding: HybridResult['embedding'] = null;
  const vector: { chunkId: number; similarity: number }[] = [];
  if (o.retriever !== 'lexical') {
    const model = await vectors.activeAsync();
    if (!model) warnings.push('no embedding model is ready yet: results come from full-text search only');
    else {
      embedding = { model: model.embedder.id, dims: model.embedder.dims };
      const [q] = await model.embedder.embed([query], 'query');
      if (q) {
        for (const r of await vectors.nearestAsync(model, q, o.repoIds, pool)) {
          const similarity = 1 - r.distance;
          if (similarity >= o.similarityThreshold) vector.push({ chunkId: r.chunkId, similarity });
        }
      }
    }
  }
  const vectorMs = performance.now() - started;

  started = performance.now();
  const fused = new Map<number, { score: number; lexicalRank: number | null; vectorRank: number | null; similarity: number | null }>();
  lexical.forEach((r, i) => fused.set(r.chunkId, { score: 1 / (RRF_K + i + 1), lexicalRank: i + 1, vectorRank: null, similarity: null }));
  let vectorRank = 0;
  for (const r of vector) {
    const entry = fused.get(r.chunkId) ?? { score: 0, lexicalRank: null, vectorRank: null, similarity: null };
    vectorRank++;
    entry.vectorRank = vectorRank;
    entry.similarity = r.similarity;
    entry.score += VECTOR_WEIGHT / (RRF_K + vectorRank);
    fused.set(r.chunkId, entry);
  }
  const chunks = await search.chunkPlaces([...fused.keys()]);
  const fileIds = [...new Set(chunks.map((c) => c.fileId))];
  const files = new Map((o.allowed ? fileIds.map((id) => o.allowed!.get(id)).filter((f): f is SearchFileRow => !!f) : await search.filesByIds(fileIds)).map((f) => [f.id, f]));
  const wanted = new Set(terms.stems);
  const exact = o.retriever === 'hybrid' ? await exactNames(search, query, chunks, files) : new Map<number, 1 | 2>();
  // Built copies of the repository's own sources (build/legacy/retryer.js beside src/retryer.ts) rank as generated.
  const copies = o.retriever === 'hybrid' && o.demoted?.has('generated') ? await builtCopies(search, [...files.values()]) : new Set<number>();
  // A repository's test folders that are libraries for writing tests (django/test/) rank as its source; read only for
  // the repositories with a hit under a test folder.
  const underTests = [...new Set([...files.values()].filter((f) => underTestFolder(f.path)).map((f) => f.repoId))];
  const libraries = o.retriever === 'hybrid' && o.demoted?.has('test') && underTests.length ? await testingLibrariesOf(search, underTests) : new Map<string, TestingLibraries>();
  const roles = new Map<number, FileRole | null>();
  const pathCoverage = new Map<number, number>();
  const named = new Set(o.expansions ?? []);
  const ranked: (Omit<RankedChunk, 'chunk'> & { chunk: Omit<ChunkRow, 'content'> })[] = [];
  for (const chunk of chunks) {
    const file = files.get(chunk.fileId);
    if (!file) continue;
    const f = fused.get(chunk.id)!;
    // A single retriever keeps its own order; boosts only reshape the fused list.
    let score = f.score;
    if (o.retriever === 'hybrid') {
      const onPath = pathCoverage.get(file.id) ?? pathCoverage.set(file.id, coverage(file.path, wanted)).get(file.id)!;
      score *= 1 + PATH_BOOST * onPath;
      if (o.demoted?.size) {
        const role = roles.get(file.id) ?? roles.set(file.id, fileRole(file.path, file.generated || copies.has(file.id), libraries.get(file.repoId))).get(file.id)!;
        if (role && o.demoted.has(role)) score *= ROLE_DEMOTION;
      }
      const level = exact.get(chunk.id);
      if (level === 2) score += EXACT_NAME;
      else if (level === 1 || (named.size && chunk.symbols?.split(' ').some((n) => named.has(n)))) score *= 1 + NAME_ONLY_BOOST;
    }
    ranked.push({ chunk, file, score, lexicalRank: f.lexicalRank, vectorRank: f.vectorRank, similarity: f.similarity, exact: exact.get(chunk.id) });
  }
  ranked.sort((a, b) => b.score - a.score || a.file.path.localeCompare(b.file.path) || a.chunk.startLine - b.chunk.startLine);
  const top = ranked.slice(0, o.depth);
  const contents = await search.chunkContents(top.map((r) => r.chunk.id));
  const out = top.map((r) => ({ ...r, chunk: { ...r.chunk, content: contents.get(r.chunk.id) ?? '' } }));
  const fuseMs = performance.now() - started;
  return { ranked: out, embedding, timings: { lexicalMs, vectorMs, fuseMs }, warnings };
}

/** Letters and digits only, lower case: `Flask.dispatch_request`, `flask dispatchRequest` and `FlaskDispatchRequest` are one name. */
export const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Chunks that define what the whole query names, camel- and snake-case aside: 2 when the query is a defined
 * symbol's name (`make_response`), its qualified name (`Flask.dispatch_request`, `Engine ServeHTTP`) or a file's base
 * name (`form mapping` → form_mapping.go); 1 when it names the symbol under another qualifier.
 */
/** The query squashed, when it is short enough to be a name (at most four words), else null. */
export function nameOfQuery(query: string): string | null {
  const q = squash(query);
  return q.length < 3 || query.trim().split(/\s+/).length > 4 ? null : q;
}

/**
 * Whether a query is written as a code name: a qualifier joined by `.`, `::`, `#` or `->` (`Flask.dispatch_request`),
 * or an identifier (`Engine ServeHTTP`, `url_for`). Only such a query can ask for a name under another qualifier: in
 * words ("render a template", "help command") the last word is no method of the words before it, and taking it so put
 * sinatra's `template` and cobra's `Command` struct above the `render` and `InitDefaultHelpCmd` asked about.
 */
export function writtenAsName(query: string): boolean {
  return /\w(\.|::|#|->)\w/.test(query) || /[a-z][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]/.test(query);
}

/**
 * 2 when a symbol is what the squashed query names (its name or its qualified name); 1 when its name alone ends the
 * query, written as a name (`qualified`, writtenAsName) or with the words before it ending the owner's name; else 0.
 */
export function symbolNamed(q: string, name: string, parent: string | null, qualified = true): 0 | 1 | 2 {
  const n = squash(name);
  if (n.length < 3 || !q.endsWith(n)) return 0;
  if (n === q || squash(`${parent ?? ''}${name}`) === q) return 2;
  if (qualified) return 1;
  // In words, the words before the name must end its owner's name ("json provider dumps": DefaultJSONProvider.dumps).
  return parent && squash(parent).endsWith(q.slice(0, q.length - n.length)) ? 1 : 0;
}

async function exactNames(
  search: Async<SearchStore>, query: string, chunks: Omit<ChunkRow, 'content'>[], files: Map<number, SearchFileRow>,
): Promise<Map<number, 1 | 2>> {
  const out = new Map<number, 1 | 2>();
  const q = nameOfQuery(query);
  if (!q) return out;
  const asName = writtenAsName(query);
  const qualified: { chunk: Omit<ChunkRow, 'content'>; name: string }[] = [];
  for (const chunk of chunks) {
    const file = files.get(chunk.fileId);
    if (!file) continue;
    const base = file.path.slice(file.path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
    if (squash(base) === q) { out.set(chunk.id, 2); continue; }
    for (const name of chunk.symbols?.split(' ') ?? []) {
      const n = squash(name);
      if (n.length < 3) continue;
      if (n === q) { out.set(chunk.id, 2); break; }
      // A shorter name that ends the query: its qualified name may be the query's (level 2), or, asked as a name, level 1.
      if (q.endsWith(n)) qualified.push({ chunk, name });
    }
  }
  if (!qualified.length) return out;
  const symbols = await search.symbols([...new Set(qualified.map((c) => c.chunk.fileId))]);
  for (const { chunk, name } of qualified) {
    if (out.get(chunk.id) === 2) continue;
    const own = symbols.filter((s) => s.fileId === chunk.fileId && s.name === name && s.startLine >= chunk.startLine && s.startLine <= chunk.endLine);
    const level = Math.max(0, ...own.map((s) => symbolNamed(q, s.name, s.parent, asName))) as 0 | 1 | 2;
    if (level) out.set(chunk.id, level);
    else if (asName && !own.length) out.set(chunk.id, 1);
  }
  return out;
}

/** Share of the query's stems that appear among the sub-words of `text` (names or a path). */
function coverage(text: string, stems: Set<string>): number {
  if (!stems.size || !text) return 0;
  const words = new Set<string>();
  for (const token of text.split(/[^A-Za-z0-9]+/)) {
    if (!token) continue;
    words.add(token.toLowerCase());
    for (const p of splitIdentifier(token)) words.add(p);
  }
  let hit = 0;
  for (const s of stems) {
    for (const w of words) if (w.startsWith(s)) { hit++; break; }
  }
  return hit / stems.size;
}
