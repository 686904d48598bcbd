import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OpenAI-compatible chat server on 127.0.0.1 that streams its answer slowly (one SSE chunk
 * every `intervalMs`), so a test can act while a research stream is mid-way. Counts the requests
 * it is serving and notices when the client (Loupe) hangs up.
 */
export interface SlowChatServer {
  baseUrl: string;
  active: () => number;
  disconnects: () => number;
  close(): Promise<void>;
}

export async function startSlowChatServer(options: { chunks?: number; intervalMs?: number } = {}): Promise<SlowChatServer> {
  const chunks = options.chunks ?? 200;
  const interval = options.intervalMs ?? 30;
  let active = 0;
  let disconnects = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.endsWith('/models')) { res.end(JSON.stringify({ data: [{ id: 'slow-model' }] })); return; }
    req.resume();
    active++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    let finished = false;
    const timer = setInterval(() => {
      if (sent < chunks) {
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `word${sent} ` } }] })}\n\n`);
        sent++;
        return;
      }
      clearInterval(timer);
      finished = true;
      res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: chunks } })}\n\n`);
      res.end('data: [DONE]\n\n');
    }, interval);
    res.on('close', () => {
      clearInterval(timer);
      active--;
      if (!finished) disconnects++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    active: () => active,
    disconnects: () => disconnects,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
