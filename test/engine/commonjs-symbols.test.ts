import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeScript, cleanComment } from '../../server/engine/indexer/parse-typescript';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { buildStaticDoc, runsProcesses } from '../../server/engine/docs/static-doc';
import { createTestApp, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

/**
 * How JavaScript written the CommonJS way, and ES modules exporting an object or an anonymous function,
 * are indexed. Real code nobody here wrote: express 4.21.2 (methods assigned to a prototype or an object,
 * `exports.x = function`, license banners) and axios 1.7.9 (`export default { merge, … }`,
 * `export default (config) => {…}`). A user walk found express's methods missing from search, scope and
 * file docs, axios's helpers unexported, signatures holding whole bodies, every express file described
 * by its license banner, and `this.regexp.exec(path)` reported as running external processes.
 */
const EXPRESS = () => npmPackage('express@4.21.2');
const AXIOS = () => npmPackage('axios@1.7.9');

function analyze(root: string, file: string) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return { text, ...analyzeScript(file, text, new ModuleResolver(root)) };
}
const line = (s: { kind: string; parent: string | null; name: string; exported: boolean; signature: string | null }) =>
  `${s.kind} ${s.parent ? `${s.parent}.` : ''}${s.name}${s.exported ? ' exported' : ''} | ${s.signature}`;

test('express: a function assigned to a prototype or an object property is a method of that name, with its header and doc', () => {
  const layer = analyze(EXPRESS(), 'lib/router/layer.js');
  assert.deepEqual(layer.symbols.filter((s) => s.kind === 'function' || s.kind === 'method').map(line), [
    'function Layer exported | function Layer(path, options, fn)',
    'method Layer.handle_error exported | Layer.prototype.handle_error = function handle_error(error, req, res, next)',
    'method Layer.handle_request exported | Layer.prototype.handle_request = function handle(req, res, next)',
    'method Layer.match exported | Layer.prototype.match = function match(path)',
    'function decode_param | function decode_param(val)',
  ]);
  const match = layer.symbols.find((s) => s.name === 'match')!;
  assert.deepEqual([match.startLine, match.endLine], [110, 156]);
  assert.match(match.doc!, /^Check if this route matches `path`, if so\npopulate `\.params`\./);

  // `var proto = module.exports = function (options) {…}`: the router is exported, and so are its methods.
  const router = analyze(EXPRESS(), 'lib/router/index.js').symbols.map(line);
  assert.ok(router.includes('function proto exported | var proto = module.exports = function(options)'), router.join('\n'));
  assert.ok(router.includes('method proto.handle exported | proto.handle = function handle(req, res, out)'), router.join('\n'));
  // `var app = exports = module.exports = {}`.
  const app = analyze(EXPRESS(), 'lib/application.js').symbols.map(line);
  assert.ok(app.includes('method app.listen exported | app.listen = function listen()'), app.join('\n'));
  assert.equal(app.filter((l) => l.startsWith('method app.')).length, 17);
  assert.ok(analyze(EXPRESS(), 'lib/response.js').symbols.map(line).includes('method res.send exported | res.send = function send(body)'));
  // Every target of `req.get = req.header = function header(name) {…}` names the function.
  const req = analyze(EXPRESS(), 'lib/request.js').symbols.map(line);
  for (const name of ['get', 'header']) assert.ok(req.includes(`method req.${name} exported | req.get = req.header = function header(name)`), name);
});

test('express: `exports.x = function (…) {…}` has its header as signature, not its body', () => {
  const utils = analyze(EXPRESS(), 'lib/utils.js').symbols.map(line);
  assert.ok(utils.includes('function compileETag exported | exports.compileETag = function(val)'), utils.join('\n'));
  assert.ok(utils.includes('function setCharset exported | exports.setCharset = function setCharset(type, charset)'), utils.join('\n'));
  assert.ok(utils.every((l) => !l.includes('{') && !l.includes('return')), utils.join('\n'));
});

