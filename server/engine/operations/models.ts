import type { ChatModelInfo } from '../research/model-provider';
import type { ChatModel, ModelLimits, ModelLimitsQuery } from '../../../protocol/api/models';
import type { Answer, Caller } from './call';
import { metered } from './metering';
import type { EngineParts } from './parts';

const toChatModel = (m: ChatModelInfo & { isDefault: boolean }): ChatModel => ({
  id: m.id, provider: m.provider, description: m.description, kind: m.kind, context_window: m.contextWindow,
  max_output: m.maxOutput, credits_per_1k_tokens: m.creditsPer1kTokens, default: m.isDefault,
});

const toLimits = (m: ChatModelInfo): ModelLimits => ({
  id: m.id, context_window: m.contextWindow, max_output: m.maxOutput, max_input: Math.max(0, m.contextWindow - m.maxOutput),
});

/** The chat models research can use (free). */
export class ModelOperations {
  constructor(private readonly e: EngineParts) {}

  /** Every model, the default first. */
  list(caller: Caller): Promise<Answer<ChatModel[]>> {
    return metered(this.e.accounts, caller, { operation: 'models.list', cost: 0 }, async (meter) => {
      const models = await this.e.research.models.list();
      models.sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
      return meter.answer(models.map(toChatModel));
    });
  }

  /** Context and output limits of each model, or of one (an unknown one is a 400 naming it). */
  limits(caller: Caller, q: ModelLimitsQuery): Promise<Answer<ModelLimits[]>> {
    return metered(this.e.accounts, caller, { operation: 'models.limits', cost: 0 }, async (meter) => {
      const models = q.model ? [(await this.e.research.models.resolve(q.model)).info] : await this.e.research.models.list();
      return meter.answer(models.map(toLimits));
    });
  }
}
