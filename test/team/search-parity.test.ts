/**
 * Both backends rank alike (issue 20): the search evaluation's questions (bench/search-queries.ts) asked of
 * Flask 2.2.2 and gin 1.8.1 from Debian, on the embedded engine's SQLite and on a team server (a private
 * PostgreSQL, a real index worker process that indexes the folder and builds its vectors, an engine reading that
 * database as an API node does). MRR@10 of the lexical side (BM25), the vector side and the hybrid that
 * `/v2/search` serves must be within 0.02 of each other; each side must also be at the level the evaluation
 * records, so two empty rankings cannot pass as equal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, type Ranking } from '../../bench/search-eval';

const RANKINGS: Ranking[] = ['bm25', 'vectors', 'hybrid'];
/** Well under what bench/search-eval.ts records for the hybrid (Flask 0.833, gin 0.880). */
const FLOOR = { flask: 0.7, gin: 0.7 };

for (const corpus of ['flask', 'gin'] as const) {
  test(`${corpus}: MRR@10 on PostgreSQL is within 0.02 of SQLite's for BM25, vectors and the hybrid`, { timeout: 1_500_000 }, async () => {
    const sqlite = await evaluate(corpus, RANKINGS, { backend: 'sqlite' });
    const pg = await evaluate(corpus, RANKINGS, { backend: 'pg' });
    assert.equal(pg.model, sqlite.model, 'the same embedding model on both');
    assert.ok(sqlite.all.hybrid!.mrr >= FLOOR[corpus], `SQLite's hybrid MRR@10 ${sqlite.all.hybrid!.mrr}`);
    for (const k of RANKINGS) {
      const [a, b] = [sqlite.all[k]!.mrr, pg.all[k]!.mrr];
      assert.ok(Math.abs(a - b) <= 0.02, `${k}: SQLite ${a}, PostgreSQL ${b}`);
    }
  });
}
