/**
 * The built-in model's answer through the research operation, on a real index: the first line names
 * the function that does what was asked (not a type, a test or a benchmark that mentions the words),
 * the explanation stays short, sources are listed once, and a follow-up that points back ("where is
 * it called?") is about the previous answer's subject. The last test asks real code (hono's utils
 * from npm, with its CommonJS copy and its type declarations beside it) and checks first lines.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import type { Caller } from '../../server/engine/operations/call';
import { composeGroundedAnswer, tidyDoc } from '../../server/engine/research/providers/grounded';
import { firstLine, judge } from '../../bench/research-eval';
import type { ResearchQuestion } from '../../bench/research-questions';

async function ask(t: TestEngine, caller: Caller, query: string, extra: Record<string, unknown> = {}) {
  const run = await t.engine.ops.search.research(caller, { query, chat: true, ...extra } as never);
  let answer = '';
  let done: { conversation_id: string | null; context_files: { file_path: string }[] } | null = null;
  for await (const event of run.events(new AbortController().signal)) {
    if (event.type === 'chunk') answer += event.text;
    if (event.type === 'done') done = event;
  }
  return { answer, done: done! };
}

/** Prose words: the answer without its code blocks and its sources list. */
const proseWords = (answer: string) => answer.replace(/```[\s\S]*?```/g, '').split('### Sources')[0].split(/\s+/).filter(Boolean).length;

const write = (root: string, files: Record<string, string>) => {
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
  }
};

let t: TestEngine;
let caller: Caller;
before(async () => {
  t = createTestEngine();
  caller = await t.engine.ops.auth.caller({ apiKey: t.key });
  const root = path.join(tempDir('loupe-cookies-'), 'cookies');
  write(root, {
    'package.json': '{"name":"cookies","version":"1.0.0"}',
    'src/cookie.ts': [
      "import { hmac } from './crypto';",
      '',
      "/** Verifies a signed cookie's signature and returns its value, or false when the signature does not match. */",
      'export async function verifySignedCookie(cookie: string, secret: string): Promise<string | false> {',
      "  const [value, signature] = cookie.split('.');",
      '  return (await checkSignature(value, signature, secret)) ? value : false;',
      '}',
      '',
      'async function checkSignature(value: string, signature: string, secret: string): Promise<boolean> {',
      '  return (await hmac(secret, value)) === signature;',
      '}',
      '',
    ].join('\n'),
    'src/crypto.ts': '/** An HMAC of a value. */\nexport async function hmac(secret: string, value: string): Promise<string> {\n  return `${secret.length}:${value}`;\n}\n',
    'src/types.ts': '/** A signed cookie: its value and the signature that verifies it. */\nexport interface SignedCookie {\n  value: string;\n  signature: string;\n}\n'
      + '/** Options for verifying signed cookies. */\nexport type SignedCookieVerifyOptions = { secret: string };\n',
    'src/cookie.d.ts': 'export declare function verifySignedCookie(cookie: string, secret: string): Promise<string | false>;\n',
    'src/session.ts': "import { verifySignedCookie } from './cookie';\n\n/** Reads the session from its signed cookie. */\nexport async function readSession(cookie: string): Promise<string | false> {\n  return verifySignedCookie(cookie, 'secret');\n}\n",
    'test/cookie.test.ts': "import { verifySignedCookie } from '../src/cookie';\n\n/** Signed cookies are verified with the right secret. */\nexport async function testVerifySignedCookie() {\n  return verifySignedCookie('a.b', 'secret');\n}\n",
    'bench/cookie.bench.ts': "import { verifySignedCookie } from '../src/cookie';\n\n/** How fast signed cookies are verified. */\nexport async function benchVerifySignedCookies() {\n  for (let i = 0; i < 1000; i++) await verifySignedCookie('a.b', 'secret');\n}\n",
  });
  await indexFolder(t, root);
  await indexFolder(t, copyFixture('ts-paths'));
  await t.engine.vectors.idle();
});
after(async () => { await t.close(); });

