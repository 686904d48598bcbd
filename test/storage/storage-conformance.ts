/**
 * What every storage backend promises (server/engine/store/storage.ts), written once and run against
 * each implementation: SQLite (sqlite.test.ts) and the team server's PostgreSQL (postgres.test.ts).
 * Every call is awaited, so a backend whose methods return promises (`AsyncStorage`) passes the same
 * checks. Transactions differ in kind: SQLite's work is synchronous (better-sqlite3 cannot await
 * inside one), an async backend's work awaits its stores; a bundle with `async: true` is checked
 * with async work, the same writes and the same expectations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AsyncStorage, Storage } from '../../server/engine/store/storage';
import type { ParsedFile } from '../../server/engine/types';
import { newId, sha256 } from '../../server/engine/util/ids';

export type AnyStorage = Storage | AsyncStorage;

type Open = () => Promise<AnyStorage> | AnyStorage;

const isAsync = (s: AnyStorage): s is AsyncStorage => 'async' in s && s.async;
const tick = () => new Promise((r) => setTimeout(r, 2));

/** A row has these columns, with these types, on every backend (the engine reads both). */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
function assertShape(row: object | undefined, shape: Record<string, 'string' | 'number' | 'string?' | 'number?' | 'iso' | 'iso?'>, what: string): void {
  assert.ok(row, `${what}: a row`);
  assert.deepEqual(Object.keys(row).sort(), Object.keys(shape).sort(), `${what}: the same columns`);
  for (const [column, kind] of Object.entries(shape)) {
    const value: unknown = (row as Record<string, unknown>)[column];
    if (kind.endsWith('?') && value === null) continue;
    if (kind.startsWith('iso')) assert.match(String(value), ISO, `${what}.${column} is ISO text with milliseconds, UTC`);
    else assert.equal(typeof value, kind.replace('?', ''), `${what}.${column} is a ${kind}`);
    if (kind.startsWith('iso')) assert.equal(typeof value, 'string', `${what}.${column} is text`);
  }
}

const file = (path: string, over: Partial<ParsedFile> = {}): ParsedFile => ({
  path, language: 'typescript', size: 40, lines: 3, hash: sha256(path), mtimeMs: 1000, description: null, generated: false, unit: null,
  symbols: [{ name: 'f', kind: 'function', parent: null, startLine: 1, endLine: 2, exported: true, signature: 'f(): number', doc: 'Docs.' }],
  imports: [],
  chunks: [{ startLine: 1, endLine: 3, symbols: ['f'], content: `// ${path}\nexport function f() {\n  return 1;\n}` }],
  ...over,
});

async function withStorage(open: Open, run: (s: AnyStorage) => Promise<void>): Promise<void> {
  const storage = await open();
  try {
    await run(storage);
  } finally {
    await storage.close();
  }
}

const newRepo = async (s: AnyStorage, over: { url?: string; name?: string; visibility?: 'private' | 'public' } = {}) => {
  const id = newId();
  await s.repos.insert({
    id, url: over.url ?? `/work/${id}`, name: over.name ?? `repo-${id.slice(0, 4)}`, rootPath: `/work/${id}`, source: 'local', branch: null,
    visibility: over.visibility ?? 'private',
  });
  return id;
};

