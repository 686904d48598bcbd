import type { FastifyReply } from 'fastify';

/**
 * Writes an event stream as server-sent events. The first event is awaited before anything is
 * written, so a request that fails at once (unknown task) can get a plain error answer instead of
 * a stream (HTTP+JSON); JSON-RPC clients expect the stream, with the error as its one event. When the client goes away the events are still drained: the SDK persists
 * the task as it consumes them, so the task keeps its true final state for tasks/get.
 */
export async function sendEventStream<T>(
  reply: FastifyReply,
  events: AsyncGenerator<T, void, undefined>,
  format: (event: T) => unknown,
  onFirstError: (error: unknown) => { status: number; body: unknown } | { event?: string; body: unknown },
  onLaterError: (error: unknown) => { event?: string; body: unknown },
): Promise<void> {
  let first: IteratorResult<T, void> | undefined;
  let firstError: { event?: string; body: unknown } | undefined;
  try {
    first = await events.next();
  } catch (error) {
    const answer = onFirstError(error);
    if ('status' in answer) return reply.code(answer.status).type('application/json').send(answer.body);
    firstError = answer;
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  let open = true;
  raw.on('close', () => { open = false; });
  const write = (text: string) => { if (open && !raw.writableEnded) raw.write(text); };
  try {
    if (firstError) write(`${firstError.event ? `event: ${firstError.event}\n` : ''}data: ${JSON.stringify(firstError.body)}\n\n`);
    if (first && !first.done) {
      write(`data: ${JSON.stringify(format(first.value))}\n\n`);
      for await (const event of { [Symbol.asyncIterator]: () => events }) write(`data: ${JSON.stringify(format(event))}\n\n`);
    }
  } catch (error) {
    const { event, body } = onLaterError(error);
    write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(body)}\n\n`);
  } finally {
    if (!raw.writableEnded) raw.end();
  }
}
