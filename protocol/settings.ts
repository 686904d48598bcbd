/**
 * The extension's settings (`loupe.*` in VS Code), as the client reads them and the server receives
 * them. package.json's `contributes.configuration` declares the same keys and defaults; a unit test
 * keeps the two equal. Account internals (the owner's plan and credits) are not settings: the
 * machine's owner is ENTERPRISE, and DATA_DIR/accounts.json configures accounts for the sidecar.
 */
export interface LoupeSettings {
  sidecar: { enabled: boolean; port: number };
  /** `endpoint`: the server's base URL, or for `onnx` the local folder holding the model. */
  embedding: { provider: 'built-in' | 'openai-compatible' | 'onnx'; endpoint: string; model: string };
  models: { provider: 'built-in' | 'vscode' | 'openai-compatible' | 'ollama'; endpoint: string; model: string };
  /**
   * A language model that helps search and research find the code (query expansion, rerank): an id of
   * GET /v2/models (`vscode:<id>`, or the chat server's model). Empty: none does (LOUPE_RETRIEVAL_MODEL may name one).
   */
  retrieval: { model: string };
  codeLens: {
    enabled: boolean;
    /** Files with fewer dependents than this get no file lens. */
    minDependents: number;
    /** Exported symbols used in fewer files than this get no lens. */
    minSymbolUsers: number;
  };
  /** gitignore-style patterns skipped in addition to .gitignore and .loupeignore. */
  ignore: string[];
  /**
   * A team server (`npm run serve`) the panel searches beside the local index; its key is in the editor's secret
   * storage, never here. The client's own: the language server keeps it and restarts for nothing.
   */
  server: { url: string };
}

export const DEFAULT_SETTINGS: LoupeSettings = {
  sidecar: { enabled: true, port: 7341 },
  embedding: { provider: 'built-in', endpoint: '', model: '' },
  models: { provider: 'built-in', endpoint: '', model: '' },
  retrieval: { model: '' },
  codeLens: { enabled: true, minDependents: 1, minSymbolUsers: 1 },
  ignore: [],
  server: { url: '' },
};

/** Every setting key, flattened (`codeLens.minDependents`) with its default. */
export function flattenSettings(value: object = DEFAULT_SETTINGS, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenSettings(v, name));
    else out[name] = v;
  }
  return out;
}

/** Builds settings from a flat reader (VS Code's `getConfiguration('loupe').get`), falling back to defaults. */
export function readSettings(get: (key: string) => unknown): LoupeSettings {
  const flat = flattenSettings();
  const result = structuredClone(DEFAULT_SETTINGS) as unknown as Record<string, Record<string, unknown> | unknown>;
  for (const [name, fallback] of Object.entries(flat)) {
    const raw = get(name);
    const value = raw === undefined || (raw !== null && typeof raw !== typeof fallback && fallback !== null) ? fallback : raw;
    const parts = name.split('.');
    let target = result as Record<string, unknown>;
    for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
    target[parts[parts.length - 1]] = value;
  }
  return result as unknown as LoupeSettings;
}

/**
 * Settings the language server applies while it runs; the others (the sidecar's port too: the host
 * binds it when it starts) configure the engine when it starts, and the client restarts the server.
 */
export const LIVE_SETTINGS = ['codeLens', 'server'] as const;

/** The top-level groups (`codeLens`, `embedding`, …) whose values differ. */
export function changedGroups(before: LoupeSettings, after: LoupeSettings): (keyof LoupeSettings)[] {
  return (Object.keys(after) as (keyof LoupeSettings)[]).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}
