/**
 * The team server's readiness probe of PostgreSQL (store/health.ts): one statement that reads the
 * applied migrations, on a connection of its own rather than the request pool's. A node whose pool
 * is busy answering is still ready; a probe waiting behind twenty searches for a pooled connection
 * would time out and take a loaded node out of the load balancer, moving its load onto the others.
 * The connection is kept between probes and replaced when it fails; a probe that does not answer
 * within `timeoutMs` reports `timeout` (and the connection is dropped). Concurrent probes share one
 * query.
 */
import pg from 'pg';
import type { DatabaseHealth } from '../health';
import { schemaState } from '../health';
import { PG_MIGRATIONS } from './migrations';

export class PgHealthProbe {
  private client: pg.Client | null = null;
  private running: Promise<DatabaseHealth> | null = null;
  private closed = false;

  constructor(private readonly url: string, private readonly timeoutMs = 2000) {}

  check(): Promise<DatabaseHealth> {
    if (this.closed) return Promise.resolve({ name: 'postgresql', reachable: 'unreachable', schema: 'unknown', latencyMs: 0, error: 'the storage is closed' });
    return (this.running ??= this.probe().finally(() => { this.running = null; }));
  }

  private async probe(): Promise<DatabaseHealth> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), this.timeoutMs); });
    const work = (async () => {
      if (!this.client) {
        const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.timeoutMs, application_name: 'loupe-health', statement_timeout: this.timeoutMs });
        client.on('error', () => { if (this.client === client) this.client = null; });
        this.client = client;
        await client.connect();
      }
      const rows = await this.client.query<{ version: number }>('SELECT version FROM loupe_schema');
      return rows.rows.map((r) => Number(r.version));
    })();
    try {
      const result = await Promise.race([work, timedOut]);
      const latencyMs = performance.now() - started;
      if (result === 'timeout') {
        this.drop();
        work.catch(() => undefined);
        return { name: 'postgresql', reachable: 'timeout', schema: 'unknown', latencyMs, error: `no answer within ${this.timeoutMs} ms` };
      }
      return { name: 'postgresql', reachable: 'ok', schema: schemaState(result, PG_MIGRATIONS.map((m) => m.version)), latencyMs };
    } catch (error) {
      this.drop();
      // 42P01: no loupe_schema table at all: reachable, but nothing is migrated.
      if ((error as { code?: string }).code === '42P01') return { name: 'postgresql', reachable: 'ok', schema: 'behind', latencyMs: performance.now() - started };
      return { name: 'postgresql', reachable: 'unreachable', schema: 'unknown', latencyMs: performance.now() - started, error: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  private drop(): void {
    const client = this.client;
    this.client = null;
    client?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
