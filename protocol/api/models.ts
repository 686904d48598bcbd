/** GET /v2/models and /v2/models/limits: the chat models research can use. */
import { Type, type Static } from 'typebox';
import { StringEnum } from './common';

export const ChatModel = Type.Object({
  id: Type.String({ description: 'Pass as `model` with `chat: true` on POST /v2/search.' }),
  provider: Type.String({ description: '`loupe` (built in), `openai-compatible` (a configured server), `vscode` (the editor\'s language models).' }),
  description: Type.String(),
  kind: StringEnum(['extractive', 'llm'], {
    description: '`extractive`: composes the answer from the retrieved code without a language model; `llm`: a language model writes it.',
  }),
  context_window: Type.Integer({ minimum: 1, description: 'Tokens the model reads at most.' }),
  max_output: Type.Integer({ minimum: 1, description: 'Tokens the model writes at most.' }),
  credits_per_1k_tokens: Type.Number({ minimum: 0, description: 'Credits added to the search\'s 5 per started 1,000 tokens of usage.' }),
  default: Type.Boolean({ description: 'Used when a research request names no model.' }),
}, { $id: 'ChatModel' });
export type ChatModel = Static<typeof ChatModel>;

export const ModelLimits = Type.Object({
  id: Type.String(),
  context_window: Type.Integer({ minimum: 1 }),
  max_output: Type.Integer({ minimum: 1 }),
  max_input: Type.Integer({ minimum: 0, description: 'context_window less max_output: room for the question, the retrieved code and earlier turns.' }),
}, { $id: 'ModelLimits' });
export type ModelLimits = Static<typeof ModelLimits>;

export const ModelLimitsQuery = Type.Object({
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this model (400 UNKNOWN_MODEL when it is not available).' })),
}, { additionalProperties: false });
export type ModelLimitsQuery = Static<typeof ModelLimitsQuery>;