/** A user row: repository access, tasks and history belong to users that exist. */
const newUser = async (s: AnyStorage) => {
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
    // A file that decides resolution changed: every import of its languages, with what it resolves to now.
    assert.deepEqual((await s.files.staleImports(repo)).length, 0);
    assert.deepEqual((await s.files.staleImports(repo, ['typescript'])).map((i) => [i.filePath, i.specifier, i.targetPath, i.packageName]),
      [['src/a.ts', './b.js', 'src/b.ts', null]]);
    assert.deepEqual(await s.files.staleImports(repo, ['go']), []);
    assert.deepEqual((await s.files.filesOfLanguages(repo, ['typescript', 'go'])).map((f) => f.path), ['src/a.ts', 'src/b.ts']);

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

  test(`${name}: a transaction that throws keeps none of its writes, in any store; one that returns keeps them all`, () => withStorage(open, async (s) => {
    const [user, repo] = [newId(), newId()];
    const writes: (() => unknown)[] = [
      () => s.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 }),
      () => s.accounts.recordCharge(user, 'search.run', 5),
      () => s.history.insert({ id: user, user_id: user, conversation_id: null, seq: 0, category: 'search', operation: 'search.run', query: 'q',
        repo_ids: '[]', summary: null, result: null, credits: 5, duration_ms: 1, created_at: new Date().toISOString() }),
      () => s.repos.insert({ id: repo, url: `/work/${repo}`, name: 'x', rootPath: `/work/${repo}`, source: 'local', branch: null, visibility: 'private' }),
    ];
    const kept = async () => [(await s.accounts.user(user))?.id, await s.accounts.creditsUsed(user), (await s.history.get(user))?.id,
      (await s.repos.get(repo))?.id];
    if (isAsync(s)) {
      // The work awaits each store in turn (and a timer between): every write joins the transaction.
      await assert.rejects(s.transaction(async () => {
        for (const write of writes) { await write(); await tick(); }
        assert.equal((await s.accounts.user(user))?.id, user, 'the transaction reads its own writes');
        throw new Error('abandoned');
      }), /abandoned/);
      assert.deepEqual(await kept(), [undefined, 0, undefined, undefined]);
      await s.transaction(async () => { for (const write of writes) await write(); });
    } else {
      assert.throws(() => s.transaction(() => {
        for (const write of writes) void write();
        assert.equal((s.accounts.user(user))?.id, user, 'the transaction reads its own writes');
        throw new Error('abandoned');
      }), /abandoned/);
      assert.deepEqual(await kept(), [undefined, 0, undefined, undefined]);
      s.transaction(() => { for (const write of writes) void write(); });
    }
    assert.deepEqual(await kept(), [user, 5, user, repo]);
  }));


  test(`${name}: rows have the same columns and types on every backend (times as ISO text, flags and counts as numbers)`, () => withStorage(open, async (s) => {
    const user = newId();
    await s.accounts.insertUser({ id: user, email: `${user}@example.test`, display_name: 'Ada', plan: 'DEV', is_owner: 1, password_hash: 'scrypt$x', profile: '{}' });
    await s.accounts.setCreditLimit(user, 1000);
    await s.accounts.markVerified(user);
    assertShape(await s.accounts.user(user), {
      id: 'string', email: 'string', display_name: 'string?', plan: 'string', is_owner: 'number', created_at: 'iso', password_hash: 'string?',
      verified_at: 'iso?', email_proven_at: 'iso?', profile: 'string?', credit_limit: 'number?',
    }, 'user');
    assert.deepEqual([(await s.accounts.owner())?.id, (await s.accounts.user(user))?.is_owner, await s.accounts.creditLimit(user)], [user, 1, 1000]);
    await s.accounts.insertKey({ id: 'k1', user_id: user, key_hash: sha256('k1'), key_hint: 'k1…k1', state: 'active', is_primary: 1, expires_at: '2030-01-01T00:00:00.000Z' });
    assertShape(await s.accounts.key('k1'), {
      id: 'string', user_id: 'string', key_hash: 'string', key_hint: 'string', state: 'string', is_primary: 'number', created_at: 'iso',
      last_used_at: 'iso?', disabled_at: 'iso?', kind: 'string', expires_at: 'iso?', parent_key_id: 'string?',
    }, 'key');
    assert.equal((await s.accounts.key('k1'))?.expires_at, '2030-01-01T00:00:00.000Z', 'a time comes back as it was written');
    await s.accounts.setGithubToken({ user_id: user, sealed: 'sealed', hint: 'abcd', login: null });
    assertShape(await s.accounts.githubToken(user), { user_id: 'string', sealed: 'string', hint: 'string', login: 'string?', linked_at: 'iso' }, 'github token');
    await s.auth.insertOtp({ id: 'o1', email: 'a@example.test', user_id: user, purpose: 'signup', code_hash: 'h', key_id: null, expires_at: '2030-01-01T00:10:00.000Z' });
    assertShape(await s.auth.liveOtp('a@example.test', '2026-01-01T00:00:00.000Z', 5), {
      id: 'string', email: 'string', user_id: 'string', purpose: 'string', code_hash: 'string', key_id: 'string?', attempts: 'number',
      expires_at: 'iso', consumed_at: 'iso?', created_at: 'iso',
    }, 'one-time code');
    await s.auth.insertSession({ id: 's1', user_id: user, token_hash: 'th', key_id: 'k1', expires_at: '2030-01-01T00:00:00.000Z' });
    assertShape(await s.auth.sessionByHash('th'), { id: 'string', user_id: 'string', token_hash: 'string', key_id: 'string?', expires_at: 'iso', created_at: 'iso' }, 'session');
    await s.history.insertConversation({ id: 'c1', user_id: user, title: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
    assertShape(await s.history.conversation('c1'), { id: 'string', user_id: 'string', title: 'string?', created_at: 'iso', updated_at: 'iso' }, 'conversation');
    await s.history.insert({ id: 'h1', user_id: user, conversation_id: 'c1', seq: 1, category: 'research', operation: 'search.research', query: 'q',
      repo_ids: '["r"]', summary: 's', result: '{"a":1}', credits: 5, duration_ms: 12, created_at: '2026-01-01T00:00:00.000Z' });
    assertShape(await s.history.get('h1'), {
      id: 'string', user_id: 'string', conversation_id: 'string?', seq: 'number', category: 'string', operation: 'string', query: 'string?',
      repo_ids: 'string', summary: 'string?', result: 'string?', credits: 'number', duration_ms: 'number', created_at: 'iso',
    }, 'history');
    assert.deepEqual([(await s.history.get('h1'))?.repo_ids, (await s.history.get('h1'))?.result], ['["r"]', '{"a":1}'], 'JSON text comes back as written');
    await s.accounts.recordCharge(user, 'search.run', 5, '2026-01-01T00:00:00.000Z');
    const [charge] = await s.accounts.chargesByOperation(user, '2026-01-01T00:00:00.000Z');
    assert.deepEqual(charge, { operation: 'search.run', calls: 1, credits: 5 });
    assert.deepEqual(await s.history.usageByCategory(user, '2026-01-01T00:00:00.000Z'), [{ category: 'research', calls: 1, credits: 5, duration_ms: 12 }]);
    assert.deepEqual(await s.history.perDay(user, '2026-01-01T00:00:00.000Z'), [{ day: '2026-01-01', calls: 1, credits: 5 }]);
  }));

  test(`${name}: keys: agent credentials live under their parent, disabling a key disables its children, expired ones are purged, pages hide expired agents`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    await s.accounts.insertKey({ id: 'p', user_id: user, key_hash: sha256('p'), key_hint: 'p', state: 'active', is_primary: 1 });
    const agent = (id: string, expires: string) => s.accounts.insertKey({ id, user_id: user, key_hash: sha256(id), key_hint: id, state: 'active', is_primary: 0, kind: 'agent', expires_at: expires, parent_key_id: 'p' });
    await agent('a-old', '2026-01-01T00:00:00.000Z');
    await agent('a-live1', '2026-06-01T00:10:00.000Z');
    await agent('a-live2', '2026-06-01T00:05:00.000Z');
    await s.accounts.insertKey({ id: 'sess', user_id: user, key_hash: sha256('sess'), key_hint: 'sess', state: 'active', is_primary: 0, kind: 'session', expires_at: '2026-01-02T00:00:00.000Z' });
    const now = '2026-06-01T00:00:00.000Z';
    assert.deepEqual((await s.accounts.liveAgentKeys('p', now)).map((k) => k.id), ['a-live1', 'a-live2'], 'latest expiry first');
    assert.deepEqual((await s.accounts.liveAgentKeysOf(user, now)).map((k) => k.id), ['a-live2', 'a-live1'], 'earliest expiry first');
    const page = await s.accounts.keysPage(user, now, 2, 0);
    assert.equal(page.total, 4, 'the expired agent credential is not listed');
    assert.equal(page.items.length, 2);
    assert.ok(!(await s.accounts.keysPage(user, now, 10, 0)).items.some((k) => k.id === 'a-old'));
    assert.equal((await s.accounts.keysOf(user)).length, 5);
    assert.equal(await s.accounts.purgeExpiredKeys('2026-03-01T00:00:00.000Z'), 2, 'the expired agent credential and sign-in key');
    assert.deepEqual((await s.accounts.keysOf(user)).map((k) => k.id).sort(), ['a-live1', 'a-live2', 'p']);
    await s.accounts.touchKey('p');
    assert.match(String((await s.accounts.key('p'))?.last_used_at), ISO);
    await s.accounts.disableKey('p');
    assert.deepEqual((await s.accounts.keysOf(user)).map((k) => [k.id, k.state, k.is_primary]).sort(),
      [['a-live1', 'disabled', 0], ['a-live2', 'disabled', 0], ['p', 'disabled', 0]]);
    assert.deepEqual(await s.accounts.primaryKeys(user), []);
    await s.accounts.setKeyState('p', 'active');
    assert.equal((await s.accounts.key('p'))?.state, 'active');
  }));

  test(`${name}: users: plan, password, verified and proven once, GitHub tokens replaced and removed`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    await s.accounts.setUserPlan(user, 'PRO');
    await s.accounts.setPassword(user, 'scrypt$1');
    await s.accounts.markVerified(user);
    await s.accounts.markEmailProven(user);
    const first = (await s.accounts.user(user))!;
    assert.deepEqual([first.plan, first.password_hash], ['PRO', 'scrypt$1']);
    await tick();
    await s.accounts.markVerified(user);
    await s.accounts.markEmailProven(user);
    const again = (await s.accounts.user(user))!;
    assert.deepEqual([again.verified_at, again.email_proven_at], [first.verified_at, first.email_proven_at], 'the first time stays');
    await s.accounts.setCreditLimit(user, null);
    assert.equal(await s.accounts.creditLimit(user), null);
    assert.equal(await s.accounts.creditLimit(newId()), null);
    assert.equal(await s.accounts.githubToken(user), undefined);
    await s.accounts.setGithubToken({ user_id: user, sealed: 'one', hint: '1111', login: 'ada' });
    await s.accounts.setGithubToken({ user_id: user, sealed: 'two', hint: '2222', login: null });
    assert.deepEqual([(await s.accounts.githubToken(user))?.sealed, (await s.accounts.githubToken(user))?.login], ['two', null]);
    assert.equal(await s.accounts.deleteGithubToken(user), true);
    assert.equal(await s.accounts.deleteGithubToken(user), false);
  }));

  test(`${name}: one-time codes: the newest live one, attempts, consumed once, retired by a new one, pruned; sessions by hash`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const email = 'otp@example.test';
    const code = (id: string, expires = '2030-01-01T00:00:00.000Z') =>
      s.auth.insertOtp({ id, email, user_id: user, purpose: 'signin', code_hash: `h-${id}`, key_id: null, expires_at: expires });
    await code('c1');
    await code('c2');
    await code('expired', '2020-01-01T00:00:00.000Z');
    const now = '2026-01-01T00:00:00.000Z';
    assert.equal((await s.auth.liveOtp(email, now, 5))?.id, 'c2', 'the newest live code (ties in time: the later insert)');
    await s.auth.countAttempt('c2');
    await s.auth.countAttempt('c2');
    assert.equal((await s.auth.liveOtp(email, now, 5))?.attempts, 2);
    assert.equal((await s.auth.liveOtp(email, now, 2))?.id, 'c1', 'a code out of attempts is not live');
    assert.equal(await s.auth.consumeOtp('c2'), true);
    assert.equal(await s.auth.consumeOtp('c2'), false, 'a code is consumed once');
    assert.equal((await s.auth.liveOtp(email, now, 5))?.id, 'c1');
    await s.auth.retireOtps(email);
    assert.equal(await s.auth.liveOtp(email, now, 5), undefined);
    await code('c3');
    await s.auth.deleteOtp('c3');
    assert.equal(await s.auth.liveOtp(email, now, 5), undefined);

    await s.auth.insertSession({ id: 's-old', user_id: user, token_hash: 'old', key_id: null, expires_at: '2020-01-01T00:00:00.000Z' });
    await s.auth.insertSession({ id: 's-new', user_id: user, token_hash: 'new', key_id: null, expires_at: '2030-01-01T00:00:00.000Z' });
    assert.equal((await s.auth.sessionByHash('new'))?.id, 's-new');
    assert.equal(await s.auth.sessionByHash('nope'), undefined);
    await s.auth.prune('2026-01-01T00:00:00.000Z');
    assert.equal(await s.auth.sessionByHash('old'), undefined);
    assert.equal((await s.auth.sessionByHash('new'))?.id, 's-new');
    await code('c4');
    await s.auth.prune('2999-01-01T00:00:00.000Z');
    assert.equal(await s.auth.liveOtp(email, now, 5), undefined, 'codes created before the instant are gone');
  }));

  test(`${name}: the ledger takes back one charge from its minute's row, and the row goes with its last call`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const at = '2026-03-01T12:00:10.000Z';
    await s.accounts.recordCharge(user, 'search.run', 5, at);
    await s.accounts.recordCharge(user, 'search.run', 5, '2026-03-01T12:00:50.000Z');
    await s.accounts.recordCharge(user, 'repos.list', 1, at);
    assert.deepEqual([await s.accounts.creditsUsed(user), await s.accounts.ledgerRows(user)], [11, 2]);
    await s.accounts.takeBackCharge({ userId: user, operation: 'search.run', credits: 5, at });
    assert.deepEqual([await s.accounts.creditsUsed(user), await s.accounts.ledgerRows(user)], [6, 2]);
    assert.deepEqual((await s.accounts.chargesByOperation(user, '2026-03-01T00:00:00.000Z')).map((r) => [r.operation, r.calls, r.credits]),
      [['search.run', 1, 5], ['repos.list', 1, 1]]);
    await s.accounts.takeBackCharge({ userId: user, operation: 'search.run', credits: 5, at: '2026-03-01T12:00:59.000Z' });
    assert.deepEqual([await s.accounts.creditsUsed(user), await s.accounts.ledgerRows(user)], [1, 1], 'the minute\'s last call took its row with it');
    await s.accounts.takeBackCharge({ userId: user, operation: 'search.run', credits: 5, at: '2026-03-01T13:00:00.000Z' });
    assert.deepEqual([await s.accounts.creditsUsed(user), await s.accounts.ledgerRows(user)], [1, 1], 'a minute without a row: nothing changes');
  }));

  test(`${name}: 50 charges at once land in their minute's rows, and the totals equal the ledger`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const at = '2026-04-01T09:30:15.000Z';
    await Promise.all(Array.from({ length: 50 }, (_, i) => s.accounts.recordCharge(user, i % 2 ? 'search.run' : 'files.get', 1 + (i % 3), at)));
    const expected = Array.from({ length: 50 }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
    const byOp = await s.accounts.chargesByOperation(user, '2026-04-01T00:00:00.000Z');
    assert.equal(await s.accounts.creditsUsed(user), expected);
    assert.equal(byOp.reduce((n, r) => n + r.credits, 0), expected, 'the ledger sums to the totals');
    assert.equal(byOp.reduce((n, r) => n + r.calls, 0), 50);
    assert.equal(await s.accounts.ledgerRows(user), 2, 'one row per operation and minute');
  }));

  test(`${name}: charges that check the balance inside their transaction never overdraw, however many run at once`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    await s.accounts.setCreditLimit(user, 100);
    const limit = (await s.accounts.creditLimit(user))!;
    const outcomes: boolean[] = [];
    if (isAsync(s)) {
      const charge = () => s.transaction(async () => {
        const used = await s.accounts.creditsUsed(user);
        await tick(); // the window in which another charge could slip in
        if (limit - used < 3) return false;
        await s.accounts.recordCharge(user, 'search.run', 3);
        return true;
      });
      outcomes.push(...await Promise.all(Array.from({ length: 50 }, charge)));
    } else {
      for (let i = 0; i < 50; i++) {
        outcomes.push(s.transaction(() => {
          if (limit - (s.accounts.creditsUsed(user)) < 3) return false;
          s.accounts.recordCharge(user, 'search.run', 3);
          return true;
        }));
      }
    }
    assert.equal(outcomes.filter(Boolean).length, 33, '33 charges of 3 fit in 100');
    assert.equal(await s.accounts.creditsUsed(user), 99);
    assert.equal((await s.accounts.chargesByOperation(user, '1970-01-01T00:00:00.000Z')).reduce((n, r) => n + r.credits, 0), 99);
  }));

  test(`${name}: history: a taken-back row takes the conversation it alone made; statistics by category and day; conversations touched`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const conversation = newId();
    await s.history.insertConversation({ id: conversation, user_id: user, title: 't', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
    await s.history.touchConversation(conversation, '2026-01-05T00:00:00.000Z');
    assert.equal((await s.history.conversation(conversation))?.updated_at, '2026-01-05T00:00:00.000Z');
    const row = (id: string, at: string, category: string, conversationId: string | null = null) => ({
      id, user_id: user, conversation_id: conversationId, seq: conversationId ? 1 : 0, category, operation: `${category}.op`, query: id,
      repo_ids: '[]', summary: null, result: null, credits: 2, duration_ms: 100, created_at: at,
    });
    await s.history.insert(row('a', '2026-01-01T10:00:00.000Z', 'search'));
    await s.history.insert(row('b', '2026-01-01T11:00:00.000Z', 'search'));
    await s.history.insert(row('c', '2026-01-02T10:00:00.000Z', 'research', conversation));
    assert.deepEqual(await s.history.usageByCategory(user, '2026-01-01T00:00:00.000Z'),
      [{ category: 'search', calls: 2, credits: 4, duration_ms: 200 }, { category: 'research', calls: 1, credits: 2, duration_ms: 100 }]);
    assert.deepEqual(await s.history.perDay(user, '2026-01-01T10:30:00.000Z'),
      [{ day: '2026-01-01', calls: 1, credits: 2 }, { day: '2026-01-02', calls: 1, credits: 2 }]);
    await s.history.delete('c');
    assert.equal(await s.history.get('c'), undefined);
    assert.equal(await s.history.conversation(conversation), undefined, 'the conversation it alone made went with it');
    await s.history.delete('a');
    assert.equal((await s.history.list({ userId: user, limit: 10, offset: 0 })).total, 1);
  }));

  test(`${name}: A2A tasks: deleted by their owner, the newest kept per owner, expired by age, counted`, () => withStorage(open, async (s) => {
    const [alice, bob] = [await newUser(s), await newUser(s)];
    for (const id of ['a1', 'a2', 'a3']) { await s.a2aTasks.save({ id, ownerUserId: alice, contextId: 'c', state: 'completed', json: '{}' }); await tick(); }
    await s.a2aTasks.save({ id: 'b1', ownerUserId: bob, contextId: 'c', state: 'completed', json: '{}' });
    await s.a2aTasks.save({ id: 'n1', ownerUserId: null, contextId: 'c', state: 'completed', json: '{}' });
    assert.equal(await s.a2aTasks.count(), 5);
    await s.a2aTasks.delete('b1', alice);
    assert.equal(await s.a2aTasks.count(), 5, 'only its owner deletes a task');
    await s.a2aTasks.delete('b1', bob);
    assert.equal(await s.a2aTasks.count(), 4);
    assert.equal(await s.a2aTasks.keepNewest(alice, 2), 1);
    assert.equal(await s.a2aTasks.load('a1', alice), undefined, 'the oldest went');
    assert.ok(await s.a2aTasks.load('a3', alice));
    assert.equal(await s.a2aTasks.expire('2999-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z'), 2, "users' tasks before the first instant");
    assert.ok(await s.a2aTasks.load('n1', null), 'an anonymous task newer than its own instant stays');
    assert.equal(await s.a2aTasks.expire('2000-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z'), 1);
    assert.equal(await s.a2aTasks.count(), 0);
  }));

  test(`${name}: languages: files, lines and bytes per language over the user's repositories`, () => withStorage(open, async (s) => {
    const user = await newUser(s);
    const [mine, theirs] = [await newRepo(s), await newRepo(s)];
    await s.repos.grantAccess(user, mine);
    await s.files.writeBatch(mine, [file('a.ts', { lines: 10, size: 100 }), file('b.ts', { lines: 5, size: 50 }), file('c.py', { language: 'python', lines: 1, size: 7 })]);
    await s.files.writeBatch(theirs, [file('d.ts')]);
    assert.deepEqual(await s.history.languages(user), [{ language: 'typescript', files: 2, lines: 15, bytes: 150 }, { language: 'python', files: 1, lines: 1, bytes: 7 }]);
    assert.deepEqual(await s.history.languages(user, '2999-01-01T00:00:00.000Z'), []);
  }));

  indexConformance(name, open);
}

