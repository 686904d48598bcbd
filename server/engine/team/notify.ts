/**
 * A repository's new generation, announced with PostgreSQL's NOTIFY and heard by every API node.
 *
 * - **Who announces.** A row trigger on `repo_generations` (index migration 110) sends
 *   `NOTIFY loupe_index, '<repo id>'` for every transaction that moves a repository's generation (a
 *   slice of files written, files deleted, imports relinked), whichever process writes: nothing can
 *   forget it. The worker announces once more after its derived indexes (vectors, file docs), which
 *   do not move the generation (`announceRepository`). NOTIFY is sent at COMMIT (never for a rolled
 *   back transaction), after the rows are visible to every other session, and one transaction's
 *   identical notifications are folded into one.
 * - **Who listens.** Each API node holds one dedicated connection (not from its pool) that LISTENs
 *   (`IndexListener`) and tells the engine's caches (the import graph, the vector memory) which
 *   repository changed. While it is connected the caches are trusted without asking the database
 *   (`live`); when it drops, every cache is dropped (changes may go unheard) and the caches check the
 *   generation per request again until the listener has reconnected (backing off from 100 ms to 5 s)
 *   and LISTENs; then everything is dropped once more, since notifications of the gap are lost. A
 *   ping every few seconds finds a connection that died silently (a vanished server).
 */
import pg from 'pg';
import type { Logger } from '../log';
import type { PgConnection } from '../store/pg/sql';
import type { IndexChangeListener, IndexEvents } from './index-events';

export const INDEX_CHANNEL = 'loupe_index';

/** Announces that a repository's index changed in ways the generation does not count (vectors, docs). */
export async function announceRepository(db: PgConnection, repoId: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [INDEX_CHANNEL, repoId]);
}

export interface IndexListenerOptions {
  /** First reconnection delay (ms, default 100; doubles up to `maxRetryMs`). */
  retryMs?: number;
  maxRetryMs?: number;
  /** How often the connection is checked (ms, default 5 000); a ping unanswered for as long drops it. */
  pingMs?: number;
}

export class IndexListener implements IndexEvents {
  private readonly listeners = new Set<IndexChangeListener>();
  private closed = false;
  private connected = false;
  private readonly loop: Promise<void>;
  private firstConnect!: () => void;
  /** Resolves once the first LISTEN succeeded (or the listener was closed). */
  readonly ready: Promise<void>;
  /** Notifications heard and connections made (the tests and the log). */
  heard = 0;
  connections = 0;
  private dropCurrent: (() => void) | null = null;

  constructor(private readonly url: string, private readonly log: Logger, private readonly options: IndexListenerOptions = {}) {
    this.ready = new Promise((resolve) => { this.firstConnect = resolve; });
    this.loop = this.run();
  }

  get live(): boolean {
    return this.connected && !this.closed;
  }

  subscribe(listener: IndexChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(repoId: string | null): void {
    for (const l of this.listeners) {
      try {
        if (repoId === null) l.reset(); else l.changed(repoId);
      } catch (error) {
        this.log.warn('an index change listener failed:', error as Error);
      }
    }
  }

  private async run(): Promise<void> {
    const first = this.options.retryMs ?? 100;
    const max = this.options.maxRetryMs ?? 5_000;
    const pingMs = this.options.pingMs ?? 5_000;
    let delay = first;
    while (!this.closed) {
      const client = new pg.Client({ connectionString: this.url, keepAlive: true, application_name: 'loupe-listen' });
      let ping: NodeJS.Timeout | null = null;
      try {
        const lost = new Promise<string>((resolve) => {
          this.dropCurrent = () => resolve('closed');
          client.on('error', (error) => resolve(error.message));
          client.on('end', () => resolve('the connection ended'));
        });
        client.on('notification', (message) => {
          if (message.channel !== INDEX_CHANNEL || !message.payload) return;
          this.heard++;
          this.emit(message.payload);
        });
        await client.connect();
        await client.query(`LISTEN ${INDEX_CHANNEL}`);
        if (this.closed) break;
        this.connections++;
        // Whatever was cached before this LISTEN may have missed a change: drop it, then trust.
        this.emit(null);
        this.connected = true;
        delay = first;
        this.log.info(`listening for index changes (${INDEX_CHANNEL})${this.connections > 1 ? ' again' : ''}`);
        this.firstConnect();
        let pinging = false;
        const pinged = new Promise<string>((resolve) => {
          ping = setInterval(() => {
            if (pinging) return resolve(`no answer to a ping in ${pingMs} ms`);
            pinging = true;
            client.query('SELECT 1').then(() => { pinging = false; }, (error: Error) => resolve(error.message));
          }, pingMs);
          ping.unref();
        });
        const why = await Promise.race([lost, pinged]);
        if (this.closed) break;
        this.log.warn(`lost the index change listener's connection (${why}); caches are checked per request until it is back`);
      } catch (error) {
        if (this.closed) break;
        this.log.warn(`cannot listen for index changes (${(error as Error).message}); retrying in ${delay} ms`);
      } finally {
        if (ping) clearInterval(ping);
        const wasLive = this.connected;
        this.connected = false;
        this.dropCurrent = null;
        if (wasLive) this.emit(null);
        client.removeAllListeners('notification');
        client.on('error', () => undefined);
        // end() waits for the server; a dead socket is destroyed instead.
        void client.end().catch(() => undefined);
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }
      if (this.closed) break;
      await new Promise((r) => setTimeout(r, delay).unref());
      delay = Math.min(max, delay * 2);
    }
    this.firstConnect();
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.dropCurrent?.();
    await this.loop;
  }
}
