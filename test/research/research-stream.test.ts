import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './research-harness';
import { startLocalLlm, type LocalLlmOptions } from './local-llm-server';
import { openStream, readAll } from './stream-client';
import { OpenAICompatibleProvider, type OpenAICompatibleConfig } from '../../server/engine/research/providers/openai-compatible';

// One indexed sidecar for the file (indexing is the slow part); each test plugs in its own model server.
let h: Harness;
before(async () => { h = await startHarness(); });
after(async () => { await h.close(); });

async function withLlm(options: LocalLlmOptions, config: Partial<OpenAICompatibleConfig>, body: (llm: Awaited<ReturnType<typeof startLocalLlm>>) => Promise<void>) {
  const llm = await startLocalLlm(options);
  const unregister = h.t.engine.research.models.register(new OpenAICompatibleProvider({ baseUrl: llm.baseUrl, models: ['echo-1'], ...config }));
  try {
    await body(llm);
  } finally {
    unregister();
    await llm.close();
  }
}
const used = () => h.t.engine.accounts.meta(h.t.ownerId).credits_used;
const reservationsClear = () => h.t.engine.accounts.credits.available(h.t.ownerId) === h.t.engine.accounts.credits.balance(h.t.ownerId).remaining;

const QUESTION = 'how is the area of a shape computed';

test('research stream with the built-in model: search, chunks, done — flushed line by line, charged 5', async () => {
  const { status, headers, lines } = await readAll(h.url, h.t.key, { query: QUESTION });
  assert.equal(status, 200);
  assert.match(String(headers['content-type']), /^application\/x-ndjson/);
  const types = lines.map((l) => l.event.type);
  assert.equal(types[0], 'search');
  assert.equal(types.at(-1), 'done');
  assert.ok(types.slice(1, -1).every((t) => t === 'chunk') && types.length > 5, types.join(','));
  assert.equal(lines[0].event.total, 1);
  assert.equal(lines[0].event.meta.mode, 'fixed hits');
  const answer = lines.filter((l) => l.event.type === 'chunk').map((l) => l.event.text).join('');
  assert.match(answer, /^`area` in src\/app\/area\.ts:5-7 is the most likely place/);
  assert.match(answer, /It calls `multiply` \(src\/lib\/math\.ts:9\)/);
  const done = lines.at(-1)!.event;
  assert.equal(done.model, 'loupe-grounded');
  assert.deepEqual(done.context_files.map((f: { file_path: string }) => f.file_path), ['src/app/area.ts', 'src/lib/math.ts']);
  assert.equal(done.credits_used, 5, 'the built-in model adds nothing to the search');
  const row = h.t.engine.history.get(h.t.ownerId, done.history_id);
  assert.equal(row.category, 'research');
  assert.equal(row.credits, 5);
  assert.equal(row.conversation_id, done.conversation_id);
});

test('research stream with an LLM: lines arrive as the model writes them; usage is added to the credits', async () => {
  await withLlm({ delayMs: 40 }, { creditsPer1kTokens: 1000 }, async () => {
    const { lines } = await readAll(h.url, h.t.key, { query: QUESTION, model: 'echo-1' });
    const chunks = lines.filter((l) => l.event.type === 'chunk');
    assert.equal(chunks.map((l) => l.event.text).join(''), `You asked: ${QUESTION}`);
    // 9 words 40 ms apart: a buffering server would deliver them all at once.
    assert.ok(chunks.at(-1)!.at - chunks[0].at > 200, `chunks spread over ${Math.round(chunks.at(-1)!.at - chunks[0].at)} ms`);
    const done = lines.at(-1)!.event;
    assert.equal(done.type, 'done');
    assert.equal(done.usage.estimated, false);
    const tokens = done.usage.input_tokens + done.usage.output_tokens;
    assert.equal(done.credits_used, 5 + tokens, 'credits: 5 + usage at 1000 credits per 1k tokens');
    assert.equal(h.t.engine.history.get(h.t.ownerId, done.history_id).credits, 5 + tokens);
  });
});

