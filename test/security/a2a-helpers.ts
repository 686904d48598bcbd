import { randomUUID } from 'node:crypto';
import { createHttpApp, type HttpAppOptions } from '../../server/host';
import { createTestEngine, type TestEngine } from '../helpers/engine';
import type { FastifyInstance } from 'fastify';

export interface A2aTestApp extends TestEngine {
  app: FastifyInstance;
  /** One JSON-RPC call; `headers` are the HTTP headers of the A2A request. */
  rpc(method: string, params: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: any }>;
  /** Every stored task, as the text the database holds. */
  stored(): string;
  taskCount(): number;
}

/** A real engine on a temp data dir and the HTTP app with A2A, called in-process. */
export async function a2aApp(options: HttpAppOptions['a2a'] = {}): Promise<A2aTestApp> {
  // Password sign-ups active at once, so an A2A sign-up hands out a live key and session to look for.
  const t = createTestEngine({ accounts: { auth: { passwordSignupRequiresVerification: false } } });
  const app = await createHttpApp(t.engine, { a2a: options });
  await app.ready();
  const rpc: A2aTestApp['rpc'] = async (method, params, headers = {}) => {
    const res = await app.inject({ method: 'POST', url: '/a2a/jsonrpc', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) };
  };
  const stored = () => (t.engine.db.prepare('SELECT task_json FROM a2a_tasks').all() as { task_json: string }[]).map((r) => r.task_json).join('\n');
  const taskCount = () => (t.engine.db.prepare('SELECT count(*) AS n FROM a2a_tasks').get() as { n: number }).n;
  return { ...t, app, rpc, stored, taskCount, close: async () => { await app.close(); await t.close(); } };
}

export const userMessage = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ message: { kind: 'message', messageId: randomUUID(), role: 'user', parts, ...extra } });
export const operation = (data: Record<string, unknown>) => userMessage([{ kind: 'data', data }]);
