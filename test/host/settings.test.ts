import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { engineConfigFromSettings, settingsFromCli, settingsFromEditor, SettingsError, type CliFlags } from '../../server/settings';
import { createLogger } from '../../server/engine/log';
import { DEFAULT_SETTINGS, type LoupeSettings } from '../../protocol/settings';
import { tempDir } from '../helpers/engine';

const settings = (over: Partial<LoupeSettings>): LoupeSettings => ({ ...structuredClone(DEFAULT_SETTINGS), ...over });
const warnings = () => {
  const lines: string[] = [];
  return { lines, log: createLogger((level, line) => level === 'warn' && lines.push(line), 'info') };
};
const flags = (dataDir: string, over: Partial<CliFlags> = {}): CliFlags => ({
  folder: dataDir, port: 0, host: '127.0.0.1', dataDir, allow: [], allowOrigin: [], allowHost: [], ignore: [], maxFileBytes: 1024, ...over,
});

test('defaults: built-in embedder and model, the owner ENTERPRISE, ignore globs passed on', () => {
  const config = engineConfigFromSettings(settings({ ignore: ['dist/**'] }), {});
  assert.deepEqual(config.indexer, { ignoreGlobs: ['dist/**'] });
  assert.deepEqual(config.accounts?.owner, { plan: 'ENTERPRISE' });
  assert.equal(config.search, undefined);
  assert.equal(config.research, undefined);
});

test('configured providers become engine configuration; accounts.json keeps the last word on the owner', () => {
  const config = engineConfigFromSettings(settings({
    embedding: { provider: 'openai-compatible', endpoint: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' },
    models: { provider: 'ollama', endpoint: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder' },
  }), { owner: { plan: 'DEV', credits: 42 } });
  assert.deepEqual(config.search, { embedder: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' } });
  assert.deepEqual(config.research, { openai: { baseUrl: 'http://127.0.0.1:11434/v1', models: ['qwen2.5-coder'] }, defaultModel: 'qwen2.5-coder' });
  assert.deepEqual(config.accounts?.owner, { plan: 'DEV', credits: 42 });
  const editor = engineConfigFromSettings(settings({ models: { provider: 'vscode', endpoint: '', model: 'copilot-gpt-4o' } }), {});
  assert.deepEqual(editor.research, { defaultModel: 'vscode:copilot-gpt-4o' });
  const onnx = engineConfigFromSettings(settings({ embedding: { provider: 'onnx', endpoint: '/models/minilm', model: '' } }), {});
  assert.deepEqual(onnx.search, { embedder: { kind: 'onnx', modelDir: '/models/minilm' } });
});

test('the editor\'s sidecar reads the same environment as the CLI: GitHub token, docs model, SMTP, chat server', () => {
  const dataDir = tempDir();
  const env = {
    GITHUB_TOKEN: 'ghp_example', GITHUB_API_URL: 'http://127.0.0.1:9/api', LOUPE_DOCS_MODEL: 'local-docs',
    LOUPE_SMTP_HOST: 'mail.local', LOUPE_SMTP_PORT: '2525', LOUPE_CHAT_BASE_URL: 'http://127.0.0.1:11434/v1', LOUPE_CHAT_MODELS: 'qwen',
    LOUPE_CHAT_DEFAULT_MODEL: 'qwen',
  };
  const { log } = warnings();
  const editor = settingsFromEditor({ dataDir, ownerKey: 'k', settings: settings({}) }, env, log);
  const cli = settingsFromCli(flags(dataDir), env);
  for (const s of [editor, cli]) {
    assert.equal(s.engine.githubToken, 'ghp_example');
    assert.equal(s.engine.githubApiUrl, 'http://127.0.0.1:9/api');
    assert.deepEqual(s.engine.docs, { model: 'local-docs' });
    assert.equal(s.engine.accounts?.auth?.smtp?.host, 'mail.local');
    assert.equal(s.engine.accounts?.auth?.smtp?.port, 2525);
    assert.equal(s.engine.research?.openai?.baseUrl, 'http://127.0.0.1:11434/v1');
    assert.equal(s.engine.research?.defaultModel, 'qwen');
  }
  // A provider chosen in the editor wins over the environment's; the sidecar follows loupe.sidecar.*.
  const chosen = settingsFromEditor({
    dataDir, ownerKey: 'k',
    settings: settings({ models: { provider: 'vscode', endpoint: '', model: 'gpt' }, sidecar: { enabled: false, port: 7341 } }),
  }, env, log);
  assert.equal(chosen.engine.research?.defaultModel, 'vscode:gpt');
  assert.equal(chosen.engine.research?.openai?.baseUrl, 'http://127.0.0.1:11434/v1');
  assert.equal(chosen.http, null);
  assert.deepEqual(editor.http, { host: '127.0.0.1', port: 7341 });
});

test('the language server keeps starting with a broken accounts.json or SMTP port, and says why; the CLI refuses them', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify({ owner: { credits: -5 } }));
  const { lines, log } = warnings();
  const env = { LOUPE_SMTP_HOST: 'mail.local', LOUPE_SMTP_PORT: 'x' };
  const editor = settingsFromEditor({ dataDir: dir, ownerKey: 'k', settings: settings({}) }, env, log);
  assert.deepEqual(editor.engine.accounts, { owner: { plan: 'ENTERPRISE' }, auth: { smtp: undefined } });
  assert.equal(lines.length, 2);
  assert.match(lines.find((l) => /accounts/.test(l)) ?? '', /owner.credits: must be a whole number/);
  assert.match(lines.find((l) => /SMTP/.test(l)) ?? '', /LOUPE_SMTP_PORT/);
  assert.throws(() => settingsFromCli(flags(dir), {}), (e: Error) => e instanceof SettingsError && /owner.credits/.test(e.message));
  fs.writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify({ signupPlan: 'PRO' }));
  assert.throws(() => settingsFromCli(flags(dir), env), (e: Error) => e instanceof SettingsError && /LOUPE_SMTP_PORT/.test(e.message));
  const ok = settingsFromEditor({ dataDir: dir, ownerKey: 'k', settings: settings({}) },
    { LOUPE_SMTP_HOST: 'mail.local', LOUPE_SMTP_PORT: '2525', LOUPE_SMTP_SECURE: 'true' }, log);
  assert.deepEqual(ok.engine.accounts, {
    signupPlan: 'PRO', owner: { plan: 'ENTERPRISE' },
    auth: { smtp: { host: 'mail.local', port: 2525, user: undefined, password: undefined, from: undefined, secure: true, requireTls: undefined, allowSelfSigned: undefined } },
  });
});
