import assert from 'node:assert/strict';
import os from 'node:os';
import { after } from 'node:test';
import pg from 'pg';
import { Agent, fetch } from 'undici';
import { copyFixture, createTestApp } from '../helpers/engine';
import { startTeamServer, until, type TeamServer } from '../helpers/team-server';
import { rowCounts } from '../helpers/db-snapshot';
import { addUser } from '../accounts/helpers';
import { newId, sha256 } from '../../server/engine/util/ids';
import { keyHint } from '../../server/engine/accounts/accounts';
import type { AccountsConfig } from '../../server/engine/accounts/accounts';
import { setUp, type Ctx } from './valid-requests';
import type { Injector } from './contract-helpers';

/**
 * Where the contract suites run: the embedded engine (SQLite, in-process through inject) and a team
 * server (real `server/serve.ts` and `server/worker.ts` processes on a private PostgreSQL, over
 * HTTP on 127.0.0.1). The suites' cases are the same; only how a request reaches the server and how
 * the facts it needs (an indexed folder, ids, a spare key, a second user, row counts) are made differ.
 */
export interface ContractBackend extends Injector {
  name: 'sqlite' | 'team';
  key: string;
  /** An indexed folder and real ids (valid-requests.ts). */
  setUp(): Promise<Ctx>;
  /**
   * Registers one more folder (as the owner, or as the holder of `key`) and waits until it is
   * indexed and every derived step is done (nothing is written after); its repo id.
   */
  index(folder: string, key?: string): Promise<string>;
  /** inject() with the owner's key (or `headers`), the body parsed. */
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** A user who is not the owner, with an active key of their own. */
  addUser(opts: { plan?: string; credits?: number }): Promise<{ userId: string; key: string; keyId: string }>;
  /**
   * Row counts of every table the server writes (SQLite: the index and accounts databases;
   * PostgreSQL: every table of the team database, the job queue's included): "nothing written".
   */
  rowCounts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export interface BackendOptions {
  /** accounts.json (plans, costs, the owner's credits, shared folders), the same on both backends. */
  accounts?: AccountsConfig;
}

export async function sqliteBackend(options: BackendOptions = {}): Promise<ContractBackend> {
  const t = await createTestApp(options.accounts ? { accounts: options.accounts } : {});
  return {
    name: 'sqlite', key: t.key,
    inject: (o) => t.app.inject({ method: o.method as never, url: o.url, payload: o.payload, headers: o.headers }),
    setUp: () => setUp(t),
    async index(folder, key) {
      const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder }, key ? { 'x-api-key': key } : {});
      assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
      await t.engine.queue.idle();
      return indexed.body.data.repo.repo_id;
    },
    call: t.call,
    async addUser(opts) {
      const u = addUser(t, opts);
      return { userId: u.userId, key: u.key, keyId: u.keyId };
    },
    rowCounts: async () => rowCounts(t.engine.db),
    close: t.close,
  };
}