test('express: a license banner (`/*! express Copyright(c) … MIT Licensed */`) is no file\'s description', () => {
  const root = EXPRESS();
  const files = ['index.js', ...fs.readdirSync(path.join(root, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).map((f) => `lib/${f}`)];
  assert.ok(files.length >= 11);
  for (const file of files) {
    const head = fs.readFileSync(path.join(root, file), 'utf8').slice(0, 300);
    assert.match(head, /^\/\*!\n \* express\n \* Copyright\(c\)/, file);
    assert.equal(analyze(root, file).description, null, file);
  }
  assert.equal(cleanComment('/*!\n * express\n * MIT Licensed\n */'), 'express\nMIT Licensed');
});

test('axios: `export default { merge, … }` exports the helpers it names; an anonymous default function is a symbol', () => {
  const utils = analyze(AXIOS(), 'lib/utils.js');
  const exported = new Set(utils.symbols.filter((s) => s.exported).map((s) => s.name));
  for (const name of ['merge', 'forEach', 'isFunction', 'isBuffer', 'toJSONObject', 'hasOwnProperty', 'asap']) assert.ok(exported.has(name), name);
  // Declared, used inside the file, left out of the default export.
  for (const name of ['typeOfTest', 'ALPHA', 'DIGIT']) assert.ok(!exported.has(name), name);

  assert.deepEqual(analyze(AXIOS(), 'lib/helpers/resolveConfig.js').symbols.map(line), ['function default exported | export default (config) =>']);
  const xhr = analyze(AXIOS(), 'lib/adapters/xhr.js').symbols.filter((s) => s.name === 'default');
  assert.deepEqual(xhr.map(line), ['function default exported | export default isXHRAdapterSupported && function (config)']);
  assert.deepEqual([xhr[0].startLine, xhr[0].endLine], [14, 197]);
});

test('runs external processes: a process module or a bare exec/spawn call, not `regexp.exec(…)`', () => {
  const express = EXPRESS();
  const layer = analyze(express, 'lib/router/layer.js');
  assert.match(layer.text, /this\.regexp\.exec\(path\)/);
  const doc = buildStaticDoc({ path: 'lib/router/layer.js', language: 'javascript', lines: 182, description: null }, layer.symbols, layer.imports, layer.text);
  assert.ok(!doc.risks.includes('runs external processes'), doc.risks.join('; '));
  for (const root of [express, AXIOS()]) {
    for (const file of fs.readdirSync(path.join(root, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
      assert.equal(runsProcesses(fs.readFileSync(path.join(root, 'lib', file), 'utf8')), false, file);
    }
  }
  // True positives stay: phaser's webpack config runs a script through `require('child_process').exec`.
  const webpack = fs.readFileSync(path.join(npmPackage('phaser@3.90.0'), 'config', 'webpack.config.js'), 'utf8');
  assert.match(webpack, /require\('child_process'\)\.exec/);
  assert.equal(runsProcesses(webpack), true);
  // Java and Python, which no JavaScript package shows.
  assert.equal(runsProcesses('Process p = Runtime.getRuntime().exec(cmd);'), true);
  assert.equal(runsProcesses('import subprocess\nsubprocess.run(["ls"])'), true);
  assert.equal(runsProcesses('const m = pattern.exec(text);\nfunction exec(query) { return db.exec(query); }'), false);
});

test('express indexed: scope lists the prototype and object methods, the file doc shows them and no false risk', async () => {
  const folder = path.join(tempDir('loupe-express-'), 'express');
  fs.cpSync(EXPRESS(), folder, { recursive: true });
  const t = await createTestApp();
  try {
    const res = await t.call('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.engine.queue.idle();
    const repo = res.body.data.repo.repo_id;
    const scope = await t.call('POST', `/v2/repos/${repo}/scope`, { include: ['functions'], limit: 500 });
    assert.equal(scope.status, 200, JSON.stringify(scope.body));
    const names = new Set(scope.body.data.scope.functions.items.map((f: { name: string }) => f.name));
    for (const name of ['Layer.match', 'proto.handle', 'app.listen', 'res.send', 'req.get', 'req.header']) assert.ok(names.has(name), name);
    // 32 functions before: only the declared ones and `exports.x`.
    assert.ok(scope.body.data.summary.functions >= 90, String(scope.body.data.summary.functions));

    const url = `/v2/files/${repo}/${encodeURIComponent('lib/router/layer.js')}`;
    await t.call('GET', url);
    await t.engine.docs.idle();
    const doc: string = (await t.call('GET', url)).body.data.documentation;
    assert.match(doc, /## Functions\n\n- `Layer` — lines 33–50\n- `Layer\.handle_error` — lines 62–75\n- `Layer\.handle_request` — lines 86–99\n- `Layer\.match` — lines 110–156\n/);
    assert.doesNotMatch(doc, /runs external processes|Copyright|^# lib\/router\/layer\.js\n\n!/);
  } finally {
    await t.close();
  }
});
