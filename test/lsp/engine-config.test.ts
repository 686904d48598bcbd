import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineConfigFromSettings } from '../../server/transport/lsp/engine-config';
import { DEFAULT_SETTINGS, type LoupeSettings } from '../../protocol/settings';

const settings = (over: Partial<LoupeSettings>): LoupeSettings => ({ ...structuredClone(DEFAULT_SETTINGS), ...over });

test('defaults: built-in embedder and model, the owner on the settings plan, ignore globs passed on', () => {
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
    plan: { default: 'DEV', credits: 5000 },
  }), { owner: { credits: 42 } });
  assert.deepEqual(config.search, { embedder: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' } });
  assert.deepEqual(config.research, { openai: { baseUrl: 'http://127.0.0.1:11434/v1', models: ['qwen2.5-coder'] }, defaultModel: 'qwen2.5-coder' });
  assert.deepEqual(config.accounts?.owner, { plan: 'DEV', credits: 42 });
  const editor = engineConfigFromSettings(settings({ models: { provider: 'vscode', endpoint: '', model: 'copilot-gpt-4o' } }), {});
  assert.deepEqual(editor.research, { defaultModel: 'vscode:copilot-gpt-4o' });
  const onnx = engineConfigFromSettings(settings({ embedding: { provider: 'onnx', endpoint: '/models/minilm', model: '' } }), {});
  assert.deepEqual(onnx.search, { embedder: { kind: 'onnx', modelDir: '/models/minilm' } });
});
