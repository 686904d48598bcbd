/**
 * The research stream of POST /v2/search with `chat: true`: newline-delimited JSON, one event per
 * line, discriminated by `type`. `search` first, `chunk`s as the answer is written, then `done`
 * or, on failure, `error`; both are terminal.
 */
import { Type, type Static } from 'typebox';
import { Nullable } from './common';

export const ResearchSearchEvent = Type.Object({
  type: Type.Literal('search'),
  results: Type.Array(Type.Unknown(), { description: 'The hits, exactly as `data.results` of the JSON mode.' }),
  total: Type.Integer({ minimum: 0 }),
  meta: Type.Record(Type.String(), Type.Unknown(), { description: 'How the search ran (mode, timings), as in the JSON mode, plus the account meta.' }),
}, { $id: 'ResearchSearchEvent', description: 'First line: what the search found.' });

export const ResearchChunkEvent = Type.Object({
  type: Type.Literal('chunk'),
  text: Type.String({ description: 'The next piece of the answer (Markdown); concatenate the pieces.' }),
}, { $id: 'ResearchChunkEvent' });

export const ContextFile = Type.Object({
  repo_id: Type.String(),
  repo_name: Type.String(),
  file_path: Type.String(),
  start_line: Nullable(Type.Integer()),
  end_line: Nullable(Type.Integer()),
}, { $id: 'ContextFile', description: 'A file the answer was grounded on, with the lines quoted to the model.' });

export const ResearchDoneEvent = Type.Object({
  type: Type.Literal('done'),
  model: Type.String({ description: 'The model that answered.' }),
  context_files: Type.Array(ContextFile),
  usage: Type.Object({
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    estimated: Type.Boolean({ description: 'True when the model reported no usage and it was estimated from text length.' }),
  }),
  credits_used: Type.Integer({ minimum: 0, description: 'Charged for this call: 5 for the search plus the model\'s usage.' }),
  conversation_id: Nullable(Type.String({ format: 'uuid' }), { description: 'Send it back as `conversation_id` to ask a follow-up.' }),
  history_id: Nullable(Type.String({ format: 'uuid' })),
}, { $id: 'ResearchDoneEvent', description: 'Terminal line of a successful stream.' });

export const ResearchErrorEvent = Type.Object({
  type: Type.Literal('error'),
  message: Type.String(),
  code: Type.Optional(Type.String({ description: 'As in docs/errors.md.' })),
}, { $id: 'ResearchErrorEvent', description: 'Terminal line of a failed stream; nothing is charged.' });

export const ResearchEvent = Type.Union([ResearchSearchEvent, ResearchChunkEvent, ResearchDoneEvent, ResearchErrorEvent], {
  description: 'One line of the research stream (application/x-ndjson).',
});
export type ResearchEvent = Static<typeof ResearchEvent>;
export type ResearchDoneEvent = Static<typeof ResearchDoneEvent>;

/** OpenAPI content entry for the stream: each line is one of the event shapes. */
export const researchStreamContent = {
  'application/x-ndjson': {
    schema: {
      description: 'Newline-delimited JSON: one ResearchEvent per line (search, chunk…, then done or error).',
      oneOf: [ResearchSearchEvent, ResearchChunkEvent, ResearchDoneEvent, ResearchErrorEvent],
    },
  },
};
