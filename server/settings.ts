/**
 * One settings object for the host, whichever way Loupe was started: the CLI's flags, the editor's
 * `loupe.*` settings (from the extension's `initializationOptions`), and the environment for both.
 * The environment is read here and nowhere else, so the editor's sidecar gets `GITHUB_TOKEN`,
 * `LOUPE_DOCS_MODEL`, `LOUPE_SMTP_*` and the chat and embedding servers exactly as the CLI does.
 */
import path from 'node:path';
import type { EngineConfig } from './engine/engine';
import type { AccountsConfig } from './engine/accounts/accounts';
import { loadAccountsConfig } from './engine/accounts/config-file';
import { smtpConfigFromEnv, type SmtpConfig } from './engine/accounts/mailer';
import { embedderConfigFromEnv, type EmbedderConfig } from './engine/embed/embedder';
import { openAIConfigFromEnv, type OpenAICompatibleConfig } from './engine/research/providers/openai-compatible';
import type { Logger, LogLevel } from './engine/log';
import type { GuardOptions } from './transport/http/guard';
import type { LoupeInitOptions } from '../protocol/lsp';
import type { LoupeSettings } from '../protocol/settings';
import { homeDataDir } from './data-dir';

export interface HttpSettings {
  host: string;
  port: number;
  /** Extra Host names and browser origins to allow, and request limits. */
  guard?: Omit<GuardOptions, 'boundHost'>;
  /** Shown in the OpenAPI `servers` list; by default the request's own address. */
  publicUrl?: string;
}

export interface HostSettings {
  /** Everything the engine is built from (the logger is the host's). */
  engine: Omit<EngineConfig, 'log'>;
  /** The owner's key: LOUPE_API_KEY or the editor's stored key; without one, DATA_DIR/owner-key or a new key. */
  ownerKey?: string;
  /** The HTTP API (and A2A) on a local port; null when it is turned off. */
  http: HttpSettings | null;
  logLevel: LogLevel;
}

/** A setting that cannot be used, named with the flag or variable it came from. */
export class SettingsError extends Error {}

/** `build()`'s settings; a SettingsError is the command line's usage error (`fail`), anything else is thrown. */
export function settingsOrFail(build: () => HostSettings, fail: (message: string) => never): HostSettings {
  try {
    return build();
  } catch (error) {
    if (error instanceof SettingsError) fail(error.message);
    throw error;
  }
}

/** What the environment says, for every way of starting. */
export interface EnvironmentSettings {
  home?: string;
  ownerKey?: string;
  githubToken?: string;
  githubApiUrl?: string;
  docsModel: string | null;
  chat: OpenAICompatibleConfig | null;
  defaultModel?: string;
  /** LOUPE_RETRIEVAL_MODEL: a model that helps retrieval (query expansion, rerank); unset, none does. */
  retrievalModel?: string;
  embedder?: EmbedderConfig;
  smtp?: SmtpConfig;
  logLevel: LogLevel;
}

/**
 * Reads LOUPE_* and GITHUB_* variables. `strict` (the CLI) turns a bad value into a SettingsError;
 * otherwise (the editor, which must start whatever the shell exported) it is logged and left out.
 */
export function readEnvironment(env: NodeJS.ProcessEnv, problem: (message: string) => void): EnvironmentSettings {
  const attempt = <T>(read: () => T, fallback: T, consequence: string): T => {
    try {
      return read();
    } catch (error) {
      problem(`${(error as Error).message}; ${consequence}`);
      return fallback;
    }
  };
  return {
    home: env.LOUPE_HOME || undefined,
    ownerKey: env.LOUPE_API_KEY || undefined,
    githubToken: env.GITHUB_TOKEN || undefined,
    githubApiUrl: env.GITHUB_API_URL || undefined,
    docsModel: env.LOUPE_DOCS_MODEL || null,
    chat: openAIConfigFromEnv(env),
    defaultModel: env.LOUPE_CHAT_DEFAULT_MODEL || undefined,
    retrievalModel: env.LOUPE_RETRIEVAL_MODEL || undefined,
    embedder: attempt(() => embedderConfigFromEnv(env), undefined, 'the built-in embedder is used'),
    smtp: attempt(() => smtpConfigFromEnv(env), undefined, 'sign-up mail goes to the outbox'),
    logLevel: env.LOUPE_LOG === 'debug' ? 'debug' : 'info',
  };
}

export interface CliFlags {
  /** The folder the CLI indexes (allowed too); none for an API node of the team server (`npm run serve`). */
  folder?: string;
  port: number;
  host: string;
  dataDir?: string;
  allow: string[];
  allowOrigin: string[];
  allowHost: string[];
  ignore: string[];
  maxFileBytes: number;
}

/** The default data directory: $LOUPE_HOME, else ~/.loupe. */
export const defaultDataDir = (env: EnvironmentSettings) => homeDataDir(env.home);

