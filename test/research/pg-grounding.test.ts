/**
 * Research's grounding reads the index through its async surface, so the same code answers over
 * SQLite and over the team server's PostgreSQL. Real code nobody here wrote (Flask 2.2.2 from
 * Debian) is indexed by the engine into SQLite; the same parsed files are written into a real
 * PostgreSQL 15 (PgFilesStore.writeBatch); grounding built from the same search hits over either
 * store is the same (files, excerpts, symbols, edges, lead), and so is the built-in model's answer.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import { buildGroundingContext, type ResearchHit } from '../../server/engine/research/grounding';
import { composeGroundedAnswer } from '../../server/engine/research/providers/grounded';
import type { SqliteStorage } from '../../server/engine/store/storage';
import { parsedFiles } from '../helpers/parsed-files';

let t: TestEngine;
let cluster: PgCluster;
let pgDb: PgDb;
let pg: PgIndexStores;
let repoId = '';
let repoName = '';


before(async () => {
  t = createTestEngine();
  const repo = await indexFolder(t, copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask')));
  repoId = repo.id;
  repoName = repo.name;
  cluster = await startPostgres();
  pgDb = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  await migratePg(pgDb, PG_INDEX_MIGRATIONS);
  pg = openPgIndexStores(pgDb);
  const storage = t.engine.storage as SqliteStorage;
  const r = storage.repos.get(repoId)!;
  await pg.repos.insert({ id: repoId, url: r.url, name: r.name, rootPath: r.rootPath, source: r.source, branch: r.branch, visibility: r.visibility });
  const files = parsedFiles(storage, repoId);
  for (let i = 0; i < files.length; i += 64) await pg.files.writeBatch(repoId, files.slice(i, i + 64));
});
after(async () => {
  await t?.close();
  await pgDb?.close();
  await cluster?.stop();
});

/** The hits research grounds on, from the engine's search (as operations/search.ts hands them over). */
async function hitsFor(question: string): Promise<ResearchHit[]> {
  const outcome = await t.engine.search.search(t.ownerId, { query: question, repoIds: [repoId] });
  return outcome.results.filter((h) => !!h.filePath).map((h) => ({
    repoId: h.repoId, repoName: h.repoName, filePath: h.filePath!, startLine: h.startLine ?? null, endLine: h.endLine ?? null, score: h.score,
    ...(h.type === 'function' && h.name ? { name: h.name } : {}),
  }));
}

const QUESTIONS: [string, RegExp][] = [
  ['how does flask dispatch a request to the view function', /dispatch_request/],
  ['how are after request functions applied to the response', /process_response/],
  ['how is a URL built for an endpoint', /url_for/],
  ['how is the session cookie signed', /session/i],
  ['where are blueprints registered', /register/],
];

test('Flask: grounding over PostgreSQL\'s index stores equals grounding over SQLite\'s, and so does the built-in answer', async () => {
  for (const [question, expected] of QUESTIONS) {
    const hits = await hitsFor(question);
    assert.ok(hits.length > 0, question);
    const onSqlite = await buildGroundingContext(t.engine.reads.research, question, hits);
    const onPg = await buildGroundingContext(pg.research, question, hits);
    assert.ok(onSqlite.files.length > 0 && onSqlite.edges.length > 0, `${question}: files and edges were read`);
    assert.deepEqual(onPg, onSqlite, question);
    const answer = (context: typeof onPg) => [...composeGroundedAnswer(context)].join('');
    const first = answer(onSqlite).split('\n')[0];
    assert.match(first, expected, `${question}: ${first}`);
    assert.equal(answer(onPg), answer(onSqlite), question);
    assert.ok(repoName && onSqlite.files.every((f) => f.repoName === repoName));
  }
});
