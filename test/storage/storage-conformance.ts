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
