import { LoupeError } from '../../errors';
import { nowIso } from '../../util/ids';
import type { Async } from '../surface';
import { SAMPLE_SQL, type ChunkToEmbed, type EmbeddingModelRow, type VectorsStore } from '../vectors-store';
import type { PgSql } from './sql';

/** How a model's vectors are kept: pgvector's `vector(n)` (HNSW index, `<=>` in SQL), or `bytea` scanned here. */
export type VectorStorage = 'pgvector' | 'bytea';

/** pgvector indexes `vector` columns with HNSW up to this width; wider models are scanned exactly in SQL. */
const HNSW_MAX_DIMS = 2000;
/** pgvector's ceiling for hnsw.ef_search. */
const EF_SEARCH_MAX = 1000;

const vectorText = (v: Float32Array) => `[${Array.from(v).join(',')}]`;
const bytesOf = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const floatsOf = (b: Uint8Array, dims: number) => {
  const copy = new Uint8Array(dims * 4);
  copy.set(b.subarray(0, dims * 4));
  return new Float32Array(copy.buffer);
};

/**
 * Vectors on PostgreSQL: one table per embedding model (`vec_m<id>`, its width is the model's), and a
 * side table of chunks with nothing to embed, both removed with their chunk by a cascading foreign key.
 *
 * With pgvector (every managed PostgreSQL offers it; `CREATE EXTENSION vector` is tried once), the
 * column is `vector(n)` with an HNSW index (cosine), and `nearest` is one ORDER BY `<=>` … LIMIT k
 * with `hnsw.ef_search` raised to k and pgvector 0.8's iterative scan, so a repository filter still
 * fills k. HNSW is approximate where sqlite-vec is exact: on large indexes a true neighbour can be
 * missed (recall ≈ 0.95–0.99 at these settings). Without pgvector the column is `bytea` (float32,
 * little-endian) and `nearest` reads the repositories' vectors and ranks them here: exact, but the API
 * node reads every vector of the searched repositories per query (≈ 1.5 KB per 384-wide chunk: fine
 * for tens of thousands of chunks, not for millions). A model keeps the storage it was created with.
 */
export class PgVectorsStore implements Async<VectorsStore> {
  private storageNow?: Promise<VectorStorage>;
  private readonly storageOf = new Map<number, VectorStorage>();

  constructor(private readonly db: PgSql, private readonly prefer: VectorStorage | 'auto' = 'auto') {}

  /** pgvector when the extension is there or can be created (and not refused by `prefer`), else bytea. */
  storage(): Promise<VectorStorage> {
    this.storageNow ??= (async (): Promise<VectorStorage> => {
      if (this.prefer === 'bytea') return 'bytea';
      if (await this.db.one("SELECT 1 FROM pg_extension WHERE extname = 'vector'")) return 'pgvector';
      try {
        await this.db.transaction(async () => { await this.db.query('CREATE EXTENSION IF NOT EXISTS vector'); });
        return 'pgvector';
      } catch (error) {
        if (this.prefer === 'pgvector') throw error;
        return 'bytea';
      }
    })();
    return this.storageNow;
  }

  /** The storage a model's table was created with (read from the catalog once). */
  private async modelStorage(id: number): Promise<VectorStorage> {
    const known = this.storageOf.get(id);
    if (known) return known;
    const row = await this.db.one<{ type: string }>(
      `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
       WHERE a.attrelid = to_regclass($1) AND a.attname = 'embedding'`, [`vec_m${id}`]);
    if (!row) throw new LoupeError('INTERNAL', `no vector table for embedding model ${id}`);
    const storage: VectorStorage = row.type === 'bytea' ? 'bytea' : 'pgvector';
    this.storageOf.set(id, storage);
    return storage;
  }

  /**
   * Whether a model's KNN runs in the database (pgvector: its HNSW index, or an exact scan in SQL past
   * HNSW's width): an API node then holds none of its vectors in memory (VectorIndex). False for bytea,
   * and for a model whose table is gone (retired meanwhile).
   */
  async indexedKnn(id: number): Promise<boolean> {
    try {
      return (await this.modelStorage(id)) === 'pgvector';
    } catch {
      return false;
    }
  }

  async models(): Promise<EmbeddingModelRow[]> {
    return this.db.rows<EmbeddingModelRow>(
      `SELECT id, provider, name, dims, state, trained_chunks AS "trainedChunks", created_at AS "createdAt" FROM embedding_models ORDER BY id`);
  }

