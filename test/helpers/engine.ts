import fs from 'node:fs';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { EngineCore, type EngineConfig } from '../../server/engine/core';
import { silentLogger } from '../../server/engine/log';
import { createHttpApp } from '../../server/host';
import { newId } from '../../server/engine/util/ids';
import { openDatabase, type Db } from '../../server/engine/store/db';

export const FIXTURES = path.join(__dirname, '..', 'fixtures');

/** A fresh temporary folder, removed when the process exits. */
export function tempDir(prefix = 'loupe-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The index of a data dir as the engine opens it (loupe.db with accounts.db attached, every migration applied). */
export function openIndexIn(dataDir: string): Db {
  return openDatabase(path.join(dataDir, 'loupe.db'), silentLogger, { accountsFile: path.join(dataDir, 'accounts.db') });
}

/** Copies a fixture workspace to a temp folder so tests may change it. */
export function copyFixture(name: string): string {
  const target = path.join(tempDir(`loupe-${name}-`), name);
  fs.cpSync(path.join(FIXTURES, name), target, { recursive: true });
  return target;
}

/**
 * accounts.json's `sharedFolders` sharing the temp folder with every user: for tests where users
 * other than the owner index local fixture copies (local folders are otherwise the owner's alone).
 */
export const SHARE_TMP_WITH_EVERYONE = { sharedFolders: [{ path: os.tmpdir(), users: ['*'] }] };

export interface TestEngine {
  engine: EngineCore;
  dataDir: string;
  ownerId: string;
  key: string;
  close(): Promise<void>;
}

/** A real engine on a real SQLite file in a temp data dir, with an owner and a known key. */
export function createTestEngine(config: Partial<EngineConfig> = {}): TestEngine {
  const dataDir = config.dataDir ?? tempDir('loupe-data-');
  // GitHub's API is a closed local port unless a test stands one in: nothing reaches the internet.
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [os.tmpdir(), FIXTURES], githubApiUrl: 'http://127.0.0.1:9', ...config });
  const key = newId();
  const { userId } = engine.accounts.ensureOwner(key);
  return { engine, dataDir, ownerId: userId, key, close: () => engine.close() };
}

/** Registers a folder for the owner and waits until it is indexed. */
export async function indexFolder(t: TestEngine, folder: string) {
  const repo = t.engine.repos.registerLocalFolder(t.ownerId, folder);
  await t.engine.queue.idle();
  return t.engine.reposStore.get(repo.id)!;
}

export interface TestApp extends TestEngine {
  app: FastifyInstance;
  /** inject() with the owner's key. */
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
}

export async function createTestApp(config: Partial<EngineConfig> = {}): Promise<TestApp> {
  const t = createTestEngine(config);
  const app = await createHttpApp(t.engine);
  await app.ready();
  const call: TestApp['call'] = async (method, url, body, headers = {}) => {
    const res = await app.inject({
      method: method as never, url, payload: body as never,
      headers: { 'x-api-key': t.key, ...headers },
    });
    let parsed: unknown = res.body;
    try { parsed = JSON.parse(res.body); } catch { /* not JSON */ }
    return { status: res.statusCode, body: parsed, headers: res.headers };
  };
  return { ...t, app, call, close: async () => { await app.close(); await t.engine.close(); } };
}

/** Indexes a folder through the API (`POST /v2/repos/index/new`), waits for the run, and returns the repository's id. */
export async function indexedRepo(t: TestApp, folder: string): Promise<string> {
  const res = await t.call('POST', '/v2/repos/index/new', { url: folder });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await t.engine.queue.idle();
  return res.body.data.repo.repo_id;
}

/** The dependents of a file (or `file#symbol`) by `POST /v2/repos/{id}/radius`, as `depth path`, in the route's order. */
export async function dependentsOf(t: TestApp, repoId: string, file: string): Promise<string[]> {
  const r = await t.call('POST', `/v2/repos/${repoId}/radius`, { file, include: ['dependents'], limit: 10000 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.data.targets[0].dependents as { file_path: string; depth: number }[]).map((d) => `${d.depth} ${d.file_path}`);
}

/** `indexedRepo`, then the repository's blueprint (`data`). */
export async function blueprintOf(t: TestApp, folder: string) {
  const bp = await t.call('GET', `/v2/repos/${await indexedRepo(t, folder)}/blueprint`);
  assert.equal(bp.status, 200, JSON.stringify(bp.body));
  return bp.body.data;
}
