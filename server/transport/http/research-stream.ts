import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../engine/engine';
import type { ResearchSearchOutcome } from '../../engine/research/research';
import { callerOf } from './context';
import { assertAcceptsNdjson, streamNdjson } from './ndjson';

export interface ResearchCall {
  question: string;
  model?: string | null;
  conversationId?: string | null;
  repoIds?: string[];
  /** Runs the search exactly as the JSON mode would; its answer is the stream's first line. */
  search: (signal: AbortSignal) => Promise<ResearchSearchOutcome>;
}

/**
 * The `chat: true` branch of POST /v2/search. Everything that can refuse the request (Accept 406,
 * unknown model 400, someone else's conversation 404, credits 402, what the search itself refuses)
 * is checked before the stream starts, so those are ordinary JSON errors; after that the answer streams as NDJSON.
 */
export async function answerResearch(engine: Engine, request: FastifyRequest, reply: FastifyReply, call: ResearchCall): Promise<void> {
  assertAcceptsNdjson(request);
  const caller = callerOf(request);
  let outcome: ResearchSearchOutcome | null = null;
  const prepared = await engine.research.prepare({
    userId: caller.userId, question: call.question, model: call.model, conversationId: call.conversationId,
    repoIds: call.repoIds, reservation: request.reservation,
    search: async () => outcome!,
  });
  // The search runs before the stream starts, so what it refuses (unknown repositories, a bad
  // pattern) is still a 400 with a JSON body rather than an error line after a 200.
  try {
    const found = await call.search(new AbortController().signal);
    const account = engine.accounts.meta(caller.userId);
    outcome = { ...found, meta: { updated_at: new Date().toISOString(), ...account, ...found.meta } };
  } catch (error) {
    prepared.cancel();
    throw error;
  }
  await streamNdjson(request, reply, engine.log, (signal) => prepared.run(signal), { 'x-loupe-model': prepared.model.info.id });
}
