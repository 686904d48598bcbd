import type { FastifyReply, FastifyRequest } from 'fastify';
import { LoupeError } from '../../engine/errors';
import type { Logger } from '../../engine/log';
import { toLoupeError } from './errors';

export const NDJSON = 'application/x-ndjson';

/**
 * Refuses (406) a client whose Accept header excludes NDJSON. No Accept, `*\/*` and
 * `application/*` all accept it.
 */
export function assertAcceptsNdjson(request: FastifyRequest): void {
  const accept = request.headers.accept;
  if (!accept) return;
  const ok = accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) return false;
    return type === NDJSON || type === '*/*' || type === 'application/*';
  });
  if (!ok) throw new LoupeError('NOT_ACCEPTABLE', `chat: a research answer is ${NDJSON}; send Accept: ${NDJSON}`, { field: 'accept' });
}

/**
 * Streams events as newline-delimited JSON, one line per event, each written to the socket as soon
 * as it is produced (the reply is hijacked, so Fastify neither buffers nor serializes it). When the
 * client goes away the signal given to `produce` aborts at once, so the work behind it stops. A
 * failure after the first line can no longer change the status: it becomes a terminal
 * `{"type":"error"}` line.
 */
export async function streamNdjson(
  request: FastifyRequest, reply: FastifyReply, log: Logger,
  produce: (signal: AbortSignal) => AsyncIterable<object>,
  headers: Record<string, string> = {},
): Promise<void> {
  const res = reply.raw;
  const controller = new AbortController();
  let finished = false;
  const onClose = () => {
    if (!finished) controller.abort(Object.assign(new Error('the client closed the connection'), { name: 'AbortError' }));
  };
  res.once('close', onClose);
  // Gone while the search ran (before this listener existed): stop before the model starts.
  if (res.destroyed) onClose();
  reply.hijack();
  res.writeHead(200, {
    'content-type': `${NDJSON}; charset=utf-8`,
    'cache-control': 'no-cache, no-transform',
    'x-content-type-options': 'nosniff',
    // Tell buffering proxies (nginx) to pass lines through as they come.
    'x-accel-buffering': 'no',
    ...headers,
  });
  res.flushHeaders?.();
  request.raw.socket?.setNoDelay?.(true);

  const write = async (event: object) => {
    if (res.destroyed || res.writableEnded) throw controller.signal.reason ?? new Error('the response is closed');
    if (!res.write(`${JSON.stringify(event)}\n`)) {
      // Slow reader: wait until the socket drains (or closes) before producing more.
      await new Promise<void>((resolve) => {
        const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };

  try {
    for await (const event of produce(controller.signal)) await write(event);
  } catch (error) {
    if (!controller.signal.aborted) {
      const loupe = toLoupeError(error);
      if (loupe.code === 'INTERNAL') log.error(`${request.method} ${request.url} stream failed:`, error as Error);
      const message = loupe.code === 'INTERNAL' ? loupe.message : (error as Error).message;
      try { await write({ type: 'error', message, code: loupe.code }); } catch { /* the client is gone */ }
    }
  } finally {
    finished = true;
    res.off('close', onClose);
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