/** `npm start -- <folder> [flags]`: flags first, then the environment, then DATA_DIR/accounts.json. */
export function settingsFromCli(flags: CliFlags, processEnv: NodeJS.ProcessEnv): HostSettings {
  const env = readEnvironment(processEnv, (message) => { throw new SettingsError(message); });
  const dataDir = flags.dataDir ? path.resolve(flags.dataDir) : defaultDataDir(env);
  let accounts: AccountsConfig;
  try {
    accounts = loadAccountsConfig(path.join(dataDir, 'accounts.json'));
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  return {
    engine: {
      ...fromEnvironment(env),
      dataDir,
      allowedRoots: [...(flags.folder ? [flags.folder] : []), ...flags.allow],
      indexer: { maxFileBytes: flags.maxFileBytes, ignoreGlobs: flags.ignore },
      accounts: { ...accounts, auth: { smtp: env.smtp } },
    },
    ownerKey: env.ownerKey,
    http: { host: flags.host, port: flags.port, guard: { allowedOrigins: flags.allowOrigin, allowedHosts: flags.allowHost } },
    logLevel: env.logLevel,
  };
}

/**
 * `npm run mcp -- <folder>`: as the CLI, with no HTTP port (MCP speaks over stdio) and quieter
 * logs on stderr (warnings only, unless LOUPE_LOG=debug).
 */
export function settingsFromMcp(flags: { folder: string; dataDir?: string }, processEnv: NodeJS.ProcessEnv): HostSettings {
  const cli = settingsFromCli({
    folder: flags.folder, dataDir: flags.dataDir, port: 0, host: '127.0.0.1', allow: [], allowOrigin: [], allowHost: [], ignore: [], maxFileBytes: 1024 * 1024,
  }, processEnv);
  return { ...cli, http: null, logLevel: cli.logLevel === 'debug' ? 'debug' : 'warn' };
}

/**
 * The language server: the extension's data folder, key and `loupe.*` settings, then the
 * environment. An editor setting that names a provider wins over the environment; left at
 * `built-in`, the environment's chat or embedding server applies, as it does for the CLI.
 * A broken accounts.json or variable is logged and left at its default, so the editor still starts.
 */
export function settingsFromEditor(init: LoupeInitOptions, processEnv: NodeJS.ProcessEnv, log: Logger): HostSettings {
  const env = readEnvironment(processEnv, (message) => log.warn(message));
  let accounts: AccountsConfig = {};
  try {
    accounts = loadAccountsConfig(path.join(init.dataDir, 'accounts.json'));
  } catch (error) {
    log.warn(`${(error as Error).message}; using the default plans and costs`);
  }
  const base = fromEnvironment(env);
  const editor = engineConfigFromSettings(init.settings, { ...accounts, auth: { smtp: env.smtp } });
  const { sidecar } = init.settings;
  return {
    engine: {
      ...base,
      ...editor,
      dataDir: init.dataDir,
      research: {
        openai: editor.research?.openai ?? base.research?.openai,
        defaultModel: editor.research?.defaultModel ?? base.research?.defaultModel,
        retrieval: editor.research?.retrieval ?? base.research?.retrieval ?? null,
      },
      search: editor.search ?? base.search,
    },
    ownerKey: init.ownerKey,
    http: sidecar.enabled ? { host: '127.0.0.1', port: sidecar.port } : null,
    logLevel: env.logLevel,
  };
}

function fromEnvironment(env: EnvironmentSettings): Omit<EngineConfig, 'log' | 'dataDir'> {
  return {
    githubToken: env.githubToken,
    githubApiUrl: env.githubApiUrl,
    research: { openai: env.chat, defaultModel: env.defaultModel, retrieval: env.retrievalModel ? { model: env.retrievalModel } : null },
    search: env.embedder ? { embedder: env.embedder } : undefined,
    docs: { model: env.docsModel },
  };
}

type EditorPart = Pick<EngineConfig, 'indexer' | 'accounts' | 'research' | 'search'>;

/**
 * The editor's settings as engine configuration. Accounts come from DATA_DIR/accounts.json (or the
 * environment), not from settings. Providers left at `built-in` set nothing.
 */
export function engineConfigFromSettings(settings: LoupeSettings, accounts: AccountsConfig): EditorPart {
  const { embedding, models } = settings;
  // The machine's owner is never limited on their own machine unless accounts.json says otherwise.
  const owner = { plan: 'ENTERPRISE' as const, ...accounts.owner };
  const config: EditorPart = {
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
  // A retrieval model named in the editor wins over LOUPE_RETRIEVAL_MODEL; empty leaves it to the environment.
  const retrievalModel = settings.retrieval?.model?.trim();
  if (retrievalModel) config.research = { ...config.research, retrieval: { model: retrievalModel } };
  return config;
}

type ParseArgsOptionsConfig = NonNullable<Parameters<typeof import('node:util').parseArgs>[0]>['options'];

/** The flags every HTTP-serving command takes (`npm start`, `npm run serve`), for `util.parseArgs`. */
export const LISTEN_FLAGS = {
  port: { type: 'string', default: '7341' },
  host: { type: 'string', default: '127.0.0.1' },
  'data-dir': { type: 'string' },
  allow: { type: 'string', multiple: true, default: [] },
  'allow-origin': { type: 'string', multiple: true, default: [] },
  'allow-host': { type: 'string', multiple: true, default: [] },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ParseArgsOptionsConfig;
