/**
 * The research branch of POST /v2/search (prepare, then stream NDJSON) over hits a test chooses,
 * so the streaming transport and the grounding are tested apart from search ranking. It composes
 * the same parts the search operation does: the engine's Research, credits reserved first, and
 * the HTTP transport's NDJSON stream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EngineCore } from '../../server/engine/core';
import type { ResearchSearchOutcome } from '../../server/engine/research/research';
import { callerOf } from '../../server/transport/http/context';
import { assertAcceptsNdjson, streamNdjson } from '../../server/transport/http/ndjson';

export interface FixedResearch {
  question: string;
  model?: string | null;
  conversationId?: string | null;
  repoIds?: string[];
  /** What "the search" found: its wire answer for the first line, and the hits to ground on. */
  found: Omit<ResearchSearchOutcome, 'meta'> & { meta: Record<string, unknown> };
}

export async function researchOverFixedHits(engine: EngineCore, request: FastifyRequest, reply: FastifyReply, call: FixedResearch): Promise<void> {
  assertAcceptsNdjson(request);
  const caller = callerOf(request);
  const reservation = engine.accounts.reserve(caller.userId, 5, 'search.research');
  let prepared;
  try {
    prepared = await engine.research.prepare({
      userId: caller.userId, question: call.question, model: call.model, conversationId: call.conversationId,
      repoIds: call.repoIds, reservation,
      search: async () => ({ ...call.found, meta: { updated_at: new Date().toISOString(), ...engine.accounts.meta(caller.userId), ...call.found.meta } }),
    });
  } catch (error) {
    engine.accounts.credits.release(reservation);
    throw error;
  }
  const run = prepared;
  reply.raw.once('close', () => run.cancel());
  await streamNdjson(request, reply, engine.log, (signal) => run.run(signal), { 'x-loupe-model': run.model.info.id });
}