export async function teamBackend(options: BackendOptions = {}): Promise<ContractBackend> {
  const team: TeamServer = await startTeamServer();
  let client: pg.Client | null = null;
  let closeAgent = async () => undefined as unknown;
  try {
    const node = await team.node('contract', { allow: [os.tmpdir()], accounts: options.accounts });
    await team.worker();
    client = new pg.Client({ connectionString: team.url });
    await client.connect();
    const db = client;
    // One statement that counts every table: the team database's and the job queue's (a job a refused call queued is a write).
    const tables = (await db.query<{ name: string }>(`SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)).rows.map((r) => r.name);
    const countSql = `SELECT ${tables.map((t, i) => `(SELECT count(*) FROM ${t})::int AS c${i}`).join(', ')}`;
    // A pooled connection is dropped after 10 s idle, long before the node's keep-alive timeout (72 s): a
    // request sent on a connection the node had closed while a long SQLite test held this event loop
    // failed as "fetch failed" (the suites alternate backends, so the team server idles for minutes).
    const dispatcher = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 10_000 });
    closeAgent = () => dispatcher.close();
    const inject: Injector['inject'] = async (o) => {
      const res = await fetch(node.base + o.url, { method: o.method, headers: o.headers, body: o.payload, dispatcher });
      return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
    };
    const call: ContractBackend['call'] = async (method, url, body, headers) => {
      const res = await inject({
        method, url, payload: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'x-api-key': team.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      });
      let parsed: unknown = res.body;
      try { parsed = JSON.parse(res.body); } catch { /* not JSON */ }
      return { status: res.statusCode, body: parsed, headers: res.headers };
    };
    const index = async (folder: string, key?: string) => {
      const as = key ? { 'x-api-key': key } : undefined;
      const registered = await call('POST', '/v2/repos/index/new', { url: folder }, as);
      assert.equal(registered.status, 200, JSON.stringify(registered.body));
      const repoId = await until('indexed by the worker', null, async () => {
        const s = await call('POST', '/v2/repos/status', { url: folder }, as);
        assert.equal(s.status, 200, JSON.stringify(s.body));
        assert.notEqual(s.body.data.state, 'failed', JSON.stringify(s.body.data));
        return s.body.data.state === 'ready' ? (s.body.data.repo_id as string) : undefined;
      }, 300_000);
      // The worker's derived steps (vectors, file docs) run after `ready`, in the same job: wait until the queue is empty.
      await until('the worker\'s job done', null, async () => (Number((await db.query('SELECT count(*) AS n FROM graphile_worker._private_jobs')).rows[0].n) === 0 ? true : undefined), 300_000);
      return repoId;
    };
    return {
      name: 'team', key: team.key, inject, index, call,
      async setUp() {
        const folder = copyFixture('ts-paths');
        const repoId = await index(folder);
        const files = await call('GET', `/v2/files/${repoId}?search=math`);
        assert.equal(files.status, 200, JSON.stringify(files.body));
        const history = await call('GET', '/v2/history?limit=100');
        const rows = (history.body?.data ?? []) as { history_id: string; conversation_id: string | null }[];
        // A spare key of the owner's to delete: an agent credential (a key row of its own) minted over HTTP.
        const spare = await call('POST', '/v2/agent/credentials');
        assert.equal(spare.status, 200, JSON.stringify(spare.body));
        return {
          folder, repoId, fileId: files.body.data[0].id, historyId: rows[0]?.history_id,
          conversationId: rows.find((r) => r.conversation_id)?.conversation_id ?? undefined, spareKeyId: spare.body.data.key_id,
        };
      },
      async addUser(opts) {
        // Straight into the team database, as test/accounts/helpers.ts does on SQLite (sign-up has its own tests).
        const userId = newId();
        const key = newId();
        const keyId = newId();
        await db.query('INSERT INTO users (id, email, display_name, plan, is_owner, created_at, credit_limit) VALUES ($1, $2, NULL, $3, 0, $4, $5)',
          [userId, `${userId}@example.test`, opts.plan ?? 'FREE', new Date().toISOString(), opts.credits ?? null]);
        await db.query(`INSERT INTO api_keys (id, user_id, key_hash, key_hint, state, is_primary, created_at, kind)
          VALUES ($1, $2, $3, $4, 'active', 1, $5, 'primary')`, [keyId, userId, sha256(key), keyHint(key), new Date().toISOString()]);
        return { userId, key, keyId };
      },
      async rowCounts() {
        const row = (await db.query(countSql)).rows[0] as Record<string, number>;
        return Object.fromEntries(tables.map((t, i) => [t, row[`c${i}`]!]));
      },
      async close() {
        await closeAgent().catch(() => undefined);
        await db.end().catch(() => undefined);
        await team.stop();
      },
    };
  } catch (error) {
    await closeAgent().catch(() => undefined);
    await client?.end().catch(() => undefined);
    await team.stop();
    throw error;
  }
}

export const BACKEND_NAMES: ContractBackend['name'][] = ['sqlite', 'team'];

/**
 * The backends of one test file: SQLite fresh per call of `withBackend`, the team server started at
 * most once for the file (its start is the slow part) and stopped in `after()`, also when a test
 * failed or the start itself did.
 */
export function contractBackends(options: BackendOptions = {}) {
  let team: Promise<ContractBackend> | null = null;
  after(async () => { await (await team?.catch(() => null))?.close(); });
  return {
    names: BACKEND_NAMES,
    async withBackend(name: ContractBackend['name'], run: (t: ContractBackend) => Promise<void>): Promise<void> {
      if (name === 'team') return run(await (team ??= teamBackend(options)));
      const t = await sqliteBackend(options);
      try { await run(t); } finally { await t.close(); }
    },
  };
}
