import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { copyField, copyFrom, copyRows, copyTextArray, pgText } from '../../server/engine/store/pg/copy';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS } from '../../server/engine/store/pg/index-stores';
import { PgIndexWriter } from '../../server/engine/indexer/pg-index-writer';
import { Indexer } from '../../server/engine/indexer/indexer';
import { ftsExpression, queryTerms } from '../../server/engine/search/query';
import { silentLogger } from '../../server/engine/log';
import { tempDir } from '../helpers/engine';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { assertSameIndex, snapshot, sqliteReference, type Query } from '../team/worker-harness';

// The index's big tables are written with COPY FROM STDIN (pg/copy.ts, a text-format encoder of our
// own). Whatever a file holds must come back as it went in, and as SQLite keeps it: the worker's
// writer (Indexer + PgIndexWriter, the code the index worker runs) indexes a folder of hostile files
// into a private PostgreSQL 15, and its rows equal the engine's SQLite index of the same folder.

let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

test('COPY text format: fields, NULL, escapes, arrays', () => {
  assert.equal(copyField(null), '\\N');
  assert.equal(copyField(undefined), '\\N');
  assert.equal(copyField('\\N'), '\\\\N', 'the text \\N is not NULL');
  assert.equal(copyField(12.5), '12.5');
  assert.equal(copyField(true), 't');
  assert.equal(copyField(false), 'f');
  assert.equal(copyField('a\tb\nc\rd\\e'), 'a\\tb\\nc\\rd\\\\e');
  assert.equal(copyField('\\.'), '\\\\.', 'a line of \\. does not end the data');
  assert.equal(copyField('x\0y'), 'x\uFFFDy', 'PostgreSQL text holds no NUL');
  assert.equal(copyField('é🎉\u2028'), 'é🎉\u2028', 'other characters pass as they are');
  assert.throws(() => copyField(Number.NaN));
  assert.equal(copyTextArray([]), '{}');
  assert.equal(copyTextArray(['a', 'b c', 'd"e', 'f\\g', 'NULL', '{}']), '{"a","b c","d\\\\"e","f\\\\\\\\g","NULL","{}"}');
  assert.equal(copyRows([[1, 2], ['a', null]]), '1\ta\n2\t\\N\n');
  assert.throws(() => copyRows([[1, 2], ['a']]), /different lengths/);
  assert.equal(pgText('a\0b\0'), 'a\uFFFDb\uFFFD');
  assert.equal(pgText(null), null);
});

test('COPY round trip on a real server: every hostile value comes back as it was (NUL as U+FFFD)', async () => {
  const url = await cluster.createDatabase();
  const db = new PgDb({ url, max: 2 });
  try {
    await db.query('CREATE TABLE t (n int, s text, a text[], b bool, f float8)');
    const values = ['', ' ', '\t', '\n', '\r\n', '\\', '\\N', '\\.', '\\t', 'a\\\\b', '"q"', "'s'", '{a,b}', 'NULL', 'é', 'e\u0301', '🎉', '\u2028\u2029',
      '\uFEFFbom', '变量', 'مرحبا', 'x'.repeat(3 << 20), 'line1\nline2\tcol\\end', 'nul\0here'];
    const arrays = values.map((v) => [v, 'b c', '']);
    await db.copyFrom('COPY t (n, s, a, b, f) FROM STDIN', copyRows([values.map((_, i) => i), values, arrays.map(copyTextArray), values.map((_, i) => i % 2 === 0), values.map((_, i) => i / 3)],
      [false, false, true, false, false]));
    await db.copyFrom('COPY t (n, s, a, b, f) FROM STDIN', copyRows([[-1], [null], ['{}'], [null], [null]], [false, false, true, false, false]));
    const rows = await db.rows<{ n: number; s: string | null; a: string[]; b: boolean | null; f: number | null }>('SELECT n, s, a, b, f FROM t ORDER BY n');
    assert.equal(rows.length, values.length + 1);
    assert.deepEqual(rows[0], { n: -1, s: null, a: [], b: null, f: null });
    values.forEach((v, i) => {
      const want = v.replace(/\0/g, '\uFFFD');
      assert.equal(rows[i + 1]!.s, want, `value ${i}`);
      assert.deepEqual(rows[i + 1]!.a, [want, 'b c', ''], `array ${i}`);
      assert.equal(rows[i + 1]!.b, i % 2 === 0);
      assert.equal(rows[i + 1]!.f, i / 3);
    });
    // A refused row fails the COPY (and its transaction) with the server's message; the session stays usable.
    await assert.rejects(db.transaction(() => db.copyFrom('COPY t (n, s) FROM STDIN', 'not a number\tx\n')), /invalid input syntax for type integer/);
    await assert.rejects(db.copyFrom('COPY missing (n) FROM STDIN', '1\n'), /does not exist/);
    assert.equal((await db.one<{ n: number }>('SELECT count(*)::int AS n FROM t'))!.n, values.length + 1, 'nothing of the failed COPYs was kept');
    // The data goes right behind the statement: when the statement itself fails, the server drops the
    // data that follows, and the same session answers the next statements (several queued at once).
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const queued = [copyFrom(client, 'COPY missing (n) FROM STDIN', '1\n2\n'), client.query('SELECT 41 + 1 AS n'),
        copyFrom(client, 'COPY t (n, s) FROM STDIN', '1000\tafter\n'), copyFrom(client, 'COPY t (n, s) FROM STDIN', 'bad\tx\n'), client.query('SELECT 7 AS n')];
      const settled = await Promise.allSettled(queued);
      assert.match(String((settled[0] as PromiseRejectedResult).reason), /does not exist/);
      assert.equal((settled[1] as PromiseFulfilledResult<pg.QueryResult>).value.rows[0].n, 42);
      assert.equal((settled[2] as PromiseFulfilledResult<number>).value, 1);
      assert.match(String((settled[3] as PromiseRejectedResult).reason), /invalid input syntax/);
      assert.equal((settled[4] as PromiseFulfilledResult<pg.QueryResult>).value.rows[0].n, 7);
      assert.equal((await client.query('SELECT s FROM t WHERE n = 1000')).rows[0].s, 'after');
    } finally {
      await client.end();
    }
  } finally {
    await db.close();
  }
});

