/**
 * Model-assisted retrieval against a real OpenAI-compatible server on 127.0.0.1 that answers with
 * fixed expansions (bench/fixed-expansions-server.ts): off unless configured; when on, the model gets
 * the question and the repository's names (no code) and then the top function hits (names, paths,
 * signatures), its identifiers lead the answer, and its usage is charged with the research.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { startFixedModel } from '../../bench/fixed-expansions-server';
import { firstLine } from '../../bench/research-eval';
import { settingsFromMcp } from '../../server/settings';

const QUESTION = 'how are request handlers looked up';

function project(): string {
  const root = path.join(tempDir('loupe-assist-'), 'router');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), '{"name":"router","version":"1.0.0"}');
  // The words of the question are in `RequestHandlerLookupOptions`; the function that answers it is `matchRoute`.
  fs.writeFileSync(path.join(root, 'src/router.ts'), [
    '/** Options of the request handler lookup. */',
    'export interface RequestHandlerLookupOptions { strict: boolean }',
    '',
    '/** Counts request handlers. */',
    'export function countRequestHandlers(table: Map<string, unknown>): number {',
    '  return table.size;',
    '}',
    '',
    '/** Finds the handler registered for a method and a path. */',
    'export function matchRoute(table: Map<string, () => string>, method: string, path: string): (() => string) | undefined {',
    '  const secretBody = table.get(`${method} ${path}`);',
    '  return secretBody;',
    '}',
    '',
  ].join('\n'));
  return root;
}

async function ask(t: TestEngine, query: string) {
  const caller = await t.engine.ops.auth.caller({ apiKey: t.key });
  const run = await t.engine.ops.search.research(caller, { query, chat: true } as never);
  let answer = '';
  let done: { credits_used: number; history_id: string | null } | null = null;
  for await (const event of run.events(new AbortController().signal)) {
    if (event.type === 'chunk') answer += event.text;
    if (event.type === 'done') done = event;
  }
  return { answer, done: done! };
}

test('off by default: a configured chat model is not asked to help retrieval', async () => {
  const model = await startFixedModel({ [QUESTION]: ['matchRoute'] });
  const t = createTestEngine({ research: { openai: { baseUrl: model.baseUrl, models: ['assist-1'] } } });
  try {
    assert.equal(t.engine.research.assist, null);
    await indexFolder(t, project());
    const { answer, done } = await ask(t, QUESTION);
    assert.equal(model.requests.length, 0, 'nothing was sent to the model');
    assert.doesNotMatch(firstLine(answer), /^`matchRoute`/);
    assert.equal(done.credits_used, 5);
  } finally {
    await t.close();
    await model.close();
  }
});

test('on: expansion sends names, not code; its identifier leads the answer; rerank gets the hits; usage is charged', async () => {
  const model = await startFixedModel({ [QUESTION]: ['matchRoute', 'notInTheRepository'] });
  const t = createTestEngine({ research: { openai: { baseUrl: model.baseUrl, models: ['assist-1'], creditsPer1kTokens: 1000 }, retrieval: { model: 'assist-1' } } });
  try {
    await indexFolder(t, project());
    const { answer, done } = await ask(t, QUESTION);
    assert.match(firstLine(answer), /^`matchRoute` in src\/router\.ts:10-13 is the most likely place/);
    const [expansion, rerank] = model.requests;
    assert.equal(model.requests.length, 2);
    const sent = expansion.messages.map((m) => m.content).join('\n');
    assert.match(sent, new RegExp(`Question: ${QUESTION}`));
    assert.match(sent, /^matchRoute$/m);
    assert.match(sent, /^countRequestHandlers$/m);
    assert.doesNotMatch(sent, /secretBody|table\.get/, 'no code is sent for expansion');
    const ranked = rerank.messages.map((m) => m.content).join('\n');
    assert.match(ranked, /\d+\. matchRoute src\/router\.ts:10 `/);
    assert.doesNotMatch(ranked, /secretBody/, 'no code bodies are sent for rerank');
    // 5 for the search, the grounded answer is free, the two retrieval calls at 1000 credits per 1k tokens.
    assert.ok(done.credits_used > 5, `charged ${done.credits_used}`);
    const row = t.engine.history.get(t.ownerId, done.history_id!);
    assert.deepEqual((row.result as { retrieval: { identifiers: string[] } }).retrieval.identifiers, ['matchRoute'], 'names outside the repository are dropped');
  } finally {
    await t.close();
    await model.close();
  }
});

test('a model that is down costs nothing and retrieval goes on without it', async () => {
  const model = await startFixedModel({});
  const baseUrl = model.baseUrl;
  await model.close();
  const t = createTestEngine({ research: { openai: { baseUrl, models: ['assist-1'] }, retrieval: { model: 'assist-1', timeoutMs: 2000 } } });
  try {
    await indexFolder(t, project());
    const { answer, done } = await ask(t, QUESTION);
    assert.match(answer, /src\/router\.ts/);
    assert.equal(done.credits_used, 5);
  } finally {
    await t.close();
  }
});

test('LOUPE_RETRIEVAL_MODEL turns it on; unset, it is off', () => {
  const folder = tempDir('loupe-assist-settings-');
  assert.deepEqual(settingsFromMcp({ folder }, { LOUPE_RETRIEVAL_MODEL: 'assist-1' }).engine.research?.retrieval, { model: 'assist-1' });
  assert.equal(settingsFromMcp({ folder }, {}).engine.research?.retrieval ?? null, null);
});
