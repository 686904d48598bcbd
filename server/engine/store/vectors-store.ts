import { forgetStatements, type Db } from './db';
import { nowIso } from '../util/ids';
import { LoupeError } from '../errors';
import type { Surface } from './surface';

/** Every `$1`-th chunk in (repository, path, position) order (the files and chunks indexes: no sort), at most `$2`: the corpus model's training sample. */
export const SAMPLE_SQL = `SELECT f.path || char(10) || c.content AS text
  FROM (SELECT c.id, row_number() OVER (ORDER BY f.repo_id, f.path, c.seq) - 1 AS rn FROM chunks c JOIN files f ON f.id = c.file_id) o
  JOIN chunks c ON c.id = o.id JOIN files f ON f.id = c.file_id
  WHERE o.rn % $1 = 0 ORDER BY o.rn LIMIT $2`;

export type ModelState = 'building' | 'active' | 'retired';

export interface EmbeddingModelRow {
  id: number;
  provider: string;
  name: string;
  dims: number;
  state: ModelState;
  trainedChunks: number;
  createdAt: string;
}

export interface ChunkToEmbed { id: number; repoId: string; path: string; symbols: string | null; content: string }

/** Every chunk of a repository in id order, to embed before a model's tables exist (the training worker's read; SQLite only). */
export function chunksOf(db: Db, repoId: string, fromId = 0): IterableIterator<ChunkToEmbed> {
  return db.prepare(
    'SELECT c.id, f.repo_id AS repoId, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND c.id >= ? ORDER BY c.id',
  ).iterate(repoId, fromId) as IterableIterator<ChunkToEmbed>;
}

/**
 * A repository's chunks with ids from `fromId` up to `toId` (excluded), by id: read in id order through the
 * chunks' own key (CROSS JOIN keeps chunks the outer table). chunksOf's plan reads every chunk of the repository
 * and sorts them before the first row (~140 ms on payload), once for each block of a split embedding.
 */
export function chunksBetween(db: Db, repoId: string, fromId: number, toId: number): IterableIterator<ChunkToEmbed> {
  return db.prepare(
    'SELECT c.id, f.repo_id AS repoId, f.path, c.symbols, c.content FROM chunks c CROSS JOIN files f ON f.id = c.file_id WHERE c.id >= ? AND c.id < ? AND f.repo_id = ? ORDER BY c.id',
  ).iterate(fromId, toId, repoId) as IterableIterator<ChunkToEmbed>;
}

/** The ids of a repository's first `count` chunks, by id. */
export function chunkIdsFrom(db: Db, repoId: string, count: number): number[] {
  return db.prepare('SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? ORDER BY c.id LIMIT ?')
    .pluck().all(repoId, count) as number[];
}

/**
 * Vectors live in one vec0 table per embedding model (`vec_m<id>`, its width is the model's), with a
 * plain side table of chunks that have nothing to embed. Triggers on `chunks` delete both when a
 * chunk goes, so a re-used chunk id can never inherit a stale vector.
 */
export class SqliteVectorsStore {
  constructor(private readonly db: Db) {}

  /** The models (a few bytes each: their data is in embedding_model_data, migration 029). */
  models(): EmbeddingModelRow[] {
    return this.db.prepare(`SELECT id, provider, name, dims, state, trained_chunks AS trainedChunks, created_at AS createdAt
      FROM embedding_models ORDER BY id`).all() as EmbeddingModelRow[];
  }

  modelData(id: number): Buffer | null {
    const row = this.db.prepare('SELECT data FROM embedding_model_data WHERE model_id = ?').get(id) as { data: Buffer | null } | undefined;
    return row?.data ?? null;
  }

  /** Registers a model in state `building` and creates its tables. */
  addModel(provider: string, name: string, dims: number, data: Buffer | null, trainedChunks: number): number {
    if (!Number.isInteger(dims) || dims < 1 || dims > 8192) throw new LoupeError('VALIDATION_FAILED', `invalid embedding width ${dims}`);
    return this.db.transaction(() => {
      const { id } = this.db.prepare(
        `INSERT INTO embedding_models (provider, name, dims, state, trained_chunks, created_at)
         VALUES (?, ?, ?, 'building', ?, ?) RETURNING id`,
      ).get(provider, name, dims, trainedChunks, nowIso()) as { id: number };
      if (data) this.db.prepare('INSERT INTO embedding_model_data (model_id, data) VALUES (?, ?)').run(id, data);
      this.db.exec(`
        CREATE VIRTUAL TABLE vec_m${id} USING vec0(chunk_id integer primary key, repo_id text partition key,
          embedding float[${dims}] distance_metric=cosine);
        CREATE TABLE vec_m${id}_empty (chunk_id INTEGER PRIMARY KEY);
        CREATE TRIGGER vec_m${id}_chunk_ad AFTER DELETE ON chunks BEGIN
          DELETE FROM vec_m${id} WHERE chunk_id = old.id;
          DELETE FROM vec_m${id}_empty WHERE chunk_id = old.id;
        END;`);
      return id;
    })();
  }

  /** Makes `id` the model search uses; every other model is retired. */
  activate(id: number): void {
    this.db.transaction(() => {
      this.db.prepare("UPDATE embedding_models SET state = 'retired' WHERE id != ? AND state = 'active'").run(id);
      this.db.prepare("UPDATE embedding_models SET state = 'active', activated_at = ? WHERE id = ?").run(nowIso(), id);
    })();
  }

