/**
 * A real HTTP server on 127.0.0.1 that speaks OpenAI's streaming chat completions. It stands in
 * for a remote LLM (Ollama, vLLM, OpenAI) in tests: its "model" answers by echoing the words of
 * the last user message back, one SSE event per word, so tests can check framing, usage, prompts
 * and disconnects against a real socket.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalLlmOptions {
  /** Pause between words, to make mid-stream aborts observable. */
  delayMs?: number;
  /** Break off (destroy the socket) after this many words, to test a provider failing mid-stream. */
  failAfterWords?: number;
  /** Answer every request with this status and an OpenAI-style error body. */
  status?: number;
  /** Leave out the usage chunk even when asked for it (as some servers do). */
  omitUsage?: boolean;
}

export interface LocalLlm {
  baseUrl: string;
  /** Every request body received, parsed. */
  requests: any[];
  /** Requests whose client went away before the answer finished. */
  disconnects: number;
  /** Resolves when the next disconnect is seen. */
  nextDisconnect(): Promise<void>;
  close(): Promise<void>;
}

export async function startLocalLlm(options: LocalLlmOptions = {}): Promise<LocalLlm> {
  const requests: any[] = [];
  let disconnects = 0;
  let waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', async () => {
      if (req.url === '/v1/models' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'echo-1', object: 'model' }, { id: 'echo-2', object: 'model' }] }));
        return;
      }
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      requests.push(body);
      if (options.status) {
        res.writeHead(options.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `the model is overloaded (${options.status})` } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let finished = false;
      res.on('close', () => {
        if (finished) return;
        disconnects++;
        waiters.forEach((w) => w());
        waiters = [];
      });
      const lastUser = [...body.messages].reverse().find((m: { role: string }) => m.role === 'user');
      const words = `You asked: ${lastUser.content}`.split(/\s+/);
      const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
      send({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
      for (const [i, word] of words.entries()) {
        if (res.destroyed) return;
        if (options.failAfterWords !== undefined && i >= options.failAfterWords) {
          res.socket?.destroy();
          return;
        }
        send({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { content: i ? ` ${word}` : word }, finish_reason: null }] });
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      }
      send({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      if (body.stream_options?.include_usage && !options.omitUsage) {
        const prompt = body.messages.reduce((n: number, m: { content: string }) => n + m.content.split(/\s+/).length, 0);
        send({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: words.length, total_tokens: prompt + words.length } });
      }
      res.write('data: [DONE]\n\n');
      finished = true;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get disconnects() { return disconnects; },
    nextDisconnect: () => new Promise<void>((resolve) => { waiters.push(resolve); }),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
