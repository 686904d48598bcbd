/** Legacy V1 (`/v1/fundi…`): thin, deprecated adapters over V2. New code should use /v2. */
import { Type } from 'typebox';
import { MAX_OFFSET, Nullable, StringEnum, Uuid } from './common';

export const FundiStatus = Type.Object({
  service: Type.Literal('fundi'),
  status: Type.Literal('ok'),
  api_version: Type.Literal('v1'),
  deprecated: Type.Literal(true),
  successor: Type.String({ description: 'Where the V2 API lives.' }),
  models: Type.Integer({ description: 'Chat models available.' }),
  generative_models: Type.Integer({ description: 'Models that can run optimize/debug/comment/convert/explain.' }),
  uptime_s: Type.Integer(),
});

export const FundiChatRequest = Type.Object({
  message: Type.String({ minLength: 2, maxLength: 1000, description: 'The question (sent to POST /v2/search with chat: true).' }),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  conversation_id: Type.Optional(Uuid),
  repo_ids: Type.Optional(Type.Array(Uuid, { maxItems: 25 })),
}, { additionalProperties: false });

export const FundiChatResult = Type.Object({
  answer: Type.String(),
  model: Type.String(),
  context_files: Type.Array(Type.Unknown()),
  conversation_id: Nullable(Uuid),
  history_id: Nullable(Uuid),
  credits_used: Type.Integer(),
});

export const CodeOpRequest = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 20_000, description: 'The code to work on.' }),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  target_language: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'convert only (required there).' })),
  instructions: Type.Optional(Type.String({ maxLength: 1000 })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A model of kind llm (GET /v1/fundi/models).' })),
}, { additionalProperties: false });

export const ExplainRequest = Type.Object({
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000, description: 'A snippet to explain (needs a generative model).' })),
  file_path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Or an indexed file to explain from the index (research, any model).' })),
  repo_id: Type.Optional(Uuid),
  question: Type.Optional(Type.String({ minLength: 2, maxLength: 500, description: 'What to focus on.' })),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
}, { additionalProperties: false, description: 'Give `code`, or `file_path` (optionally with `repo_id`).' });

export const ExplainResult = Type.Object({
  op: Type.Literal('explain'),
  result: Type.String(),
  model: Type.String(),
  source: StringEnum(['code', 'index'], { description: 'code: the snippet sent; index: research over the indexed file.' }),
  context_files: Type.Array(Type.Unknown()),
  credits_used: Type.Integer(),
  history_id: Nullable(Uuid),
  conversation_id: Nullable(Uuid),
});

export const CodeOpResult = Type.Object({
  op: Type.String(),
  result: Type.String(),
  model: Type.String(),
  usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), estimated: Type.Boolean() }),
  credits_used: Type.Integer(),
  history_id: Nullable(Uuid),
});

export const FundiHistoryRequest = Type.Union([Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, 1-100 (default 20).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: `Zero-based (default 0, at most ${MAX_OFFSET}).` })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
}, { additionalProperties: false }), Type.Null()]);
