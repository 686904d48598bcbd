import { before, after } from 'node:test';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS } from '../../server/engine/store/pg/index-stores';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { indexConformance } from './storage-conformance';
import { openPglite } from './pglite';

// The index side of the team server against the backend-neutral checks SQLite passes: on a real
// PostgreSQL 15 (Debian's, no pgvector: vectors as bytea, scanned by the node), and on PGlite with
// its bundled pgvector (vector(n), HNSW, <=>), the same stores and SQL text on both.
let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

indexConformance('PostgreSQL', async () => {
  const db = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  await migratePg(db, PG_INDEX_MIGRATIONS);
  const stores = openPgIndexStores(db);
  if ((await stores.vectors.storage()) !== 'bytea') throw new Error('expected no pgvector on Debian 12');
  return { ...stores, close: () => db.close() };
});

indexConformance('PGlite + pgvector', async () => {
  const lite = await openPglite(PG_INDEX_MIGRATIONS);
  const stores = openPgIndexStores(lite, { vectors: 'pgvector' });
  return { ...stores, close: () => lite.close() };
});
