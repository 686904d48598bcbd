import type { EngineConfig } from '../../engine/engine';
import type { AccountsConfig } from '../../engine/accounts/accounts';
import type { LoupeSettings } from '../../../protocol/settings';

/**
 * The editor's settings as engine configuration. A DATA_DIR/accounts.json (or the environment)
 * stays authoritative for accounts: settings only fill what it leaves out.
 */
export function engineConfigFromSettings(settings: LoupeSettings, accounts: AccountsConfig): Pick<EngineConfig, 'indexer' | 'accounts' | 'research' | 'search'> {
  const { embedding, models, plan } = settings;
  const owner = { plan: plan.default, ...(plan.credits !== null ? { credits: plan.credits } : {}), ...accounts.owner };
  const config: Pick<EngineConfig, 'indexer' | 'accounts' | 'research' | 'search'> = {
    indexer: { ignoreGlobs: settings.ignore },
    accounts: { ...accounts, owner },
  };
  if (embedding.provider === 'openai-compatible' && embedding.endpoint && embedding.model) {
    config.search = { embedder: { kind: 'openai', baseUrl: embedding.endpoint, model: embedding.model } };
  } else if (embedding.provider === 'onnx' && embedding.endpoint) {
    config.search = { embedder: { kind: 'onnx', modelDir: embedding.endpoint } };
  }
  if ((models.provider === 'openai-compatible' || models.provider === 'ollama') && models.endpoint && models.model) {
    config.research = { openai: { baseUrl: models.endpoint, models: [models.model] }, defaultModel: models.model };
  } else if (models.provider === 'vscode' && models.model) {
    config.research = { defaultModel: `vscode:${models.model}` };
  }
  return config;
}
