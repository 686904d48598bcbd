import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { embedderConformance } from './embedder-conformance';
import { tempDir } from '../helpers/engine';
import { HashedEmbedder } from '../../server/engine/embed/hashed-embedder';
import { CorpusEmbedder } from '../../server/engine/embed/corpus-embedder';
import { deserializeModel, serializeModel, trainCorpusModel } from '../../server/engine/embed/corpus-model';
import { OnnxEmbedder } from '../../server/engine/embed/onnx-embedder';
import { OpenAIEmbedder } from '../../server/engine/embed/openai-embedder';
import { writeTinyBertModel } from './tiny-onnx-model';
import { textTerms } from '../../server/engine/embed/terms';
import { normalize } from '../../server/engine/embed/embedder';
import { npmPackage } from '../helpers/real-code';
import { walk } from '../../server/engine/indexer/walk';

const TEXTS = [
  'export function parseSignedCookie(value, secret) { return verify the cookie signature }',
  'class Circle { area() { return Math.PI * radius * radius } }',
  'retry the request with exponential backoff when it fails',
];
const SEMANTIC = { anchor: 'signed cookie secret', related: 'verify a signed cookie with its secret', unrelated: 'circle area radius' };

// A small corpus with real co-occurrence: cookie words appear together, geometry words together.
const CORPUS = Array.from({ length: 60 }, (_, i) => [
  `parse signed cookie value secret signature verify cookie header ${i % 7}`,
  `circle area radius circumference point inside geometry shape ${i % 5}`,
  `retry request backoff delay attempt error network timeout ${i % 3}`,
  `sign cookie secret hmac signature value ${i % 4}`,
][i % 4]);

embedderConformance({ name: 'hashed', make: async () => new HashedEmbedder(), texts: TEXTS, semantic: SEMANTIC });

embedderConformance({
  name: 'corpus (LSA)',
  make: async () => {
    const model = trainCorpusModel(CORPUS, { dims: 16 })!;
    // Through the bytes the database stores, as the engine loads it.
    return new CorpusEmbedder('corpus-test', deserializeModel(serializeModel(model)));
  },
  texts: TEXTS,
  semantic: SEMANTIC,
});

let onnxDir: string | null = null;
embedderConformance({
  name: 'onnx (a tiny BERT-shaped model this test writes)',
  make: async () => {
    onnxDir ??= writeTinyBertModel(tempDir('loupe-onnx-'));
    return OnnxEmbedder.load(onnxDir);
  },
  texts: TEXTS,
  // Mean-pooled fixed token vectors: texts sharing tokens are closer, which is all this model can mean.
  semantic: SEMANTIC,
});

// Stands in for a remote OpenAI-compatible service (OpenAI, Ollama, LM Studio, vLLM): a real HTTP
// server on 127.0.0.1 that speaks POST /v1/embeddings and computes real (hashed) vectors, unnormalized
// and out of order, as some servers return them.
let server: http.Server | null = null;
const seen: { auth?: string; model?: string; inputs: number }[] = [];
async function embeddingsServer(): Promise<string> {
  if (server) return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const hashed = new HashedEmbedder(64);
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', async () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') { res.writeHead(404).end(); return; }
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      seen.push({ auth: req.headers.authorization, model, inputs: input.length });
      if (input.some((t) => t === '')) { res.writeHead(400).end('{"error":"empty input"}'); return; }
      const vectors = await hashed.embed(input);
      const data = vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...(v ?? new Float32Array(64))].map((x) => x * 3) })).reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}
after(() => { server?.close(); });

embedderConformance({
  name: 'openai-compatible over HTTP',
  make: async () => new OpenAIEmbedder({ baseUrl: await embeddingsServer(), model: 'test-embed', apiKey: 'sk-local', batchSize: 2 }).init(),
  texts: TEXTS,
  semantic: SEMANTIC,
});

test('openai-compatible: sends the model and key, batches, learns the width, reports server errors', async () => {
  const base = await embeddingsServer();
  seen.length = 0;
  const e = await new OpenAIEmbedder({ baseUrl: base, model: 'm1', apiKey: 'sk-x', batchSize: 2 }).init();
  assert.equal(e.dims, 64);
  await e.embed(['a b c', 'd e f', 'g h i'], 'document');
  assert.deepEqual(seen.slice(1).map((s) => s.inputs), [2, 1]);
  assert.ok(seen.every((s) => s.auth === 'Bearer sk-x' && s.model === 'm1'));
  await assert.rejects(new OpenAIEmbedder({ baseUrl: `${base}/missing`, model: 'm1', dims: 64 }).embed(['x y'], 'query'), /answered 404/);
});

test('onnx: a folder without a model or tokenizer is refused with the reason', async () => {
  const empty = tempDir('loupe-onnx-empty-');
  await assert.rejects(OnnxEmbedder.load(empty), /no model\.onnx/);
  const dir = writeTinyBertModel(tempDir('loupe-onnx-notok-'));
  fs.rmSync(path.join(dir, 'vocab.txt'));
  await assert.rejects(OnnxEmbedder.load(dir), /no tokenizer\.json or vocab\.txt/);
});

test('corpus model: words that share chunks end up near each other', () => {
  const model = trainCorpusModel(CORPUS, { dims: 16 })!;
  const e = new CorpusEmbedder('t', model);
  const near = e.neighbours('cooki', 5);
  assert.ok(near.includes('sign') || near.includes('secret'), near.join(', '));
  assert.ok(!near.slice(0, 3).includes('radiu'), near.join(', '));
});

test('corpus embedder: each text\'s vector is the log-tf·idf fold-in of its words, to the bit, text after text (hono\'s modules)', () => {
  const root = path.join(npmPackage('hono@4.13.19'), 'dist');
  const texts = walk(root).filter((f) => f.relPath.endsWith('.js')).map((f) => fs.readFileSync(path.join(root, f.relPath), 'utf8'));
  const model = trainCorpusModel([...texts, ...texts.map((t) => t.split('\n').slice(0, 30).join('\n'))], { dims: 32 })!;
  const index = new Map(model.terms.map((t, i) => [t, i]));
  // The fold-in as written down: counts by word in first-seen order, weighted, summed in that order, normalized.
  const reference = (text: string): Float32Array | null => {
    const tf = new Map<number, number>();
    for (const term of textTerms(text)) { const j = index.get(term); if (j !== undefined) tf.set(j, (tf.get(j) ?? 0) + 1); }
    if (!tf.size) return null;
    const v = new Float32Array(model.dims);
    for (const [j, c] of tf) { const w = (1 + Math.log(c)) * model.idf[j]; for (let k = 0; k < model.dims; k++) v[k] += w * model.vectors[j * model.dims + k]; }
    return normalize(v);
  };
  const e = new CorpusEmbedder('t', model);
  // Every text twice, and a text of no known word between: what one text counted must not carry into the next.
  for (const text of [...texts, 'zzzq xxyq', ...texts]) assert.deepEqual(e.embedOne(text), reference(text), text.slice(0, 60));
  assert.ok(texts.length > 100, `${texts.length} modules`);
});
