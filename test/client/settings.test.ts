import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SETTINGS, flattenSettings, readSettings } from '../../protocol/settings';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const declared: Record<string, { default: unknown }> = manifest.contributes.configuration.properties;

test('package.json declares every setting the code reads, with the same defaults, and no others', () => {
  const flat = flattenSettings();
  assert.deepEqual(Object.keys(declared).sort(), Object.keys(flat).map((k) => `loupe.${k}`).sort());
  for (const [key, value] of Object.entries(flat)) assert.deepEqual(declared[`loupe.${key}`].default, value, key);
});

test('readSettings takes what VS Code returns and falls back to defaults for missing or mistyped values', () => {
  const values: Record<string, unknown> = { 'sidecar.port': 9000, 'codeLens.enabled': 'yes', ignore: ['dist/**'], 'codeLens.minDependents': 3 };
  const settings = readSettings((k) => values[k]);
  assert.equal(settings.sidecar.port, 9000);
  assert.equal(settings.codeLens.enabled, true, 'a string is not a boolean: the default stays');
  assert.deepEqual(settings.ignore, ['dist/**']);
  assert.equal(settings.codeLens.minDependents, 3);
  assert.equal(settings.models.provider, DEFAULT_SETTINGS.models.provider);
});

test('every command the code registers is declared in package.json, and activation is lazy but early', () => {
  const source = ['client/commands.ts', 'client/status-bar.ts', 'client/team/team-server.ts'].map((f) => fs.readFileSync(path.join(__dirname, '..', '..', f), 'utf8')).join('\n');
  const registered = [...source.matchAll(/(?:reg|registerCommand)\('([\w.]+)'/g)].map((m) => m[1]);
  assert.ok(registered.includes('loupe.server.setApiKey'), 'the team server\'s commands are among them');
  const contributed = (manifest.contributes.commands as { command: string }[]).map((c) => c.command);
  for (const id of registered) assert.ok(contributed.includes(id), `${id} is contributed`);
  // Lazy (never '*'), but not only onStartupFinished, which comes 2.5–5 s after the window is restored:
  // a source file open in the restored window activates at once, so its lenses are not held up.
  const events = manifest.activationEvents as string[];
  assert.ok(!events.includes('*'));
  assert.ok(events.includes('onStartupFinished'), 'a window without a source file open still activates');
  for (const language of ['typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'python', 'go', 'rust', 'java']) {
    assert.ok(events.includes(`onLanguage:${language}`), `onLanguage:${language}`);
  }
});