// ---- The index side (repositories, files, search, analysis, research, vectors), backend-neutral: the full suite
// above runs it, and a backend's index stores alone run it too (pg-index.test.ts). Each store may answer
// synchronously (SQLite) or with promises (PostgreSQL).

type Either<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => R | Promise<Awaited<R>> : T[K] };
export interface IndexStorage {
  repos: Either<Storage['repos']>;
  files: Either<Storage['files']>;
  search: Either<Storage['search']>;
  analysis: Either<Storage['analysis']>;
  research: Either<Storage['research']>;
  vectors: Either<Storage['vectors']>;
  close(): void | Promise<void>;
  /**
   * What the index writer does after a run's writes and readers rely on, where the backend has it: SQLite's
   * trigram backlog fill (migration 027: written chunks wait in it, and the trigram readers take them all as
   * candidates until then).
   */
  settle?(): void | Promise<void>;
}
type OpenIndex = () => Promise<IndexStorage> | IndexStorage;

async function withIndex(open: OpenIndex, run: (s: IndexStorage) => Promise<void>): Promise<void> {
  const storage = await open();
  try {
    await run(storage);
  } finally {
    await storage.close();
  }
}

const indexRepo = async (s: IndexStorage) => {
  const id = newId();
  await s.repos.insert({ id, url: `/work/${id}`, name: `repo-${id.slice(0, 4)}`, rootPath: `/work/${id}`, source: 'local', branch: null, visibility: 'private' });
  return id;
};