/** Files that hold every character the COPY text format escapes or might mistake, in code that parses. */
function hostileFolder(): string {
  const dir = tempDir('loupe-hostile-');
  const w = (p: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true }); fs.writeFileSync(path.join(dir, p), text); };
  w('src/tabs.ts', [
    "import { helper } from './helpers/back\\\\slash';",
    'import type { Other } from "./unicode";',
    '/**',
    ' * Doc with\ta tab, a backslash \\ and \\N and \\. and a \\t written out.',
    ' */',
    'export function\tafterTab(a: string, b = "C:\\\\temp\\\\new"): string {',
    '\treturn a + b + "\\t\\n" + `\\N`;',
    '}',
    '\\.',
    '\\N',
    'export const windowsLine = "crlf";\r',
    'export class Weird { method\t(x: number) { return x \\ 1; } }\r',
    '',
  ].join('\n'));
  w('src/unicode.ts', [
    '\uFEFF// BOM first; café, naïve, e\u0301 combining, 🎉 astral, 变量, مرحبا, \u2028 and \u2029 separators',
    'export interface Other { 变量: number; emoji: "🎉" }',
    'export const crème = "brûlée"; // zero\u200Dwidth joiner',
    'export function façade(): string { return "\\u0000 written out, not a NUL"; }',
    '',
  ].join('\n'));
  // A NUL past the first 8,000 bytes: the file is text to the parser (binary files are skipped earlier).
  w('src/late-nul.ts', `${'// padding line of a generated table\n'.repeat(260)}export const beforeNul = 1;\nconst s = "a\0b";\nexport function afterNul(): number { return 2; }\n`);
  w('tool/script.py', '# -*- coding: utf-8 -*-\nimport os\n\ndef tabbed(path):\n\treturn os.path.join(path, "back\\\\slash\\ttab")\n\nclass Ünïcode:\n    """Doc with \\N and \\. and\ttab."""\n    pass\n');
  w('src/helpers/back\\slash.ts', 'export const helper = 1;\n');
  w('docs/notes.md', '# Notes\n\n| a\t| b |\n|---|---|\n| \\N | \\. |\n');
  return dir;
}

/** Every string in a snapshot as PostgreSQL keeps it: a NUL as U+FFFD. */
function asPostgresKeepsIt(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\0/g, '\uFFFD');
  if (Array.isArray(value)) return value.map(asPostgresKeepsIt);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asPostgresKeepsIt(v)]));
  return value;
}

test('the index worker\'s writer indexes hostile files through COPY and its index equals SQLite\'s', async () => {
  const folder = hostileFolder();
  const { ids: [id], snaps: [expected] } = await sqliteReference([folder]);
  assert.match(JSON.stringify(expected), /[^\\]\\u0000/, 'the reference holds the NUL (the file was indexed, not skipped)');
  assert.ok(Object.keys(expected!).includes('src/helpers/back\\slash.ts'));

  const db = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  try {
    await migratePg(db, PG_INDEX_MIGRATIONS);
    const stores = openPgIndexStores(db, { vectors: 'bytea' });
    // The same repository id as SQLite's: file uids are made from it.
    await stores.repos.insert({ id: id!, url: folder, name: 'hostile', rootPath: folder, source: 'local', branch: null, visibility: 'private' });
    const writer = new PgIndexWriter(stores, db, { maxFileBytes: 1024 * 1024 });
    const indexer = new Indexer(stores.repos, writer.indexerFiles, silentLogger, { maxFileBytes: 1024 * 1024, writerThread: false }, undefined, writer);
    try {
      await indexer.indexRepository((await stores.repos.get(id!))!);
    } finally {
      await indexer.close();
    }
    const q: Query = async (sql, params) => (await db.query(sql, params)).rows;
    const actual = await snapshot(stores.files, q, id!);
    assertSameIndex(actual, asPostgresKeepsIt(expected!) as Record<string, unknown>, 'hostile files');
    assert.match(JSON.stringify(actual['src/late-nul.ts']), /a\ufffdb/, 'the NUL is stored as U+FFFD');

    // The lexical index read the same text: words after tabs, backslashes and the NUL are found.
    for (const [words, file] of [['afterTab windowsLine', 'src/tabs.ts'], ['afterNul', 'src/late-nul.ts'], ['tabbed', 'tool/script.py'], ['combining separators', 'src/unicode.ts']] as const) {
      const hits = await stores.search.lexical(ftsExpression(queryTerms(words))!, [id!], 20, [2, 4, 1]);
      assert.ok(hits.length > 0, `lexical ${words}`);
      const paths = await Promise.all(hits.map(async (h) => (await db.one<{ path: string }>('SELECT f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = $1', [h.chunkId]))!.path));
      assert.ok(paths.includes(file), `lexical ${words}: ${paths.join(', ')}`);
    }
    // BM25's totals count every chunk written.
    const stats = (await db.one<{ docs: number; n: number }>('SELECT s.docs::int AS docs, (SELECT count(*)::int FROM chunks) AS n FROM fts_stats s WHERE repo_id = $1', [id]))!;
    assert.equal(stats.docs, stats.n);
  } finally {
    await db.close();
  }
});
