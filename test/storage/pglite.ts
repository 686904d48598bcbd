/**
 * PostgreSQL in WebAssembly (PGlite 0.3) with pgvector and pg_trgm, behind the connection the index
 * stores take (pg/sql.ts): Debian 12 packages no pgvector, so its SQL is tested here. One session:
 * transactions are BEGIN/COMMIT on it (nested: savepoints), one at a time.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgConnection, Row } from '../../server/engine/store/pg/sql';
import type { PgMigration } from '../../server/engine/store/pg/migrate';

export interface PgliteConnection extends PgConnection {
  lite: PGlite;
  close(): Promise<void>;
}

export async function openPglite(migrations: PgMigration[]): Promise<PgliteConnection> {
  const lite = await PGlite.create({ extensions: { vector, pg_trgm } });
  for (const m of migrations) await lite.exec(m.sql);
  const inTx = new AsyncLocalStorage<number>();
  let queue: Promise<unknown> = Promise.resolve();
  let savepoints = 0;
  const query = async (text: string, values: unknown[] = []) => {
    const r = await lite.query<Row>(text, values);
    return { rows: r.rows, rowCount: r.affectedRows ?? null };
  };
  return {
    lite,
    query,
    async transaction<T>(work: () => Promise<T>): Promise<T> {
      const depth = inTx.getStore();
      if (depth !== undefined) {
        const name = `sp${++savepoints}`;
        await query(`SAVEPOINT ${name}`);
        try {
          const result = await inTx.run(depth + 1, work);
          await query(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (error) {
          await query(`ROLLBACK TO SAVEPOINT ${name}`);
          throw error;
        }
      }
      const run = queue.then(async () => {
        await query('BEGIN');
        try {
          const result = await inTx.run(0, work);
          await query('COMMIT');
          return result;
        } catch (error) {
          await query('ROLLBACK');
          throw error;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    close: () => lite.close(),
  };
}
