import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { parseGrepQuery } from '../../server/engine/search/query';
import { LoupeError } from '../../server/engine/errors';
import { ensureRipgrep, ripgrepLines } from './ripgrep';

/**
 * grep_code must print exactly ripgrep's lines. Every query runs through the engine and through
 * Debian's `rg` on the same tree (hidden files included, .gitignore honoured outside a git repo,
 * as Loupe's walker does), and the (path, line, text) lists must be equal: with candidate files from
 * the trigram index and without it.
 */
const LITERALS = [
  'parseSignedCookie', 'cookie', 'Cookie', 'return', '  return', 'café', '２３', 'a+b', '(a', 'TODO', 'ignored',
  'crlf line end', 'export const', 'foo bar', '🎉', 'λόγος', '=>', '${', '.s', '"c', ' {', '{\r',
];
const REGEXES = [
  '/parse\\w+Cookie/', '/(?i)todo/', '/todo/i', '/^export/', '/;$/', '/\\d+/', '/\\bcount\\b/', '/[A-Z_]{3,}/', '/(?i)straße/',
  '/λ\\w+/', '/end"?;?$/', '/^foo/', '/^export const bom/', '/function\\s+\\w+\\s*\\(/', '/a\\sb/', '/e.s/s', '/x*/', '/[[:upper:]]{4}/',
  '/\\x{e9}/', '/\\pL+é/', '/colou?r/', '/ab|cd/', '/(?P<name>sign)Cookie/', '/\\p{Greek}+/', '/[^a-z ]{4}/', '/\\W\\w\\W/',
  '/(?i)CIRCLE/', '/a**/', '/\\S+\\s*$/', '/^\\s*$/', '/\\$\\{/', '/[\\]\\[]/', '/\\.\\w+\\(/', '/^.{80,}$/',
  // multi-line (rg -U): a match may span lines; every line it touches is returned
  '/return\\s+\\w+;\\s*\\}/m', '/\\{\\s*\\n\\s*return/m', '/cookie.value/ms', '/^}\\n\\nexport/m', '/\\r\\n\\}/m', '/\\)\\s*\\{\\s+const/m',
  // the literal planner: alternations, small classes, optional parts, case, several literals per line
  '/(parse|sign)\\w*Cookie/', '/[Cc]ookie\\(/', '/(?i)COOKIE\\.(value|name)/', '/secret|signature/', '/sign(ed)?Cookie\\(/',
  '/export (function|const) \\w+/', '/const \\w+ = \\w+\\(/', '/(?i)[A-Z]ookie/', '/ret(urn|ry)\\s/', '/\\.(slice|split)\\([0-9]/',
  '/(export|import) .*(Cookie|crypto)/', '/\\b[a-z]+Cookie\\b/', '/circle.*radius|radius.*circle/i', '/\\(\\s*\\)\\s*=>/m',
  // \A and \z: the line's start and end, except in multi-line mode
  '/\\Aexport/', '/;\\z/', '/\\A\\s*\\z/', '/\\A *return/', '/\\Aimport/m', '/\\}\\n*\\z/m', '/\\A[^\\n]*Unicode/m',
];
const REJECTED = ['/(?=x)/', '/(a)\\1/', '/[/', '/a{/', '/\\</', '/(?<!x)y/', '/\\d{2,1}/', '/)/'];

let t: TestEngine;
/** The same index used without the trigram index, and with it for every query. */
let plans: [string, TestEngine][];
let folder: string;
let rg: string;

before(async () => {
  rg = ensureRipgrep();
  folder = copyFixture('search-code');
  plans = [];
  for (const grepIndex of ['auto', 'never', 'always'] as const) {
    const e = createTestEngine({ search: { grepBudgetMs: 20000, grepIndex } });
    await indexFolder(e, folder);
    plans.push([grepIndex, e]);
  }
  t = plans[0][1];
});
after(async () => { for (const [, e] of plans) await e.close(); });

async function loupe(query: string, engine = t): Promise<string[]> {
  const r = await engine.engine.search.search(engine.ownerId, { query, scanMode: 'grep_code', scope: 'code', limit: 100000 });
  return r.results.map((h) => `${h.filePath}:${h.startLine}:${h.snippet!.text}`).sort();
}

test('literal queries return exactly the lines rg -F returns', async () => {
  for (const q of LITERALS) {
    const expected = [...ripgrepLines(folder, parseGrepQuery(q).rgArgs)].sort();
    for (const [plan, e] of plans) assert.deepEqual(await loupe(q, e), expected, `query ${JSON.stringify(q)}, index ${plan}`);
  }
});

test('regular expressions (Rust syntax, flags i, m, s) return exactly the lines rg returns', async () => {
  for (const q of REGEXES) {
    const expected = [...ripgrepLines(folder, parseGrepQuery(q).rgArgs)].sort();
    for (const [plan, e] of plans) assert.deepEqual(await loupe(q, e), expected, `query ${q} (rg ${parseGrepQuery(q).rgArgs.join(' ')}), index ${plan}`);
  }
});

test('the fixture exercises the hard cases: matches exist for unicode, CRLF, BOM and multi-line queries', async () => {
  for (const q of ['café', '/\\p{Greek}+/', '/end"?;?$/', '/^export const bom/', '/return\\s+\\w+;\\s*\\}/m', '/\\d+/']) {
    assert.ok((await loupe(q)).length > 0, `no match for ${q}: the comparison would prove nothing`);
  }
  // Ignored files are not searched by either side.
  assert.ok(!(await loupe('parseSignedCookie')).some((l) => l.startsWith('ignored/')));
});

test('patterns ripgrep refuses are refused with a 400 naming the query', async () => {
  for (const q of REJECTED) {
    const res = spawnSync(rg, ['-e', q.slice(1, -1), '.'], { cwd: folder, encoding: 'utf8' });
    assert.equal(res.status, 2, `rg accepted ${q}`);
    await assert.rejects(t.engine.search.search(t.ownerId, { query: q, scanMode: 'grep_code' }), (e: unknown) =>
      e instanceof LoupeError && e.code === 'VALIDATION_FAILED' && /^query: /.test(e.message), q);
  }
  await assert.rejects(t.engine.search.search(t.ownerId, { query: '/x/g', scanMode: 'grep_code' }), /unknown regular expression flag g/);
});

test('ripgrep is the one from the system', () => {
  assert.match(execFileSync(rg, ['--version'], { encoding: 'utf8' }), /ripgrep/);
});
