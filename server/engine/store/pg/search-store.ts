import type { SymbolKind } from '../../types';
import type { ChunkRow, FileFilterSql, SearchFileRow, SearchStore, SymbolRow } from '../search-store';
import type { Async } from '../surface';
import { ftsColumns, ftsTokens, parseFtsMatch, type FtsPhrase } from './fts-tokens';
import { likeEscape, type PgSql } from './sql';

const FUNCTION_KINDS = "('function', 'method')";
const FILE_ROW = 'f.id, f.repo_id AS "repoId", f.path, f.language, f.lines, f.description, f.generated';
const SYMBOL_ROW = `s.id, s.file_id AS "fileId", s.name, s.kind, s.parent, s.start_line AS "startLine", s.end_line AS "endLine", s.exported,
  s.signature, s.doc`;

/** FTS5's bm25() constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;
/** FTS5's floor for an idf that is not positive (a term in half the chunks or more). */
const MIN_IDF = 1e-6;

/** FTS5's idf of a phrase that `nHit` of `nRow` chunks hold. */
function idfOf(nRow: number, nHit: number): number {
  const idf = Math.log((nRow - nHit + 0.5) / (nHit + 0.5));
  return idf <= 0 ? MIN_IDF : idf;
}

/**
 * When a search's phrases hold more postings than this, it first scores only the chunks that hold
 * its rarer phrases, and keeps that answer when no other chunk could reach it (MaxScore).
 */
export const PRUNE_ABOVE_POSTINGS = 4_000;

/** The trigrams of some literals as SQLite's trigram tokenizer folds them (lower case, by code point). */
function trigramsOf(literal: string): number {
  return Math.max(0, Array.from(literal).length - 2);
}

/**
 * Every read lexical, grep and semantic search make, on PostgreSQL: SqliteSearchStore's surface, awaited.
 *
 * `lexical` is FTS5's BM25, computed from the tables migration 100 keeps (fts_docs, fts_postings,
 * fts_terms, fts_stats) over the terms fts-tokens.ts makes exactly as FTS5's unicode61 tokenizer
 * does, so both backends score a chunk the same (within floating error):
 *
 *   score = Σ_phrases idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl)),   k1 = 1.2, b = 0.75
 *   f      = Σ_columns weight·(occurrences of the phrase in the column)
 *   D      = the chunk's tokens (all columns), avgdl = all tokens / all chunks (the whole index, as FTS5)
 *   idf    = ln((N − n + 0.5) / (n + 0.5)), at least 1e-6; n = chunks holding the phrase
 *
 * A one-word phrase's n is the sum of its per-repository document frequencies; a prefix (`"stem"*`)
 * is expanded to the terms it covers and n counted over their postings; a phrase of several words
 * (`"dispatch_request"`, which unicode61 splits at `_`) is found among the chunks holding all its
 * words and confirmed, and counted, on their tokens.
 */
export class PgSearchStore implements Async<SearchStore> {
  /** Lexical searches answered from the chunks of their rarer phrases alone (see `pruned`), and in how many tries. */
  readonly pruning = { searches: 0, firstTry: 0, secondTry: 0 };

  /** `pruneAbovePostings`: see PRUNE_ABOVE_POSTINGS (tests set 0 to prune every search, Infinity never). */
  constructor(private readonly db: PgSql, private readonly pruneAbovePostings = PRUNE_ABOVE_POSTINGS) {}

  async generations(repoIds: string[]): Promise<number[]> {
    const rows = await this.db.rows<{ repo_id: string; generation: number }>(
      'SELECT repo_id, generation::float8 AS generation FROM repo_generations WHERE repo_id = ANY($1::text[])', [repoIds]);
    const byId = new Map(rows.map((r) => [r.repo_id, r.generation]));
    return repoIds.map((id) => byId.get(id) ?? 0);
  }

