/**
 * What every storage backend promises (server/engine/store/storage.ts), written once and run against
 * each implementation: SQLite here (sqlite.test.ts), a PostgreSQL backend next. Every call is awaited,
 * so a backend whose methods return promises passes the same checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Storage } from '../../server/engine/store/storage';
import type { ParsedFile } from '../../server/engine/types';
import { newId, sha256 } from '../../server/engine/util/ids';

type Open = () => Promise<Storage> | Storage;

const file = (path: string, over: Partial<ParsedFile> = {}): ParsedFile => ({
  path, language: 'typescript', size: 40, lines: 3, hash: sha256(path), mtimeMs: 1000, description: null, generated: false, unit: null,
  symbols: [{ name: 'f', kind: 'function', parent: null, startLine: 1, endLine: 2, exported: true, signature: 'f(): number', doc: 'Docs.' }],
  imports: [],
  chunks: [{ startLine: 1, endLine: 3, symbols: ['f'], content: `// ${path}\nexport function f() {\n  return 1;\n}` }],
  ...over,
});

async function withStorage(open: Open, run: (s: Storage) => Promise<void>): Promise<void> {
  const storage = await open();
  try {
    await run(storage);
  } finally {
    await storage.close();
  }
}

const newRepo = async (s: Storage, over: { url?: string; name?: string; visibility?: 'private' | 'public' } = {}) => {
  const id = newId();
  await s.repos.insert({
    id, url: over.url ?? `/work/${id}`, name: over.name ?? `repo-${id.slice(0, 4)}`, rootPath: `/work/${id}`, source: 'local', branch: null,
    visibility: over.visibility ?? 'private',
  });
  return id;
};

/** A user row: repository access, tasks and history belong to users that exist. */
const newUser = async (s: Storage) => {
  const id = newId();
  await s.accounts.insertUser({ id, email: `${id}@example.test`, display_name: null, plan: 'FREE', is_owner: 0 });
  return id;
};