const chunk = (content: string, symbols: string[] = [], startLine = 1) => ({ startLine, endLine: startLine + content.split('\n').length - 1, symbols, content });

export function indexConformance(name: string, open: OpenIndex): void {
  test(`${name}: index: repositories' users and listings, searched by name with wildcards taken literally`, () => withIndex(open, async (s) => {
    const a = await indexRepo(s);
    const b = await indexRepo(s);
    await s.repos.grantAccess('u1', a);
    await s.repos.grantAccess('u1', b);
    await s.repos.grantAccess('u2', a);
    assert.deepEqual((await s.repos.readersOf(a)).sort(), ['u1', 'u2']);
    assert.equal(await s.repos.countForUser('u1'), 2);
    const all = await s.repos.list({ userId: 'u1', scope: 'private', limit: 1, offset: 1, orderBy: 'created_at', order: 'asc' });
    assert.equal(all.total, 2);
    assert.equal(all.items.length, 1);
    assert.equal((await s.repos.list({ userId: 'u1', scope: 'private', search: '%', limit: 10, offset: 0, orderBy: 'name', order: 'asc' })).total, 0);
    assert.equal((await s.repos.list({ userId: 'u1', scope: 'private', search: 'REPO-', limit: 10, offset: 0, orderBy: 'name', order: 'asc' })).total, 2,
      'a search ignores ASCII case');
    await s.repos.setState(a, 'ready', { headCommit: 'abc' });
    const ready = (await s.repos.get(a))!;
    assert.deepEqual([ready.state, ready.updating, ready.headCommit, typeof ready.lastUpdated], ['ready', false, 'abc', 'string']);
    assert.deepEqual((await s.repos.all()).map((r) => r.id).sort(), [a, b].sort());
  }));

  test(`${name}: index: re-writing a file replaces its symbols, edges and chunks; the generation moves on every write`, () => withIndex(open, async (s) => {
    const repo = await indexRepo(s);
    const g0 = await s.analysis.generation(repo);
    const [id] = await s.files.writeBatch(repo, [file('src/a.ts')]);
    const g1 = await s.analysis.generation(repo);
    assert.ok(g1 > g0);
    const [again] = await s.files.writeBatch(repo, [file('src/a.ts', {
      hash: 'h2', symbols: [{ name: 'g', kind: 'class', parent: null, startLine: 1, endLine: 1, exported: false, signature: null, doc: null }],
      chunks: [chunk('class g {}', ['g']), chunk('// tail', [], 2)],
    })]);
    assert.equal(again, id, 'a file keeps its id');
    assert.ok((await s.analysis.generation(repo)) > g1);
    assert.deepEqual((await s.files.symbols(id!)).map((x) => x.name), ['g']);
    assert.equal(await s.files.content(id!), 'class g {}\n// tail');
    assert.equal(await s.search.chunkCount([repo]), 2);
    const graph = await s.analysis.graph(repo);
    assert.deepEqual(graph.files.map((f) => [f.path, f.hash, f.generated]), [['src/a.ts', 'h2', false]]);
    assert.equal(await s.analysis.fileText(repo, 'src/a.ts'), 'class g {}\n// tail');
    assert.equal(await s.analysis.fileText(repo, 'src/none.ts'), null);
    assert.deepEqual(await s.research.lines(id!, 1, 3), ['class g {}', '// tail', '']);

    // Writing a file again, or deleting one, leaves the ranking's statistics (chunks, lengths, document
    // frequencies) as a fresh index of the same files would have them: the same scores.
    await s.files.writeBatch(repo, [file('src/b.ts'), file('src/c.ts')]);
    const score = async () => (await s.search.lexical('"export" OR "tail"', [repo], 10, [2, 4, 1])).map((r) => r.score.toFixed(9)).sort();
    const before = await score();
    await s.files.writeBatch(repo, [file('src/b.ts', { hash: 'again' })]);
    await s.files.writeBatch(repo, [file('src/d.ts')]);
    await s.files.deletePaths(repo, ['src/d.ts']);
    assert.deepEqual(await score(), before);
  }));

  test(`${name}: index: the import graph, importers, exported symbols and file docs`, () => withIndex(open, async (s) => {
    const repo = await indexRepo(s);
    const edge = (target: string, line: number) => ({ specifier: `./${target}`, kind: 'import' as const, typeOnly: line === 2, targetPath: target, packageName: null, names: ['x'], line });
    await s.files.writeBatch(repo, [
      file('a.ts', { imports: [edge('b.ts', 1), edge('c.ts', 2)] }),
      file('b.ts', { imports: [edge('c.ts', 1)] }),
      file('c.ts', { imports: [{ specifier: 'lodash', kind: 'import', typeOnly: false, targetPath: null, packageName: 'lodash', names: [], line: 1 }] }),
    ]);
    const graph = await s.analysis.graph(repo);
    assert.deepEqual(graph.files.map((f) => f.path), ['a.ts', 'b.ts', 'c.ts']);
    assert.deepEqual(graph.edges.map((e) => [graph.files.find((f) => f.id === e.fileId)!.path, e.targetPath ?? e.packageName, e.typeOnly]),
      [['a.ts', 'b.ts', false], ['a.ts', 'c.ts', true], ['b.ts', 'c.ts', false], ['c.ts', 'lodash', false]]);
    assert.deepEqual(await s.files.mostImported(repo, 1), [{ file_path: 'c.ts', dependents: 2 }]);
    assert.deepEqual((await s.research.importersOf(repo, ['c.ts'], 10)).map((r) => [r.path, r.line]), [['a.ts', 2], ['b.ts', 1]]);
    const a = (await s.research.file(repo, 'a.ts'))!;
    assert.deepEqual((await s.research.localImports(a.id)).map((i) => i.targetPath), ['b.ts', 'c.ts']);
    assert.deepEqual((await s.analysis.exportedSymbols(repo)).map((x) => x.name), ['f', 'f', 'f']);
    assert.deepEqual(await s.research.symbolNames([repo], 10), ['f']);

    const g = await s.analysis.generation(repo);
    assert.equal(await s.files.replaceImports(repo, [{ path: 'a.ts', imports: [edge('b.ts', 1)] }, { path: 'b.ts', imports: [edge('c.ts', 1)] }]), 1,
      'only a file whose edges differ is written');
    assert.ok((await s.analysis.generation(repo)) > g);

    assert.equal(await s.analysis.fileDoc(a.id), undefined);
    await s.analysis.putFileDoc(a.id, 'old-hash', 'test', 'A file.');
    assert.equal((await s.analysis.fileDoc(a.id))?.doc, 'A file.');
    assert.deepEqual((await s.analysis.staleDocs(repo)).map((d) => d.path), ['a.ts']);
    await s.files.writeBatch(repo, [file('env.ts', { chunks: [chunk('const port = process.env.PORT;')] })]);
    assert.deepEqual((await s.analysis.envChunks(repo)).map((c) => c.path), ['env.ts']);
  }));

  test(`${name}: index: search reads: filters in SQL, lexical ranking, trigram candidates, symbols and docs`, () => withIndex(open, async (s) => {
    const repo = await indexRepo(s);
    const other = await indexRepo(s);
    await s.files.writeBatch(repo, [
      file('src/cookies.ts', {
        lines: 30,
        symbols: [{ name: 'parseSignedCookie', kind: 'function', parent: null, startLine: 1, endLine: 3, exported: true, signature: null, doc: 'Parses a signed cookie.' }],
        chunks: [chunk('export function parseSignedCookie(value: string) {\n  return unsign(value);\n}', ['parseSignedCookie'])],
        imports: [{ specifier: 'cookie-signature', kind: 'import', typeOnly: false, targetPath: null, packageName: 'cookie-signature', names: ['unsign'], line: 1 }],
      }),
      file('src/util.ts', { lines: 3, chunks: [chunk('export const cookie = 1; // a cookie, a cookie\nlet signed_value = 2;')] }),
      file('README.md', { language: 'markdown', symbols: [], chunks: [chunk('Nothing to see.')] }),
    ]);
    await s.files.writeBatch(other, [file('src/cookies.ts', { chunks: [chunk('parseSignedCookie everywhere')] })]);
    const files = async (filter: Parameters<IndexStorage['search']['files']>[1]) => (await s.search.files([repo], filter)).map((f) => f.path).sort();
    assert.deepEqual(await files({}), ['README.md', 'src/cookies.ts', 'src/util.ts']);
    assert.deepEqual(await files({ minLines: 10 }), ['src/cookies.ts']);
    assert.deepEqual(await files({ functionNames: ['PARSESIGNEDCOOKIE'] }), ['src/cookies.ts']);
    assert.deepEqual(await files({ dependencies: ['cookie-signature'] }), ['src/cookies.ts']);
    assert.deepEqual(await files({ hasFunctions: false }), ['README.md']);
    assert.deepEqual(await files({ visibility: 'public' }), ['src/cookies.ts', 'src/util.ts']);

    const found = await s.search.lexical('"signed" OR "cookie"', [repo], 10, [2, 4, 1]);
    const paths = async (rows: { fileId: number }[]) => {
      const byId = new Map((await s.search.filesByIds(rows.map((r) => r.fileId))).map((f) => [f.id, f.path]));
      return rows.map((r) => byId.get(r.fileId));
    };
    assert.deepEqual(await paths(found), ['src/cookies.ts', 'src/util.ts'], 'the definition in a named file ranks first; another repository is out of scope');
    assert.ok(found[0]!.score > found[1]!.score && found[1]!.score > 0);
    assert.deepEqual(await paths(await s.search.lexical('"signed_value"', [repo], 10, [2, 4, 1])), ['src/util.ts'], 'a phrase (snake case) matches where its words are adjacent');
    assert.deepEqual(await paths(await s.search.lexical('"pars"*', [repo, other], 10, [2, 4, 1])), ['src/cookies.ts', 'src/cookies.ts'], 'a prefix');
    assert.deepEqual(await s.search.lexical('"absent"', [repo], 10, [2, 4, 1]), []);
    const cookies = (await s.files.getByPath(repo, 'src/cookies.ts'))!.id;
    assert.deepEqual(await paths(await s.search.lexical('"signed" OR "cookie"', [repo], 10, [2, 4, 1], (id) => id !== cookies)), ['src/util.ts']);

    const places = await s.search.chunkPlaces(found.map((r) => r.chunkId));
    assert.deepEqual(places.map((p) => p.symbols ?? '').sort(), ['', 'parseSignedCookie']);
    assert.match((await s.search.chunkContents([found[0]!.chunkId])).get(found[0]!.chunkId)!, /unsign/);

    const grep = async (literals: string[]) => paths((await s.search.trigramFiles([repo], literals)).map((fileId) => ({ fileId })));
    await s.settle?.();
    assert.deepEqual(await grep(['UNSIGN(']), ['src/cookies.ts'], 'ASCII case aside');
    assert.deepEqual((await grep(['cookie', 'signed_'])), ['src/util.ts'], 'every literal in one chunk');
    assert.equal((await grep(['ab'])).length, 3, 'too short to narrow: every file');
    assert.deepEqual((await s.search.symbolsNamed([repo, other], ['parseSignedCookie'])).map((x) => x.fileId), [cookies]);
    assert.deepEqual((await s.search.symbols([cookies], ['function'])).map((x) => [x.name, x.exported]), [['parseSignedCookie', true]]);
    assert.deepEqual(await s.search.docSources([cookies]), [{ fileId: cookies, description: null, docs: 'parseSignedCookie: Parses a signed cookie.' }]);
    assert.deepEqual(await s.files.filesMentioning(repo, 'typescript', new Set(['unsign'])), [{ id: cookies, path: 'src/cookies.ts' }]);

    await s.files.recordSkipped(repo, [{ path: 'gen/big.ts', size: 1, mtimeMs: 1, reason: 'oversized' }, { path: 'x.png', size: 1, mtimeMs: 1, reason: 'binary' }]);
    assert.deepEqual((await s.search.unindexedFiles([repo])).map((f) => f.path), ['gen/big.ts']);

    // Deleting files and repositories takes their rows out of the ranking.
    await s.files.deletePaths(repo, ['src/cookies.ts']);
    assert.deepEqual(await paths(await s.search.lexical('"unsign"', [repo, other], 10, [2, 4, 1])), []);
    await s.repos.delete(other);
    assert.deepEqual(await s.search.lexical('"everywhere"', [other], 10, [2, 4, 1]), []);
  }));

  test(`${name}: index: the corpus model's training sample is the same files' chunks whichever order they were written in`, () => withIndex(open, async (s) => {
    // Chunk ids follow the order the parse processes finished in; the sample (and so the trained model) must not.
    const paths = ['lib/b.ts', 'a.ts', 'lib/a.ts', 'z.ts', 'm/x.ts', 'B.ts'];
    const write = async (order: string[]) => {
      const repo = await indexRepo(s);
      for (const p of order) await s.files.writeBatch(repo, [file(p, { chunks: [chunk(`${p} one`), chunk(`${p} two`, [], 5), chunk(`${p} three`, [], 9)] })]);
      return repo;
    };
    const first = await write(paths);
    const sample = await s.vectors.sampleTexts(9);
    assert.equal(sample.length, 9);
    assert.deepEqual(sample.slice(0, 3), ['B.ts\nB.ts one', 'B.ts\nB.ts three', 'a.ts\na.ts two'], 'every second chunk, in path (byte) order');
    await s.repos.delete(first);
    await write([...paths].reverse());
    assert.deepEqual(await s.vectors.sampleTexts(9), sample);
  }));

  test(`${name}: index: vectors per model: written, nearest by cosine within repositories, gone with their chunk, dropped`, () => withIndex(open, async (s) => {
    const repo = await indexRepo(s);
    const other = await indexRepo(s);
    await s.files.writeBatch(repo, [file('a.ts', { chunks: [chunk('a'), chunk('b'), chunk('c')] })]);
    await s.files.writeBatch(other, [file('o.ts', { chunks: [chunk('o')] })]);
    const model = await s.vectors.addModel('test', 'tiny', 3, Buffer.from('model'), 4);
    assert.deepEqual((await s.vectors.modelData(model))?.toString(), 'model');
    assert.equal(await s.vectors.countMissing(model, null), 4);
    const missing = await s.vectors.missing(model, repo, 10);
    assert.deepEqual(missing.map((m) => m.content), ['a', 'b', 'c']);
    const [a, b, c] = missing.map((m) => m.id);
    const o = (await s.vectors.missing(model, other, 10))[0]!.id;
    await s.vectors.put(model, [
      { chunkId: a!, repoId: repo, vector: new Float32Array([1, 0, 0]) },
      { chunkId: b!, repoId: repo, vector: new Float32Array([0.6, 0.8, 0]) },
      { chunkId: c!, repoId: repo, vector: null },
      { chunkId: o, repoId: other, vector: new Float32Array([1, 0.01, 0]) },
    ]);
    assert.equal(await s.vectors.countMissing(model, null), 0);
    assert.deepEqual(await s.vectors.missing(model, null, 10), []);
    const near = await s.vectors.nearest(model, new Float32Array([1, 0.1, 0]), [repo], 5);
    assert.deepEqual(near.map((r) => r.chunkId), [a, b]);
    assert.ok(Math.abs(near[0]!.distance - (1 - 1 / Math.sqrt(1.01))) < 1e-5);
    assert.ok(Math.abs(near[1]!.distance - (1 - (0.6 + 0.08) / Math.sqrt(1.01))) < 1e-5);
    const all = await s.vectors.all(model, 3);
    assert.deepEqual([...all.ids].sort(), [a, b, o].sort());
    const at = [...all.ids].indexOf(b!);
    assert.deepEqual([...all.data.slice(at * 3, at * 3 + 3)].map((x) => Math.round(x * 10) / 10), [0.6, 0.8, 0]);
    assert.deepEqual((await s.vectors.sampleTexts(10)).length, 4);

    await s.vectors.activate(model);
    assert.deepEqual((await s.vectors.models()).map((m) => [m.id, m.state, m.dims]), [[model, 'active', 3]]);
    await s.files.writeBatch(repo, [file('a.ts', { hash: 'h2', chunks: [chunk('a2')] })]);
    assert.deepEqual((await s.vectors.nearest(model, new Float32Array([1, 0, 0]), [repo, other], 5)).map((r) => r.chunkId), [o], 'a re-written file\'s vectors are gone');
    assert.equal(await s.vectors.countMissing(model, repo), 1);
    await s.vectors.dropModel(model);
    await s.vectors.forget(model);
    assert.deepEqual(await s.vectors.models(), []);
    await assert.rejects(async () => s.vectors.addModel('test', 'wide', 0, null, 0), /invalid embedding width/);
  }));
}