  async files(repoIds: string[], filter: FileFilterSql = {}): Promise<SearchFileRow[]> {
    const params: unknown[] = [repoIds];
    const where = ['f.repo_id = ANY($1::text[])'];
    const param = (value: unknown) => { params.push(value); return `$${params.length}`; };
    if (filter.minLines !== undefined) where.push(`f.lines >= ${param(filter.minLines)}`);
    if (filter.maxLines !== undefined) where.push(`f.lines <= ${param(filter.maxLines)}`);
    if (filter.hasFunctions !== undefined) {
      where.push(`${filter.hasFunctions ? '' : 'NOT '}EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.kind IN ${FUNCTION_KINDS})`);
    }
    if (filter.functionNames?.length) {
      where.push(`EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.kind IN ${FUNCTION_KINDS}
        AND lower(s.name) IN (SELECT lower(x) FROM unnest(${param(filter.functionNames)}::text[]) x))`);
    }
    if (filter.dependencies?.length) {
      const deps = param(filter.dependencies);
      where.push(`EXISTS (SELECT 1 FROM imports i WHERE i.file_id = f.id AND (
        i.package = ANY(${deps}::text[]) OR i.specifier = ANY(${deps}::text[]) OR i.target_path = ANY(${deps}::text[])))`);
    }
    if (filter.visibility === 'public') where.push('EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.exported)');
    if (filter.visibility === 'private') {
      where.push('EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id) AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.exported)');
    }
    return this.db.rows<SearchFileRow>(`SELECT ${FILE_ROW} FROM files f WHERE ${where.join(' AND ')} ORDER BY f.id`, params);
  }

  private async filesAll(repoIds: string[]): Promise<number[]> {
    return (await this.db.rows<{ id: number }>('SELECT id FROM files WHERE repo_id = ANY($1::text[]) ORDER BY id', [repoIds])).map((r) => r.id);
  }

  async unindexedFiles(repoIds: string[]): Promise<{ id: number; repoId: string; path: string }[]> {
    return this.db.rows<{ id: number; repoId: string; path: string }>(
      `SELECT id, repo_id AS "repoId", path FROM skipped_files
       WHERE repo_id = ANY($1::text[]) AND reason IN ('generated', 'oversized') ORDER BY id`, [repoIds]);
  }

  async filesByIds(ids: number[]): Promise<SearchFileRow[]> {
    return this.db.rows<SearchFileRow>(`SELECT ${FILE_ROW} FROM files f WHERE f.id = ANY($1::int[]) ORDER BY f.id`, [ids]);
  }

