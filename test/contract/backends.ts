import assert from 'node:assert/strict';
import os from 'node:os';
import { copyFixture, createTestApp } from '../helpers/engine';
import { indexThroughTeam, startTeamServer, type TeamServer } from '../helpers/team-server';
import { setUp, type Ctx } from './valid-requests';
import type { Injector } from './contract-helpers';

/**
 * Where the contract suite runs: the embedded engine (SQLite, in-process through inject) and a team
 * server (real `server/serve.ts` and `server/worker.ts` processes on a private PostgreSQL, over
 * HTTP on 127.0.0.1). The suite's cases are the same; only how a request reaches the server and how
 * the facts it needs (an indexed folder, ids, a spare key) are made differ.
 */
export interface ContractBackend extends Injector {
  name: 'sqlite' | 'team';
  key: string;
  /** An indexed folder and real ids (valid-requests.ts). */
  setUp(): Promise<Ctx>;
  /** inject() with the owner's key, the body parsed. */
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function sqliteBackend(): Promise<ContractBackend> {
  const t = await createTestApp();
  return {
    name: 'sqlite', key: t.key,
    inject: (o) => t.app.inject({ method: o.method as never, url: o.url, payload: o.payload, headers: o.headers }),
    setUp: () => setUp(t),
    call: t.call,
    close: t.close,
  };
}

export async function teamBackend(): Promise<ContractBackend> {
  const team: TeamServer = await startTeamServer();
  try {
    const node = await team.node('contract', { allow: [os.tmpdir()] });
    await team.worker();
    const inject: Injector['inject'] = async (o) => {
      const res = await fetch(node.base + o.url, { method: o.method, headers: o.headers, body: o.payload });
      return { statusCode: res.status, headers: Object.fromEntries((res.headers as unknown as Iterable<[string, string]>)), body: await res.text() };
    };
    return {
      name: 'team', key: team.key, inject,
      async setUp() {
        const folder = copyFixture('ts-paths');
        const repoId = await indexThroughTeam(team, node.base, folder);
        const files = await team.call(node.base, 'GET', `/v2/files/${repoId}?search=math`);
        assert.equal(files.status, 200, JSON.stringify(files.body));
        const history = await team.call(node.base, 'GET', '/v2/history?limit=100');
        const rows = (history.body?.data ?? []) as { history_id: string; conversation_id: string | null }[];
        // A spare key of the owner's to delete: an agent credential (a key row of its own) minted over HTTP.
        const spare = await team.call(node.base, 'POST', '/v2/agent/credentials');
        assert.equal(spare.status, 200, JSON.stringify(spare.body));
        return {
          folder, repoId, fileId: files.body.data[0].id, historyId: rows[0]?.history_id,
          conversationId: rows.find((r) => r.conversation_id)?.conversation_id ?? undefined, spareKeyId: spare.body.data.key_id,
        };
      },
      async call(method, url, body) {
        const r = await team.call(node.base, method, url, body);
        return { status: r.status, body: r.body, headers: Object.fromEntries((r.headers as unknown as Iterable<[string, string]>)) };
      },
      close: () => team.stop(),
    };
  } catch (error) {
    await team.stop();
    throw error;
  }
}