test('the first line names the function that verifies, not the type, the declaration, the test or the benchmark', async () => {
  const { answer } = await ask(t, caller, 'where are signed cookies verified');
  assert.match(firstLine(answer), /^`verifySignedCookie` in src\/cookie\.ts:4-7 is the most likely place: Verifies a signed cookie's signature/);
  assert.match(answer, /It calls `checkSignature` \(src\/cookie\.ts:9\)\./);
  assert.match(answer, /It is called by `readSession` \(src\/session\.ts:4\)/);
  assert.doesNotMatch(answer, /test\/cookie\.test\.ts|bench\/cookie\.bench\.ts/, 'test and benchmark code only when asked');
  assert.ok(proseWords(answer) <= 250, `${proseWords(answer)} words`);
  const sources = answer.slice(answer.indexOf('### Sources')).split('\n').filter((l) => /^\d+\. /.test(l)).map((l) => l.replace(/^\d+\. /, '').split(':')[0]);
  assert.deepEqual(sources, [...new Set(sources)], 'each file once');
  assert.equal(answer.split('### Sources').length, 2, 'one sources list');
  // webview/research-turn.ts answerListsSources(): a Sources heading means the view shows this list and no second one.
  assert.match(answer, /^#{1,6}\s*Sources\b/im);
});

test('tests and benchmarks lead when the question asks for them', async () => {
  const { answer } = await ask(t, caller, 'which tests check that signed cookies are verified');
  assert.match(firstLine(answer), /test\/cookie\.test\.ts:\d+/);
  const bench = await ask(t, caller, 'benchmark of verifying signed cookies');
  assert.match(firstLine(bench.answer), /^`benchVerifySignedCookies` in bench\/cookie\.bench\.ts:4-6/);
});

test('a doc is cut after its second sentence, not inside a dotted name (cobra\'s MousetrapHelpText, werkzeug\'s parse_date)', () => {
  // Both from real docs: the cut used to drop the words before `explorer.exe.` and `datetime.datetime`.
  assert.equal(tidyDoc('MousetrapHelpText enables an information splash screen on Windows if the CLI is started from explorer.exe. '
    + 'To disable the mousetrap, just set this variable to blank string (""). Works only on Microsoft Windows.'),
  'MousetrapHelpText enables an information splash screen on Windows if the CLI is started from explorer.exe. To disable the mousetrap, just set this variable to blank string ("").');
  assert.equal(tidyDoc('Parse an :rfc:`2822` date into a timezone-aware :class:`datetime.datetime` object, or ``None`` if parsing fails. '
    + 'This is a wrapper for :func:`email.utils.parsedate_to_datetime`. It returns None.').split('. ')[0],
  'Parse an :rfc:`2822` date into a timezone-aware :class:`datetime.datetime` object, or ``None`` if parsing fails');
  assert.equal(tidyDoc('Returns e.g. the header. Second. Third.'), 'Returns e.g. the header. Second.');
});

test('the explanation keeps to its word budget', () => {
  const symbols = Array.from({ length: 40 }, (_, i) => ({
    name: `signedCookieStep${i}`, kind: 'function' as const, parent: null, startLine: i * 5 + 1, endLine: i * 5 + 4,
    signature: `export function signedCookieStep${i}(value: string): string`, doc: 'Verifies one more part of a signed cookie, with a long explanation of what it checks and why.', exported: true, relevance: 3,
  }));
  const context = {
    question: 'where are signed cookies verified',
    files: [{ repoId: 'r', repoName: 'r', path: 'src/steps.ts', language: 'typescript', lines: 200, description: null, excerpt: null, symbols }],
    edges: [], lead: { repoId: 'r', repoName: 'r', path: 'src/steps.ts', symbol: symbols[0] },
    related: symbols.slice(1, 5).map((symbol) => ({ repoId: 'r', repoName: 'r', path: 'src/steps.ts', symbol })),
  };
  const short = [...composeGroundedAnswer(context, { maxWords: 40 })].join('');
  assert.ok(proseWords(short) <= 40, `${proseWords(short)} words: ${short}`);
  assert.match(firstLine(short), /^`signedCookieStep0` in src\/steps\.ts:1-4/);
  assert.ok(proseWords([...composeGroundedAnswer(context)].join('')) <= 250);
});

test('a follow-up that points back ("where is it called?") is about the previous answer\'s subject', async () => {
  const first = await ask(t, caller, 'compute the area of a shape');
  assert.match(firstLine(first.answer), /^`area` in src\/app\/area\.ts:5-7/);
  const followUp = await ask(t, caller, 'where is it called?', { conversation_id: first.done.conversation_id });
  assert.match(firstLine(followUp.answer), /^`area` in src\/app\/area\.ts:5-7/, followUp.answer);
  assert.match(followUp.answer, /It is called by `main` \(src\/app\/main\.ts:9\)/);
  // A follow-up with a subject of its own is about that subject.
  const other = await ask(t, caller, 'which function adds the length to a label', { conversation_id: first.done.conversation_id });
  assert.doesNotMatch(firstLine(other.answer), /^`area`/, other.answer);
  // Without the thread the same words find nothing to lead with.
  const alone = await ask(t, caller, 'where is it called?');
  assert.doesNotMatch(firstLine(alone.answer), /^`area`/);
});

test('real code (hono utils from npm, beside their CommonJS copy and type declarations): first lines name the expected place', async () => {
  const hono = npmPackage('hono@4.13.19');
  const root = path.join(tempDir('loupe-hono-utils-'), 'hono');
  for (const sub of ['dist/utils', 'dist/cjs/utils', 'dist/types/utils']) fs.cpSync(path.join(hono, sub), path.join(root, sub), { recursive: true });
  const repo = await indexFolder(t, root);
  await t.engine.vectors.idle();
  const store = t.engine.storage.research;
  const symbolsOf = (_c: string, filePath: string) => {
    const row = store.file(repo.id, filePath);
    return row ? store.symbols(row.id) : [];
  };
  const questions: ResearchQuestion[] = [
    { corpus: 'hono', question: 'how are two strings compared in constant time', expect: [{ symbol: 'constantTimeEqualString', file: 'utils/buffer.js' }, { symbol: 'timingSafeEqual', file: 'utils/buffer.js' }] },
    { corpus: 'hono', question: 'how is HTML escaped', expect: [{ symbol: 'escapeToBuffer', file: 'utils/html.js' }] },
    { corpus: 'hono', question: 'how is the Accept header parsed', expect: [{ symbol: 'parseAccept', file: 'utils/accept.js' }] },
    { corpus: 'hono', question: 'how is the request body parsed', expect: [{ symbol: 'parseBody', file: 'utils/body.js' }] },
    { corpus: 'hono', question: 'how is the mime type found from a file name', expect: [{ symbol: 'getMimeType', file: 'utils/mime.js' }] },
  ];
  const wrong: string[] = [];
  for (const q of questions) {
    const { answer } = await ask(t, caller, q.question, { repo_ids: [repo.id] });
    if (!judge(q, firstLine(answer), symbolsOf).right) wrong.push(`${q.question}: ${firstLine(answer)}`);
  }
  assert.deepEqual(wrong, []);
});