  async lexical(
    match: string, repoIds: string[], limit: number, weights: [number, number, number], accept?: (fileId: number) => boolean,
  ): Promise<{ chunkId: number; fileId: number; score: number }[]> {
    const phrases = parseFtsMatch(match).filter((p) => p.tokens.length);
    if (!phrases.length || !repoIds.length || limit <= 0) return [];
    const w = weights.map(Number) as [number, number, number];
    // The index's totals and every plain word's document frequency, in one round trip.
    const words = [...new Set(phrases.filter((p) => p.tokens.length === 1 && !p.prefix).map((p) => p.tokens[0]!))];
    const stats = (await this.db.one<{ docs: number; tokens: number; df: Record<string, number> | null }>(
      `SELECT (SELECT coalesce(sum(docs), 0)::float8 FROM fts_stats) AS docs,
              (SELECT coalesce(sum(tokens), 0)::float8 FROM fts_stats) AS tokens,
              (SELECT json_object_agg(term, n) FROM (SELECT term, sum(df)::float8 AS n FROM fts_terms WHERE term = ANY($1::text[]) GROUP BY term) t) AS df`,
      [words]))!;
    if (!stats.docs) return [];
    const nRow = stats.docs;
    const avgdl = stats.tokens / nRow;

    // One-word phrases are scored in SQL from their postings; longer ones arrive as (chunk, f) pairs.
    const termRows: { term: string; phrase: number; idf: number }[] = [];
    const pairs: { chunkId: number; phrase: number; idf: number; f: number }[] = [];
    const phraseStats: { phrase: number; n: number; bound: number; terms: string[] }[] = [];
    for (const [index, phrase] of phrases.entries()) {
      if (phrase.tokens.length === 1) {
        const token = phrase.tokens[0]!;
        const { terms, n } = phrase.prefix ? await this.expandCounted(token) : { terms: [token], n: Number(stats.df?.[token] ?? 0) };
        if (!n) continue;
        const idf = idfOf(nRow, n);
        for (const term of terms) termRows.push({ term, phrase: index, idf });
        phraseStats.push({ phrase: index, n, bound: idf * (K1 + 1), terms });
      } else {
        const found = await this.phraseHits(phrase, w);
        const idf = idfOf(nRow, found.length);
        for (const hit of found) pairs.push({ chunkId: hit.chunkId, phrase: index, idf, f: hit.f });
      }
    }
    if (!termRows.length && !pairs.length) return [];

    const score = (candidates: string[] | null) => `
      WITH q AS (SELECT * FROM unnest($1::text[], $2::int[], $3::float8[]) AS q(term, phrase, idf)),
      ${candidates ? `cand AS (SELECT chunk_id FROM fts_postings WHERE term = ANY($13::text[]) UNION SELECT unnest($7::int[])),` : ''}
      hits AS (
        SELECT p.chunk_id, q.phrase, max(q.idf) AS idf, sum($4::float8 * p.tf_path + $5::float8 * p.tf_symbols + $6::float8 * p.tf_body) AS f
        FROM q JOIN fts_postings p ON p.term = q.term ${candidates ? 'WHERE p.chunk_id IN (SELECT chunk_id FROM cand)' : ''}
        GROUP BY p.chunk_id, q.phrase
        UNION ALL
        SELECT * FROM unnest($7::int[], $8::int[], $9::float8[], $10::float8[]) AS x(chunk_id, phrase, idf, f)
      )
      SELECT h.chunk_id AS "chunkId", d.file_id AS "fileId",
        sum(h.idf * (h.f * ${K1 + 1}::float8) / (h.f + ${K1}::float8 * (${1 - B}::float8 + ${B}::float8 * d.tokens / $11::float8))) AS score
      FROM hits h JOIN fts_docs d ON d.chunk_id = h.chunk_id
      WHERE d.repo_id = ANY($12::text[])
      GROUP BY h.chunk_id, d.file_id
      ORDER BY score DESC, h.chunk_id`;
    const params = [
      termRows.map((t) => t.term), termRows.map((t) => t.phrase), termRows.map((t) => t.idf), w[0], w[1], w[2],
      pairs.map((p) => p.chunkId), pairs.map((p) => p.phrase), pairs.map((p) => p.idf), pairs.map((p) => p.f), avgdl, repoIds,
    ];
    type Hit = { chunkId: number; fileId: number; score: number };
    const fetch = Math.trunc(accept ? limit * 4 : limit);
    const first = await this.pruned(phraseStats, fetch, (essential) => this.db.rows<Hit>(`${score(essential)} LIMIT ${fetch}`, [...params, essential]))
      ?? await this.db.rows<Hit>(`${score(null)} LIMIT ${fetch}`, params);
    if (!accept) return first;
    const kept = first.filter((r) => accept(r.fileId));
    if (kept.length >= limit || first.length < fetch) return kept.slice(0, limit);
    const all = await this.db.rows<Hit>(score(null), params);
    return all.filter((r) => accept(r.fileId)).slice(0, limit);
  }