  dropModel(id: number): void {
    this.db.transaction(() => {
      this.db.exec(`DROP TRIGGER IF EXISTS vec_m${id}_chunk_ad; DROP TABLE IF EXISTS vec_m${id}; DROP TABLE IF EXISTS vec_m${id}_empty;`);
      this.db.prepare('DELETE FROM embedding_model_data WHERE model_id = ?').run(id);
      this.db.prepare('DELETE FROM embedding_models WHERE id = ?').run(id);
    })();
  }

  /**
   * Chunks of a repository (or of all, when repoId is null) without a vector in model `id`, in id
   * order after `afterId` (a fill passes the last id it saw, so each batch reads on from there
   * instead of walking every embedded chunk again).
   */
  missing(id: number, repoId: string | null, limit: number, afterId = 0): ChunkToEmbed[] {
    return this.db.prepare(
      `SELECT c.id, f.repo_id AS repoId, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.id > ? AND (? IS NULL OR f.repo_id = ?)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id} v WHERE v.chunk_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id}_empty e WHERE e.chunk_id = c.id)
       ORDER BY c.id LIMIT ?`,
    ).all(afterId, repoId, repoId, limit) as ChunkToEmbed[];
  }

  countMissing(id: number, repoId: string | null): number {
    // Nothing is missing anywhere when the model holds as many entries as there are chunks (an entry
    // exists only for a live chunk: the trigger deletes it with its chunk). Three counts instead of
    // a lookup per chunk: a no-change restart of 25k chunks spent 1.9 s here.
    if (this.complete(id)) return 0;
    return (this.db.prepare(
      `SELECT count(*) AS n FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE (? IS NULL OR f.repo_id = ?)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id} v WHERE v.chunk_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id}_empty e WHERE e.chunk_id = c.id)`,
    ).get(repoId, repoId) as { n: number }).n;
  }

  /** True when every chunk has a vector or is known to have nothing to embed in model `id`. */
  private complete(id: number): boolean {
    const n = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return n(`SELECT count(*) AS n FROM vec_m${id}`) + n(`SELECT count(*) AS n FROM vec_m${id}_empty`) >= n('SELECT count(*) AS n FROM chunks');
  }

  chunkCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
  }

  /**
   * About `max` chunk texts spread evenly over the index (with their paths), to train a corpus model.
   * Taken in path order, not id order: chunk ids follow the order the parse processes finished in, and
   * the same files must train the same model (SAMPLE_SQL).
   */
  sampleTexts(max: number): string[] {
    const step = Math.max(1, Math.ceil(this.chunkCount() / max));
    const rows = this.db.prepare(SAMPLE_SQL.replace(/\$(\d)/g, '?')).all(step, max) as { text: string }[];
    return rows.map((r) => r.text);
  }

  /** Writes a batch of vectors (null: nothing to embed) in one transaction. */
  put(id: number, rows: { chunkId: number; repoId: string; vector: Float32Array | null }[]): void {
    const insert = this.db.prepare(`INSERT INTO vec_m${id} (chunk_id, repo_id, embedding) VALUES (?, ?, ?)`);
    const empty = this.db.prepare(`INSERT OR IGNORE INTO vec_m${id}_empty (chunk_id) VALUES (?)`);
    this.db.transaction(() => {
      for (const r of rows) {
        // sqlite-vec wants BigInt primary keys.
        if (r.vector) insert.run(BigInt(r.chunkId), r.repoId, r.vector);
        else empty.run(r.chunkId);
      }
    })();
  }

  /** Nearest chunks by cosine distance within the given repositories. */
  nearest(id: number, query: Float32Array, repoIds: string[], k: number): { chunkId: number; distance: number }[] {
    const rows = this.db.prepare(
      `SELECT chunk_id AS chunkId, distance FROM vec_m${id}
       WHERE embedding MATCH ? AND k = ? AND repo_id IN (SELECT value FROM json_each(?))`,
    ).all(query, k, JSON.stringify(repoIds)) as { chunkId: number; distance: number }[];
    return rows.sort((a, b) => a.distance - b.distance);
  }

  /** Every vector of a model, packed (for the in-memory scan that serves small indexes). */
  all(id: number, dims: number, repoId?: string): { ids: Int32Array; repos: string[]; data: Float32Array } {
    let rows = this.db.prepare(`SELECT chunk_id AS chunkId, repo_id AS repoId, embedding FROM vec_m${id}`).all() as
      { chunkId: number; repoId: string; embedding: Buffer }[];
    if (repoId !== undefined) rows = rows.filter((r) => r.repoId === repoId);
    const ids = new Int32Array(rows.length);
    const repos: string[] = new Array(rows.length);
    const data = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => {
      ids[i] = r.chunkId;
      repos[i] = r.repoId;
      data.set(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dims), i * dims);
    });
    return { ids, repos, data };
  }

  /** Statements of a dropped table must not be reused (ids are reused). */
  forget(id: number): void {
    forgetStatements(this.db, (sql) => sql.includes(`vec_m${id}`));
  }
}

/** What the engine programs against; SqliteVectorsStore is the implementation on SQLite. */
export type VectorsStore = Surface<SqliteVectorsStore>;