test('a model failing mid-stream ends with a terminal error line, and nothing is charged', async () => {
  await withLlm({ delayMs: 10, failAfterWords: 3 }, {}, async () => {
    const before = used();
    const { status, lines } = await readAll(h.url, h.t.key, { query: QUESTION, model: 'echo-1' });
    assert.equal(status, 200);
    const types = lines.map((l) => l.event.type);
    assert.deepEqual(types, ['search', 'chunk', 'chunk', 'chunk', 'error']);
    assert.match(lines.at(-1)!.event.message, /chat model: the stream from .* broke|closed the stream/);
    assert.equal(lines.at(-1)!.event.code, 'SERVICE_UNAVAILABLE');
    assert.equal(used(), before);
    assert.ok(reservationsClear(), 'reservation released');
    const [row] = h.t.engine.history.list(h.t.ownerId, { limit: 1, offset: 0 }).items;
    assert.equal(row.category, 'research');
    assert.equal(row.credits, 0);
    assert.match(row.summary ?? '', /echo-1: failed: chat model: the stream from/);
  });
});

test('a client that disconnects mid-stream aborts the model request at once', async () => {
  await withLlm({ delayMs: 100 }, {}, async (llm) => {
    const rows = h.t.engine.history.list(h.t.ownerId, { limit: 1, offset: 0 }).total;
    const s = await openStream(h.url, h.t.key, { query: `${QUESTION} ${'and more words '.repeat(20)}`, model: 'echo-1' });
    const disconnected = llm.nextDisconnect();
    for await (const line of s.lines()) {
      if (line.event.type === 'chunk') break; // leaving the loop destroys the body
    }
    s.abort();
    const at = performance.now();
    await Promise.race([disconnected, new Promise((_, reject) => setTimeout(() => reject(new Error('the model request was never aborted')), 2000))]);
    const ms = performance.now() - at;
    assert.ok(ms < 250, `the model request was aborted ${Math.round(ms)} ms after the client left`);
    assert.equal(llm.requests.length, 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(h.t.engine.history.list(h.t.ownerId, { limit: 1, offset: 0 }).total, rows, 'an abandoned call leaves no history row');
    assert.ok(reservationsClear(), 'reservation released');
  });
});

test('refusals come before the stream as JSON: unknown model 400, Accept 406, foreign conversation 404', async () => {
  const before = used();
  const unknown = await readAll(h.url, h.t.key, { query: QUESTION, model: 'gpt-17' });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 'UNKNOWN_MODEL');
  assert.match(unknown.json.message, /model: "gpt-17" is not an available chat model/);
  assert.equal(unknown.json.field, 'model');
  const json = await readAll(h.url, h.t.key, { query: QUESTION }, { accept: 'application/json' });
  assert.equal(json.status, 406);
  assert.equal(json.json.code, 'NOT_ACCEPTABLE');
  const foreign = await readAll(h.url, h.t.key, { query: QUESTION, conversation_id: '00000000-0000-4000-8000-000000000000' });
  assert.equal(foreign.status, 404);
  assert.equal(used(), before);
});

test('conversation_id continues a conversation: earlier turns are in the model\'s prompt, rows share the thread', async () => {
  await withLlm({}, {}, async (llm) => {
    const first = await readAll(h.url, h.t.key, { query: QUESTION, model: 'echo-1' });
    const conversationId = first.lines.at(-1)!.event.conversation_id;
    assert.match(conversationId, /^[0-9a-f-]{36}$/);
    const second = await readAll(h.url, h.t.key, { query: 'and where is multiply defined', model: 'echo-1', conversation_id: conversationId });
    assert.equal(second.lines.at(-1)!.event.conversation_id, conversationId);
    const prompt = llm.requests[1].messages;
    assert.deepEqual(prompt.map((m: { role: string }) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(prompt[1].content, QUESTION);
    assert.equal(prompt[2].content, `You asked: ${QUESTION}`);
    assert.equal(prompt[3].content, 'and where is multiply defined');
    const thread = h.t.engine.history.conversation(h.t.ownerId, conversationId);
    assert.deepEqual(thread.items.map((i) => [i.category, i.query]), [['research', QUESTION], ['research', 'and where is multiply defined']]);
  });
});

test('too few credits for the search is a 402 before the stream; nothing is charged', async () => {
  const before = used();
  h.t.engine.accounts.store.setCreditLimit(h.t.ownerId, before + 4);
  try {
    const res = await readAll(h.url, h.t.key, { query: QUESTION });
    assert.equal(res.status, 402);
    assert.equal(res.json.code, 'INSUFFICIENT_CREDITS');
    assert.equal(res.json.required, 5);
    assert.equal(res.json.available, 4);
    assert.equal(used(), before);
  } finally {
    h.t.engine.accounts.store.setCreditLimit(h.t.ownerId, null);
  }
});
