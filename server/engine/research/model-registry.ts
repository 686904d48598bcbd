import { LoupeError } from '../errors';
import type { Logger } from '../log';
import type { ChatModelInfo, ModelProvider } from './model-provider';
import { GroundedProvider, GROUNDED_MODEL_ID } from './providers/grounded';
import { EditorModelsProvider, type EditorModelBridge } from './providers/editor-models';

export interface ResolvedModel {
  info: ChatModelInfo;
  provider: ModelProvider;
  isDefault: boolean;
}

/** A provider that does not answer its model list in this time is left out of it, not waited for. */
const LIST_TIMEOUT_MS = 2_000;

/**
 * Every chat model Loupe can use, across providers. The built-in grounded model is always there;
 * configured servers and the editor's models join it. Model ids are unique: a later provider's
 * duplicate id is skipped (and logged) rather than shadowing an earlier one.
 */
export class ModelRegistry {
  private readonly providers: ModelProvider[] = [new GroundedProvider()];
  private editor: EditorModelsProvider | null = null;

  constructor(private readonly log: Logger, private defaultId: string = GROUNDED_MODEL_ID, private readonly listTimeoutMs = LIST_TIMEOUT_MS) {}

  register(provider: ModelProvider): () => void {
    this.providers.push(provider);
    return () => {
      const i = this.providers.indexOf(provider);
      if (i >= 0) this.providers.splice(i, 1);
    };
  }

  /** The VS Code hook: the language server passes its bridge to the client, or null when the client goes. */
  setEditorBridge(bridge: EditorModelBridge | null): void {
    if (this.editor) {
      const i = this.providers.indexOf(this.editor);
      if (i >= 0) this.providers.splice(i, 1);
    }
    this.editor = bridge ? new EditorModelsProvider(bridge) : null;
    if (this.editor) this.providers.push(this.editor);
  }

  setDefault(id: string): void {
    this.defaultId = id;
  }

  async list(): Promise<(ChatModelInfo & { isDefault: boolean })[]> {
    return (await this.entries()).map((e) => ({ ...e.info, isDefault: e.isDefault }));
  }

  /** The model `id` names, or the default; 400 UNKNOWN_MODEL naming it when there is none. */
  async resolve(id?: string | null): Promise<ResolvedModel> {
    const entries = await this.entries();
    const wanted = id ?? entries.find((e) => e.isDefault)?.info.id ?? GROUNDED_MODEL_ID;
    const found = entries.find((e) => e.info.id === wanted);
    if (found) return found;
    const known = entries.map((e) => e.info.id).join(', ');
    throw new LoupeError('UNKNOWN_MODEL', `model: "${wanted}" is not an available chat model; available: ${known} (GET /v2/models)`, { field: 'model' });
  }

  private async entries(): Promise<ResolvedModel[]> {
    const lists = await Promise.all(this.providers.map(async (provider) => {
      try {
        const models = await modelsWithin(provider, this.listTimeoutMs);
        return models.map((info) => ({ info, provider }));
      } catch (error) {
        this.log.warn(`chat models of ${provider.name} are unavailable: ${(error as Error).message}`);
        return [];
      }
    }));
    const out: ResolvedModel[] = [];
    const seen = new Set<string>();
    for (const { info, provider } of lists.flat()) {
      if (seen.has(info.id)) {
        this.log.warn(`chat model id ${info.id} of ${provider.name} is already taken; skipped`);
        continue;
      }
      seen.add(info.id);
      out.push({ info, provider, isDefault: false });
    }
    const dflt = out.find((e) => e.info.id === this.defaultId) ?? out.find((e) => e.info.id === GROUNDED_MODEL_ID);
    if (dflt) dflt.isDefault = true;
    return out;
  }
}

/**
 * A provider's models, or SERVICE_UNAVAILABLE after `ms` (the provider's request aborted). The timer
 * ends with the answer: an `AbortSignal.timeout` per call outlived it by two seconds, then rejected a
 * promise nobody awaited, and every call to the list (GET /v2/models, each research answer) left its
 * signal, listener and error behind for the old generation (docs/benchmarks.md, "Old-space garbage per call").
 */
async function modelsWithin(provider: ModelProvider, ms: number): Promise<ChatModelInfo[]> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new LoupeError('SERVICE_UNAVAILABLE', 'timed out'));
      reject(controller.signal.reason);
    }, ms);
  });
  try {
    return await Promise.race([provider.models(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
