/**
 * The words index (`chunks_fts`, BM25) filled in bulk during a large run, as the trigram index is (015).
 * Its rows were inserted one by one beside each chunk, inside ~20 ms write transactions: FTS5 flushed a
 * small segment at every commit and merged them again and again. Added by `INSERT … SELECT` after each
 * batch of written files (~1,000 chunks per transaction) the writer's CPU for the same files fell by a
 * fifth (docs/benchmarks.md, h17p).
 *
 * `fts_backlog` (at most one row): the chunks whose id is `from_id` or above have no `chunks_fts` row yet.
 * The index writer writes none for them and deletes none of theirs (chunks_fts is contentless: it must
 * be told exactly what it holds), and fills them after each batch of a run and at its end
 * (files-store.ts `TrigramBacklog.fillFts`); a killed run leaves the row for the next run to fill.
 */
export const sql = `
CREATE TABLE fts_backlog (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  from_id INTEGER NOT NULL
);
`;
