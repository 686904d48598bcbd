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
 * unknown model 400, someone else's conversation 404, credits 402) is checked before the stream
 * starts, so those are ordinary JSON errors; after that the answer streams as NDJSON.
 */
export async function answerResearch(engine: Engine, request: FastifyRequest, reply: FastifyReply, call: ResearchCall): Promise<void> {
  assertAcceptsNdjson(request);
  const caller = callerOf(request);
  const prepared = await engine.research.prepare({
    userId: caller.userId, question: call.question, model: call.model, conversationId: call.conversationId,
    repoIds: call.repoIds, reservation: request.reservation,
    search: async (signal) => {
      const outcome = await call.search(signal);
      const account = engine.accounts.meta(caller.userId);
      return { ...outcome, meta: { updated_at: new Date().toISOString(), ...account, ...outcome.meta } };
    },
  });
  await streamNdjson(request, reply, engine.log, (signal) => prepared.run(signal), { 'x-loupe-model': prepared.model.info.id });
}
