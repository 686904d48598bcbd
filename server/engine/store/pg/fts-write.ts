/**
 * Writes and deletes of the lexical index on PostgreSQL (tables of migration 100): the files store
 * calls these inside its transactions, so the BM25 statistics always describe the chunks committed.
 */
import { ftsColumns, ftsPostings } from './fts-tokens';
import { bulkInsert, copyRows, copyTextArray } from './copy';
import type { PgSql } from './sql';

export interface ChunkToIndex { id: number; fileId: number; path: string; symbols: string[]; content: string }

/** A batch of chunks' lexical rows, made on the client (the tokens, fts-tokens.ts) before anything is sent. */
export interface LexicalRows {
  docIds: number[]; docFiles: number[]; docTokens: number[]; docTermLists: string[][];
  terms: string[]; df: number[];
  pTerm: string[]; pChunk: number[]; pPath: number[]; pSymbols: number[]; pBody: number[];
  docs: number; tokens: number;
}

/** The postings, lengths and document frequencies of some chunks (client-side work only). */
export function lexicalRows(chunks: ChunkToIndex[]): LexicalRows {
  const docIds: number[] = [], docFiles: number[] = [], docTokens: number[] = [], docTermLists: string[][] = [];
  // Each term's postings in chunk order: emitted term by term, they reach the B-tree in key order
  // (term, chunk), one leaf page after another.
  const byTerm = new Map<string, number[]>();
  let tokens = 0;
  for (const c of [...chunks].sort((x, y) => x.id - y.id)) {
    const posting = ftsPostings(ftsColumns(c.path, c.symbols, c.content));
    docIds.push(c.id); docFiles.push(c.fileId); docTokens.push(posting.tokens);
    docTermLists.push([...posting.terms.keys()]);
    tokens += posting.tokens;
    for (const [term, [a, b, d]] of posting.terms) {
      let list = byTerm.get(term);
      if (!list) byTerm.set(term, (list = []));
      list.push(c.id, a, b, d);
    }
  }
  // In term order, so two transactions touching the same rows take their locks in the same order.
  const terms = [...byTerm.keys()].sort();
  const pTerm: string[] = [], pChunk: number[] = [], pPath: number[] = [], pSymbols: number[] = [], pBody: number[] = [];
  for (const term of terms) {
    const list = byTerm.get(term)!;
    for (let i = 0; i < list.length; i += 4) {
      pTerm.push(term); pChunk.push(list[i]!); pPath.push(list[i + 1]!); pSymbols.push(list[i + 2]!); pBody.push(list[i + 3]!);
    }
  }
  return {
    docIds, docFiles, docTokens, docTermLists, terms, df: terms.map((t) => byTerm.get(t)!.length / 4),
    pTerm, pChunk, pPath, pSymbols, pBody, docs: chunks.length, tokens,
  };
}

/**
 * Adds chunks of one repository to its lexical index: their postings, lengths, the repository's
 * document frequencies and totals. Each statement is handed to the connection at once, in order
 * (`issue` gathers their promises: the caller awaits them together, so the client does not wait
 * for one before sending the next).
 */
export function writeLexicalRows(db: PgSql, repoId: string, rows: LexicalRows, issue: <T>(p: Promise<T>) => Promise<T>): void {
  if (!rows.docs) return;
  if (db.copyFrom) {
    // The terms column as array literals, each element quoted (copy.ts): one COPY per table.
    issue(db.copyFrom('COPY fts_docs (chunk_id, repo_id, file_id, tokens, terms) FROM STDIN',
      copyRows([rows.docIds, rows.docIds.map(() => repoId), rows.docFiles, rows.docTokens, rows.docTermLists.map(copyTextArray)], [false, false, false, false, true])));
  } else {
    issue(db.query(
      `INSERT INTO fts_docs (chunk_id, repo_id, file_id, tokens, terms)
       SELECT d.id, $1, d.file, d.tokens, CASE WHEN d.terms = '' THEN '{}'::text[] ELSE string_to_array(d.terms, ' ') END
       FROM unnest($2::int[], $3::int[], $4::int[], $5::text[]) AS d(id, file, tokens, terms)`,
      // One text per chunk (terms never hold a space): a two-dimensional array would need equal lengths.
      [repoId, rows.docIds, rows.docFiles, rows.docTokens, rows.docTermLists.map((t) => t.join(' '))]));
  }
  issue(bulkInsert(db, 'fts_postings', [
    { name: 'term', type: 'text', values: rows.pTerm }, { name: 'chunk_id', type: 'int', values: rows.pChunk },
    { name: 'tf_path', type: 'int', values: rows.pPath }, { name: 'tf_symbols', type: 'int', values: rows.pSymbols }, { name: 'tf_body', type: 'int', values: rows.pBody },
  ]));
  issue(db.query(
    `INSERT INTO fts_terms (term, repo_id, df) SELECT t.term, $1, t.df FROM unnest($2::text[], $3::int[]) AS t(term, df)
     ON CONFLICT (term, repo_id) DO UPDATE SET df = fts_terms.df + excluded.df`, [repoId, rows.terms, rows.df]));
  issue(db.query(
    `INSERT INTO fts_stats (repo_id, docs, tokens) VALUES ($1, $2, $3)
     ON CONFLICT (repo_id) DO UPDATE SET docs = fts_stats.docs + excluded.docs, tokens = fts_stats.tokens + excluded.tokens`,
    [repoId, rows.docs, rows.tokens]));
}

/** Takes the chunks of some files of one repository out of the lexical index (before the chunks themselves go). */
export async function unindexFiles(db: PgSql, repoId: string, fileIds: number[]): Promise<void> {
  if (!fileIds.length) return;
  await db.query(
    `WITH gone AS (
       DELETE FROM fts_postings p USING (SELECT d.chunk_id, unnest(d.terms) AS term FROM fts_docs d WHERE d.file_id = ANY($2::int[])) g
       WHERE p.term = g.term AND p.chunk_id = g.chunk_id RETURNING p.term
     ), counted AS (SELECT term, count(*)::int AS n FROM gone GROUP BY term ORDER BY term)
     UPDATE fts_terms t SET df = t.df - c.n FROM counted c WHERE t.repo_id = $1 AND t.term = c.term`, [repoId, fileIds]);
  await db.query(
    `WITH gone AS (DELETE FROM fts_docs WHERE file_id = ANY($2::int[]) RETURNING tokens)
     UPDATE fts_stats SET docs = docs - (SELECT count(*) FROM gone), tokens = tokens - (SELECT coalesce(sum(tokens), 0) FROM gone)
     WHERE repo_id = $1`, [repoId, fileIds]);
}