  /**
   * MaxScore, exact: a one-word phrase adds less than idf·(k1+1) to any chunk's score. The phrases
   * with the highest bounds (the rarest) are essential until they hold 2·k chunks; only the chunks
   * holding an essential phrase (or a phrase of several words) are scored, on every phrase. If the
   * k-th of those scores at least the sum of the other phrases' bounds, no chunk left out can enter
   * the top k: the answer is the one a full scoring gives. If not, that k-th score is still a floor
   * for any larger set of essential phrases, so the next try takes as few more as make the bound
   * fall under it, and cannot fail. It answers null (the caller scores every chunk) when the search
   * reads few postings anyway, or when every phrase would be essential.
   */
  private async pruned<T extends { score: number }>(
    phrases: { n: number; bound: number; terms: string[] }[], k: number, run: (essentialTerms: string[]) => Promise<T[]>,
  ): Promise<T[] | null> {
    const postings = phrases.reduce((sum, p) => sum + p.n, 0);
    if (postings <= this.pruneAbovePostings || phrases.length < 2 || k <= 0) return null;
    this.pruning.searches++;
    const byBound = [...phrases].sort((a, b) => b.bound - a.bound);
    // rest[c]: the most a chunk holding none of the first c phrases can score (with a margin for rounding).
    const rest = byBound.map((_, c) => byBound.slice(c).reduce((sum, p) => sum + p.bound, 0) * (1 + 1e-9));
    let cut = 1;
    for (let held = byBound[0]!.n; cut < byBound.length - 1 && held < 2 * k; cut++) held += byBound[cut]!.n;
    const essential = (c: number) => byBound.slice(0, c).flatMap((p) => p.terms);
    const rows = await run(essential(cut));
    if (rows.length < k) return null;
    const floor = rows[k - 1]!.score;
    if (floor >= rest[cut]!) {
      this.pruning.firstTry++;
      return rows;
    }
    let next = cut + 1;
    while (next < byBound.length && rest[next]! > floor) next++;
    if (next >= byBound.length) return null;
    this.pruning.secondTry++;
    return run(essential(next));
  }

  /** The terms of the index a prefix covers (FTS5's `"stem"*`), and the chunks that hold any of them. */
  private async expandCounted(prefix: string): Promise<{ terms: string[]; n: number }> {
    const row = (await this.db.one<{ terms: string[]; n: number }>(
      `WITH t AS (SELECT DISTINCT term FROM fts_terms WHERE term LIKE $1 AND df > 0)
       SELECT coalesce((SELECT array_agg(term ORDER BY term) FROM t), '{}') AS terms,
              (SELECT count(DISTINCT chunk_id)::float8 FROM fts_postings WHERE term IN (SELECT term FROM t)) AS n`,
      [`${likeEscape(prefix)}%`]))!;
    return { terms: row.terms, n: row.n };
  }

  /** The terms of the index a prefix covers (FTS5's `"stem"*`). */
  private async expand(prefix: string): Promise<string[]> {
    return (await this.db.rows<{ term: string }>(
      'SELECT DISTINCT term FROM fts_terms WHERE term LIKE $1 AND df > 0 ORDER BY term', [`${likeEscape(prefix)}%`])).map((r) => r.term);
  }

  /**
   * Chunks holding a phrase of several words, and its weighted count in each: candidates are the
   * chunks whose postings hold every word, confirmed on the tokens of their three columns (composed
   * again from the chunk, its symbols and its file's path, as they were indexed).
   */
  private async phraseHits(phrase: FtsPhrase, w: [number, number, number]): Promise<{ chunkId: number; f: number }[]> {
    const n = phrase.tokens.length;
    const lists: string[][] = [];
    for (const [i, token] of phrase.tokens.entries()) {
      const list = i === n - 1 && phrase.prefix ? await this.expand(token) : [token];
      if (!list.length) return [];
      lists.push(list);
    }
    const candidates = await this.db.rows<{ id: number; path: string; symbols: string | null; content: string }>(
      `SELECT c.id, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.id IN (${lists.map((_, i) => `SELECT chunk_id FROM fts_postings WHERE term = ANY($${i + 1}::text[])`).join(' INTERSECT ')})`,
      lists);
    const last = new Set(lists[n - 1]);
    const out: { chunkId: number; f: number }[] = [];
    for (const c of candidates) {
      let f = 0;
      let instances = 0;
      ftsColumns(c.path, c.symbols ? c.symbols.split(' ') : [], c.content).forEach((text, col) => {
        const tokens = ftsTokens(text);
        for (let at = 0; at + n <= tokens.length; at++) {
          let ok = true;
          for (let k = 0; k < n - 1 && ok; k++) ok = tokens[at + k] === phrase.tokens[k];
          if (!ok) continue;
          const end = tokens[at + n - 1]!;
          if (phrase.prefix ? last.has(end) : end === phrase.tokens[n - 1]) {
            instances++;
            f += w[col]!;
          }
        }
      });
      if (instances) out.push({ chunkId: c.id, f });
    }
    return out;
  }