  async modelData(id: number): Promise<Buffer | null> {
    const row = await this.db.one<{ data: Uint8Array | null }>('SELECT data FROM embedding_models WHERE id = $1', [id]);
    return row?.data ? Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength) : null;
  }

  async addModel(provider: string, name: string, dims: number, data: Buffer | null, trainedChunks: number): Promise<number> {
    if (!Number.isInteger(dims) || dims < 1 || dims > 8192) throw new LoupeError('VALIDATION_FAILED', `invalid embedding width ${dims}`);
    const storage = await this.storage();
    return this.db.transaction(async () => {
      const { id } = (await this.db.one<{ id: number }>(
        `INSERT INTO embedding_models (provider, name, dims, state, data, trained_chunks, created_at)
         VALUES ($1, $2, $3, 'building', $4, $5, $6) RETURNING id`, [provider, name, dims, data, trainedChunks, nowIso()]))!;
      const column = storage === 'pgvector' ? `vector(${dims})` : 'bytea';
      await this.db.query(`CREATE TABLE vec_m${id} (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        repo_id TEXT NOT NULL,
        embedding ${column} NOT NULL)`);
      await this.db.query(`CREATE INDEX vec_m${id}_repo ON vec_m${id} (repo_id)`);
      if (storage === 'pgvector' && dims <= HNSW_MAX_DIMS) {
        await this.db.query(`CREATE INDEX vec_m${id}_hnsw ON vec_m${id} USING hnsw (embedding vector_cosine_ops)`);
      }
      await this.db.query(`CREATE TABLE vec_m${id}_empty (chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE)`);
      this.storageOf.set(id, storage);
      return id;
    });
  }

  async activate(id: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.query("UPDATE embedding_models SET state = 'retired' WHERE id != $1 AND state = 'active'", [id]);
      await this.db.query("UPDATE embedding_models SET state = 'active', activated_at = $1 WHERE id = $2", [nowIso(), id]);
    });
  }

  async dropModel(id: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.query(`DROP TABLE IF EXISTS vec_m${id}`);
      await this.db.query(`DROP TABLE IF EXISTS vec_m${id}_empty`);
      await this.db.query('DELETE FROM embedding_models WHERE id = $1', [id]);
    });
    this.storageOf.delete(id);
  }

  async missing(id: number, repoId: string | null, limit: number, afterId = 0): Promise<ChunkToEmbed[]> {
    return this.db.rows<ChunkToEmbed>(
      `SELECT c.id, f.repo_id AS "repoId", f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.id > $1 AND ($2::text IS NULL OR f.repo_id = $2)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id} v WHERE v.chunk_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id}_empty e WHERE e.chunk_id = c.id)
       ORDER BY c.id LIMIT $3`, [afterId, repoId, limit]);
  }

  async countMissing(id: number, repoId: string | null): Promise<number> {
    if (await this.complete(id)) return 0;
    return (await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE ($1::text IS NULL OR f.repo_id = $1)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id} v WHERE v.chunk_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM vec_m${id}_empty e WHERE e.chunk_id = c.id)`, [repoId]))!.n;
  }

  private async complete(id: number): Promise<boolean> {
    const row = (await this.db.one<{ held: number; chunks: number }>(
      `SELECT (SELECT count(*) FROM vec_m${id})::float8 + (SELECT count(*) FROM vec_m${id}_empty)::float8 AS held,
              (SELECT count(*) FROM chunks)::float8 AS chunks`))!;
    return row.held >= row.chunks;
  }

  async chunkCount(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*)::int AS n FROM chunks'))!.n;
  }

  async sampleTexts(max: number): Promise<string[]> {
    const step = Math.max(1, Math.ceil((await this.chunkCount()) / max));
    return (await this.db.rows<{ text: string }>(
      SAMPLE_SQL.replace('char(10)', 'chr(10)').replace('f.repo_id, f.path, c.seq', 'f.repo_id COLLATE "C", f.path COLLATE "C", c.seq'), [step, max])).map((r) => r.text);
  }

  async put(id: number, rows: { chunkId: number; repoId: string; vector: Float32Array | null }[]): Promise<void> {
    const storage = await this.modelStorage(id);
    const full = rows.filter((r): r is { chunkId: number; repoId: string; vector: Float32Array } => !!r.vector);
    const empty = rows.filter((r) => !r.vector).map((r) => r.chunkId);
    await this.db.transaction(async () => {
      // ON CONFLICT: two workers may embed the same chunk (one filling every repository for a new model
      // while another's run wrote it); both wrote the same model's vector of the same text.
      if (full.length) {
        await this.db.query(storage === 'pgvector'
          ? `INSERT INTO vec_m${id} (chunk_id, repo_id, embedding) SELECT c, r, e::vector FROM unnest($1::int[], $2::text[], $3::text[]) AS x(c, r, e) ON CONFLICT DO NOTHING`
          : `INSERT INTO vec_m${id} (chunk_id, repo_id, embedding) SELECT * FROM unnest($1::int[], $2::text[], $3::bytea[]) ON CONFLICT DO NOTHING`,
        [full.map((r) => r.chunkId), full.map((r) => r.repoId), full.map((r) => (storage === 'pgvector' ? vectorText(r.vector) : bytesOf(r.vector)))]);
      }
      if (empty.length) {
        await this.db.query(`INSERT INTO vec_m${id}_empty (chunk_id) SELECT * FROM unnest($1::int[]) ON CONFLICT DO NOTHING`, [empty]);
      }
    });
  }

  async nearest(id: number, query: Float32Array, repoIds: string[], k: number): Promise<{ chunkId: number; distance: number }[]> {
    if (!repoIds.length || k <= 0) return [];
    try {
      return await this.nearestIn(id, query, repoIds, k);
    } catch (error) {
      // A worker retired the model between this node reading it as active and asking for its vectors
      // (its table dropped): no vector hits for this one search; the next reads the new model.
      if ((error as { code?: string }).code === '42P01') return [];
      throw error;
    }
  }

  private async nearestIn(id: number, query: Float32Array, repoIds: string[], k: number): Promise<{ chunkId: number; distance: number }[]> {
    if ((await this.modelStorage(id)) === 'bytea') return this.scan(id, query, repoIds, k);
    return this.db.transaction(async () => {
      // Enough candidates for k, and (pgvector 0.8) scanning on while the repository filter drops rows.
      await this.db.query(`SET LOCAL hnsw.ef_search = ${Math.min(EF_SEARCH_MAX, Math.max(40, Math.trunc(k)))}`);
      await this.db.query("SET LOCAL hnsw.iterative_scan = 'strict_order'");
      return this.db.rows<{ chunkId: number; distance: number }>(
        `SELECT chunk_id AS "chunkId", embedding <=> $1::vector AS distance FROM vec_m${id}
         WHERE repo_id = ANY($2::text[]) ORDER BY embedding <=> $1::vector LIMIT $3`, [vectorText(query), repoIds, k]);
    });
  }

  /** bytea: every vector of the repositories, ranked by cosine distance here (exact). */
  private async scan(id: number, query: Float32Array, repoIds: string[], k: number): Promise<{ chunkId: number; distance: number }[]> {
    const rows = await this.db.rows<{ chunk_id: number; embedding: Uint8Array }>(
      `SELECT chunk_id, embedding FROM vec_m${id} WHERE repo_id = ANY($1::text[])`, [repoIds]);
    let qq = 0;
    for (const x of query) qq += x * x;
    const out: { chunkId: number; distance: number }[] = [];
    for (const r of rows) {
      const v = floatsOf(r.embedding, query.length);
      let dot = 0;
      let vv = 0;
      for (let i = 0; i < v.length; i++) { dot += v[i]! * query[i]!; vv += v[i]! * v[i]!; }
      out.push({ chunkId: r.chunk_id, distance: qq && vv ? 1 - dot / Math.sqrt(qq * vv) : 1 });
    }
    return out.sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId).slice(0, k);
  }

  /** Every vector of a model (of one repository when `repoId` is given), packed: an API node's in-memory copy. */
  async all(id: number, dims: number, repoId?: string): Promise<{ ids: Int32Array; repos: string[]; data: Float32Array }> {
    const storage = await this.modelStorage(id);
    const rows = await this.db.rows<{ chunk_id: number; repo_id: string; embedding: Uint8Array | number[] }>(
      `SELECT chunk_id, repo_id, ${storage === 'pgvector' ? 'embedding::real[]' : 'embedding'} AS embedding FROM vec_m${id}
       ${repoId === undefined ? '' : 'WHERE repo_id = $1'} ORDER BY chunk_id`, repoId === undefined ? [] : [repoId]);
    const ids = new Int32Array(rows.length);
    const repos: string[] = new Array(rows.length);
    const data = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => {
      ids[i] = r.chunk_id;
      repos[i] = r.repo_id;
      data.set(Array.isArray(r.embedding) ? r.embedding.map(Number).slice(0, dims) : floatsOf(r.embedding, dims), i * dims);
    });
    return { ids, repos, data };
  }

  /** Nothing is compiled per table here (SQLite's statement cache needs this). */
  async forget(): Promise<void> {}
}
