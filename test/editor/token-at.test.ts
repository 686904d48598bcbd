import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenAt } from '../../server/engine/editor/token-at';

/** The token at the first occurrence of `marker` in `text`, `shift` characters in. */
const at = (language: string, text: string, marker: string, shift = 1, nth = 0) => {
  let index = -1;
  for (let i = 0; i <= nth; i++) index = text.indexOf(marker, index + 1);
  assert.ok(index >= 0, `${marker} is in the text`);
  return tokenAt(language, text, index + shift);
};

test('TypeScript: identifiers, members, strings and comments by the parser, not by the word', async () => {
  const ts = [
    "import { parse } from './parse';",
    '/** parse reads the input; see `parse`. */',
    'export const value = parse(text).parse; // parse again',
    'const s = `parse ${parse(1)}`;',
  ].join('\n');
  assert.deepEqual(await at('typescript', ts, 'parse }', 2), { kind: 'identifier', text: 'parse', start: 9, end: 14, member: false });
  assert.deepEqual(await at('typescript', ts, "'./parse'", 3), { kind: 'string', text: './parse', start: ts.indexOf("'./parse'") + 1, end: ts.indexOf("'./parse'") + 8 });
  assert.equal((await at('typescript', ts, 'parse reads')).kind, 'comment');
  assert.equal((await at('typescript', ts, '// parse', 4)).kind, 'comment');
  assert.deepEqual(await at('typescript', ts, 'parse(text)'), { kind: 'identifier', text: 'parse', start: ts.indexOf('parse(text)'), end: ts.indexOf('parse(text)') + 5, member: false });
  assert.equal(((await at('typescript', ts, '.parse;', 2)) as { member: boolean }).member, true);
  assert.equal((await at('typescript', ts, '`parse $', 2)).kind, 'string');
  assert.equal(((await at('typescript', ts, 'parse(1)')) as { member: boolean }).member, false, 'inside ${…} is code');
});

test('Python and Go through their tree-sitter grammars', async () => {
  const py = ['import os.path', '# load config here', 'def load(path):', '    """load the file"""', '    return os.path.join(path, "load")', ''].join('\n');
  assert.equal((await at('python', py, 'load config')).kind, 'comment');
  assert.equal((await at('python', py, 'load the')).kind, 'string');
  assert.deepEqual(await at('python', py, 'load(path)'), { kind: 'identifier', text: 'load', start: py.indexOf('load(path)'), end: py.indexOf('load(path)') + 4, member: false });
  assert.equal(((await at('python', py, 'join', 1)) as { member: boolean }).member, true, 'os.path.join: join is an attribute');
  const go = ['package main', '', '// Run runs it', 'func Run() string { return "Run" }', ''].join('\n');
  assert.equal((await at('go', go, 'Run runs')).kind, 'comment');
  assert.deepEqual(await at('go', go, 'Run()'), { kind: 'identifier', text: 'Run', start: go.indexOf('Run()'), end: go.indexOf('Run()') + 3, member: false });
  assert.equal((await at('go', go, '"Run"', 2)).kind, 'string');
  // A non-ASCII line before the position: tree-sitter counts bytes, LSP counts UTF-16 units.
  const utf = ['# café ☕', 'def café(): pass', ''].join('\n');
  assert.deepEqual(await at('python', utf, 'café()', 1), { kind: 'identifier', text: 'café', start: utf.indexOf('café()'), end: utf.indexOf('café()') + 4, member: false });
});

test('Vue and Svelte: a script block\'s tokens by the TypeScript parser; the template is not code', async () => {
  const vue = ['<template>', '  <p>{{ format(when) }}</p>', '</template>', '<script setup lang="ts">', "import { format } from './format';", '// format it', '</script>', ''].join('\n');
  assert.deepEqual(await at('vue', vue, 'format }', 0), { kind: 'identifier', text: 'format', start: vue.indexOf('format }'), end: vue.indexOf('format }') + 6, member: false });
  assert.equal((await at('vue', vue, 'format it')).kind, 'comment');
  assert.equal((await at('vue', vue, 'format(when)')).kind, 'other');
  const svelte = ['<script>', "  import Button from './Button.svelte';", '</script>', '<Button />', ''].join('\n');
  assert.equal((await at('svelte', svelte, "'./Button", 2)).kind, 'string');
  assert.equal((await at('svelte', svelte, '<Button', 2)).kind, 'other');
});