  async chunkPlaces(ids: number[]): Promise<Omit<ChunkRow, 'content'>[]> {
    return this.db.rows<Omit<ChunkRow, 'content'>>(
      `SELECT id, file_id AS "fileId", start_line AS "startLine", end_line AS "endLine", symbols FROM chunks
       WHERE id = ANY($1::int[]) ORDER BY id`, [ids]);
  }

  async chunkContents(ids: number[]): Promise<Map<number, string>> {
    const rows = await this.db.rows<{ id: number; content: string }>('SELECT id, content FROM chunks WHERE id = ANY($1::int[])', [ids]);
    return new Map(rows.map((r) => [r.id, r.content]));
  }

  /**
   * Files with a chunk that holds every one of `literals` (ASCII case aside): ILIKE, answered by
   * pg_trgm's GIN index and rechecked on the text, so a subset of SQLite's trigram candidates and
   * still a superset of the files that match (a match lies within a line, so within one chunk).
   * Literals too short to hold a trigram narrow nothing, as on SQLite.
   */
  async trigramFiles(repoIds: string[], literals: string[]): Promise<number[]> {
    const useful = [...new Set(literals.filter((l) => trigramsOf(l) > 0))];
    if (!useful.length) return this.filesAll(repoIds);
    return (await this.db.rows<{ id: number }>(
      `SELECT DISTINCT c.file_id AS id FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE f.repo_id = ANY($1::text[]) AND ${useful.map((_, i) => `c.content ILIKE $${i + 2}`).join(' AND ')}
       ORDER BY id`,
      [repoIds, ...useful.map((l) => `%${likeEscape(l)}%`)])).map((r) => r.id);
  }

  async symbols(fileIds: number[], kinds?: SymbolKind[]): Promise<SymbolRow[]> {
    return this.db.rows<SymbolRow>(
      `SELECT ${SYMBOL_ROW} FROM symbols s WHERE s.file_id = ANY($1::int[]) AND ($2::text[] IS NULL OR s.kind = ANY($2::text[]))
       ORDER BY s.file_id, s.start_line, s.id`, [fileIds, kinds ?? null]);
  }

  async symbolsNamed(repoIds: string[], names: string[]): Promise<SymbolRow[]> {
    return this.db.rows<SymbolRow>(
      `SELECT ${SYMBOL_ROW} FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name = ANY($1::text[]) AND f.repo_id = ANY($2::text[]) ORDER BY s.id LIMIT 500`, [names, repoIds]);
  }

  async docSources(fileIds: number[]): Promise<{ fileId: number; description: string | null; docs: string | null }[]> {
    return this.db.rows<{ fileId: number; description: string | null; docs: string | null }>(
      `SELECT f.id AS "fileId", f.description,
         (SELECT string_agg(s.name || ': ' || replace(s.doc, chr(10), ' '), chr(10) ORDER BY s.id) FROM symbols s
          WHERE s.file_id = f.id AND s.doc IS NOT NULL) AS docs
       FROM files f WHERE f.id = ANY($1::int[]) ORDER BY f.id`, [fileIds]);
  }

  async chunkCount(repoIds: string[]): Promise<number> {
    return (await this.db.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ANY($1::text[])', [repoIds]))!.n;
  }
}