export function storageConformance(name: string, open: Open): void {
  test(`${name}: repositories: registered, found by id and URL, readable only by whom access was granted, listed in pages`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const a = await newRepo(s, { url: 'https://github.com/o/alpha', name: 'o/alpha' });
    const b = await newRepo(s, { url: 'https://github.com/o/beta', name: 'o/beta', visibility: 'public' });
    assert.equal((await s.repos.get(a))?.name, 'o/alpha');
    assert.equal((await s.repos.getByUrl('https://github.com/o/beta'))?.id, b);
    assert.equal(await s.repos.get(newId()), undefined);
    assert.equal(await s.repos.hasAccess(user, a), false);
    await s.repos.grantAccess(user, a);
    await s.repos.grantAccess(user, a); // twice is once
    assert.equal(await s.repos.hasAccess(user, a), true);
    assert.equal(await s.repos.countForUser(user), 1);

    const page = await s.repos.list({ userId: user, scope: 'private', limit: 10, offset: 0, orderBy: 'name', order: 'asc' });
    assert.deepEqual([page.total, page.items.map((r) => r.id)], [1, [a]]);
    const open = await s.repos.listPublic(10, 0);
    assert.deepEqual(open.items.map((r) => r.id), [b]);

    await s.repos.setState(a, 'indexing');
    assert.deepEqual([(await s.repos.get(a))!.state, (await s.repos.get(a))!.updating], ['indexing', true]);
    await s.repos.setProgress(a, 3, 7);
    await s.repos.setState(a, 'failed', { error: 'the disk is full' });
    const failed = (await s.repos.get(a))!;
    assert.deepEqual([failed.state, failed.updating, failed.error, failed.filesDone, failed.filesTotal], ['failed', false, 'the disk is full', 3, 7]);
    await s.repos.setBranch(a, 'main');
    assert.equal((await s.repos.get(a))!.branch, 'main');
    await s.repos.delete(b);
    assert.equal(await s.repos.get(b), undefined);
  }));

  test(`${name}: files: a batch is written whole, found by path and uid, re-stamped, deleted; skipped files are remembered`, () => withStorage(open, async (s) => {
    const repo = await newRepo(s);
    const ids = await s.files.writeBatch(repo, [
      file('src/a.ts', { imports: [{ specifier: './b.js', kind: 'import', typeOnly: false, targetPath: 'src/b.ts', packageName: null, names: ['g'], line: 1 }] }),
      file('src/b.ts'),
    ]);
    assert.equal(ids.length, 2);
    assert.equal(await s.files.count(repo), 2);
    assert.deepEqual((await s.files.paths(repo)).sort(), ['src/a.ts', 'src/b.ts']);
    const a = (await s.files.getByPath(repo, 'src/a.ts'))!;
    assert.equal((await s.files.getByUid(repo, a.uid))?.path, 'src/a.ts');
    assert.match(await s.files.content(a.id), /export function f/);
    assert.deepEqual((await s.files.symbols(a.id)).map((x) => [x.name, x.kind, x.exported]), [['f', 'function', true]]);
    assert.deepEqual((await s.files.imports(a.id)).map((i) => [i.specifier, i.targetPath, i.names]), [['./b.js', 'src/b.ts', ['g']]]);
    assert.deepEqual(await s.files.mostImported(repo, 5), [{ file_path: 'src/b.ts', dependents: 1 }]);

    const fp = (await s.files.fingerprints(repo)).get('src/b.ts')!;
    await s.files.touch(repo, [{ path: 'src/b.ts', mtimeMs: 2000, size: fp.size }]);
    assert.equal((await s.files.fingerprints(repo)).get('src/b.ts')!.mtimeMs, 2000);

    const listed = await s.files.list({ repoId: repo, search: 'a.ts', limit: 10, offset: 0, orderBy: 'file_path', order: 'asc' });
    assert.deepEqual([listed.total, listed.items[0].path, listed.items[0].functionCount], [1, 'src/a.ts', 1]);

    await s.files.recordSkipped(repo, [{ path: 'dist/app.min.js', size: 9000, mtimeMs: 5, reason: 'minified' }]);
    assert.deepEqual((await s.files.skipped(repo)).get('dist/app.min.js'), { path: 'dist/app.min.js', size: 9000, mtimeMs: 5, reason: 'minified' });

    await s.files.deletePaths(repo, ['src/b.ts']);
    assert.equal(await s.files.getByPath(repo, 'src/b.ts'), undefined);
    assert.deepEqual((await s.files.staleImports(repo)).map((i) => i.specifier), ['./b.js'], 'an edge to a deleted file is stale');
    const stale = (await s.files.staleImports(repo))[0];
    await s.files.setImportTarget([{ id: stale.id, targetPath: null, packageName: null }]);
    assert.deepEqual((await s.files.imports(a.id)).map((i) => i.targetPath), [null]);
  }));

  test(`${name}: A2A tasks: loaded only for their owner; a save under another owner changes nothing`, () => withStorage(open, async (s) => {
    const [alice, bob] = [await newUser(s), await newUser(s)];
    await s.a2aTasks.save({ id: 't1', ownerUserId: alice, contextId: 'c', state: 'working', json: '{"v":1}' });
    await s.a2aTasks.save({ id: 't1', ownerUserId: bob, contextId: 'c', state: 'completed', json: '{"v":2}' });
    assert.equal(await s.a2aTasks.load('t1', bob), undefined);
    assert.deepEqual(await s.a2aTasks.load('t1', alice), { id: 't1', ownerUserId: alice, contextId: 'c', state: 'working', json: '{"v":1}' });
    await s.a2aTasks.save({ id: 't1', ownerUserId: alice, contextId: 'c', state: 'completed', json: '{"v":3}' });
    assert.equal((await s.a2aTasks.load('t1', alice))?.json, '{"v":3}');
    await s.a2aTasks.save({ id: 't2', ownerUserId: null, contextId: 'c', state: 'submitted', json: '{}' });
    assert.equal(await s.a2aTasks.load('t2', alice), undefined, 'a task made without a key is no one\'s');
    assert.deepEqual((await s.a2aTasks.inStates(['submitted', 'working'])).map((t) => t.id), ['t2']);
  }));

  test(`${name}: accounts: users, keys found by hash only, disabled keys, and the ledger's totals`, () => withStorage(open, async (s) => {
    const user = newId();
    await s.accounts.insertUser({ id: user, email: 'ada@example.test', display_name: 'Ada', plan: 'DEV', is_owner: 0 });
    assert.equal((await s.accounts.userByEmail('ada@example.test'))?.id, user);
    assert.equal(await s.accounts.owner(), undefined);
    const key = newId();
    await s.accounts.insertKey({ id: key, user_id: user, key_hash: sha256('secret'), key_hint: 'secr…cret', state: 'active', is_primary: 1 });
    assert.equal((await s.accounts.keyByHash(sha256('secret')))?.id, key);
    assert.equal(await s.accounts.keyByHash(sha256('other')), undefined);
    assert.deepEqual((await s.accounts.primaryKeys(user)).map((k) => k.id), [key]);
    await s.accounts.disableKey(key);
    assert.equal((await s.accounts.key(key))?.state, 'disabled');

    await s.accounts.setCreditLimit(user, 100);
    assert.equal(await s.accounts.creditLimit(user), 100);
    await s.accounts.recordCharge(user, 'search.run', 5);
    await s.accounts.recordCharge(user, 'search.run', 5);
    await s.accounts.recordCharge(user, 'files.list', 1);
    assert.equal(await s.accounts.creditsUsed(user), 11);
    const byOp = await s.accounts.chargesByOperation(user, '1970-01-01T00:00:00.000Z');
    assert.deepEqual(byOp.map((r) => [r.operation, r.calls, r.credits]).sort(), [['files.list', 1, 1], ['search.run', 2, 10]]);
  }));

  test(`${name}: the ledger keeps a row per operation and minute, merges old rows into days, and its totals stay exact`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    for (const at of ['2026-01-01T10:00:01.000Z', '2026-01-01T10:00:59.999Z', '2026-01-01T10:01:00.000Z', '2026-01-02T08:00:00.000Z']) {
      await s.accounts.recordCharge(user, 'repos.list', 1, at);
    }
    await s.accounts.recordCharge(user, 'search.run', 5, '2026-01-01T10:00:30.000Z');
    assert.equal(await s.accounts.ledgerRows(user), 4, 'two charges in one minute share a row');
    assert.equal(await s.accounts.creditsUsed(user), 9);
    const since = (at: string) => s.accounts.chargesByOperation(user, at);
    assert.deepEqual((await since('2026-01-01T10:01:00.000Z')).map((r) => [r.operation, r.calls, r.credits]), [['repos.list', 2, 2]]);
    assert.deepEqual(await s.accounts.chargesPerDay(user, '2026-01-01T00:00:00.000Z'),
      [{ day: '2026-01-01', calls: 4, credits: 8 }, { day: '2026-01-02', calls: 1, credits: 1 }]);

    assert.equal(await s.accounts.compactLedger('2026-01-02T00:00:00.000Z'), 1, 'three rows of 2026-01-01 became two (one per operation)');
    assert.equal(await s.accounts.ledgerRows(user), 3);
    assert.equal(await s.accounts.creditsUsed(user), 9);
    assert.deepEqual((await since('1970-01-01T00:00:00.000Z')).map((r) => [r.operation, r.calls, r.credits]).sort(), [['repos.list', 4, 4], ['search.run', 1, 5]]);
    assert.equal(await s.accounts.compactLedger('2026-01-02T00:00:00.000Z'), 0, 'a merged day stays one row');
    await s.accounts.recordCharge(user, 'repos.list', 1, '2026-01-01T23:00:00.000Z');
    await s.accounts.compactLedger('2026-01-02T00:00:00.000Z');
    assert.deepEqual([await s.accounts.ledgerRows(user), await s.accounts.creditsUsed(user)], [3, 10], 'a late charge joins its day');
  }));

  test(`${name}: history past its retention is deleted, with conversations left empty`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const [done, going] = [newId(), newId()];
    await s.history.insertConversation({ id: done, user_id: user, title: 'old', created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' });
    await s.history.insertConversation({ id: going, user_id: user, title: 'going', created_at: '2025-01-01T00:00:00.000Z', updated_at: '2026-02-01T00:00:00.000Z' });
    const row = (at: string, conversationId: string | null) => ({
      id: newId(), user_id: user, conversation_id: conversationId, seq: conversationId ? 1 : 0, category: 'search', operation: 'search.run', query: at,
      repo_ids: '[]', summary: null, result: null, credits: 5, duration_ms: 10, created_at: at,
    });
    for (const r of [row('2025-01-01T00:00:00.000Z', done), row('2025-01-02T00:00:00.000Z', going), row('2026-02-01T00:00:00.000Z', going)]) await s.history.insert(r);
    assert.equal(await s.history.purgeBefore('2026-01-01T00:00:00.000Z'), 2);
    assert.deepEqual((await s.history.list({ userId: user, limit: 10, offset: 0 })).items.map((r) => r.query), ['2026-02-01T00:00:00.000Z']);
    assert.equal(await s.history.conversation(done), undefined);
    assert.equal((await s.history.conversation(going))?.title, 'going');
  }));

  test(`${name}: history: rows in pages newest first within a range, threads in order`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const conversation = newId();
    await s.history.insertConversation({ id: conversation, user_id: user, title: 'how is it built', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
    const row = (id: string, at: string, seq: number, conversationId: string | null) => ({
      id, user_id: user, conversation_id: conversationId, seq, category: 'research', operation: 'search.research', query: `q${seq}`,
      repo_ids: '[]', summary: null, result: null, credits: 5, duration_ms: 10, created_at: at,
    });
    const [h1, h2, h3] = [newId(), newId(), newId()];
    const first = await s.history.nextSeq(conversation);
    await s.history.insert(row(h1, '2026-01-01T00:00:01.000Z', first, conversation));
    const second = await s.history.nextSeq(conversation);
    assert.ok(second > first, 'each turn of a thread comes after the last');
    await s.history.insert(row(h2, '2026-01-02T00:00:00.000Z', second, conversation));
    await s.history.insert(row(h3, '2026-01-03T00:00:00.000Z', 0, null));
    assert.deepEqual((await s.history.thread(conversation)).map((r) => r.id), [h1, h2]);
    const newest = await s.history.list({ userId: user, limit: 2, offset: 0 });
    assert.deepEqual([newest.total, newest.items.map((r) => r.id)], [3, [h3, h2]]);
    const ranged = await s.history.list({ userId: user, from: '2026-01-02T00:00:00.000Z', to: '2026-01-02T23:59:59.999Z', limit: 10, offset: 0 });
    assert.deepEqual(ranged.items.map((r) => r.id), [h2]);
    assert.equal((await s.history.get(h1))?.query, `q${first}`);
    assert.equal((await s.history.list({ userId: await newUser(s), limit: 10, offset: 0 })).total, 0, 'another user sees none');
  }));

  test(`${name}: a transaction that throws keeps none of its writes`, () => withStorage(open, async (s) => {
    const id = newId();
    assert.throws(() => s.transaction(() => {
      void s.repos.insert({ id, url: `/work/${id}`, name: 'x', rootPath: `/work/${id}`, source: 'local', branch: null, visibility: 'private' });
      throw new Error('abandoned');
    }), /abandoned/);
    assert.equal(await s.repos.get(id), undefined);
    s.transaction(() => void s.repos.insert({ id, url: `/work/${id}`, name: 'x', rootPath: `/work/${id}`, source: 'local', branch: null, visibility: 'private' }));
    assert.equal((await s.repos.get(id))?.name, 'x');
  }));
}
