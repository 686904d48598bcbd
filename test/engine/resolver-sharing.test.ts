import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ModuleResolver, type Resolution } from '../../server/engine/indexer/resolver';
import { walk } from '../../server/engine/indexer/walk';
import { npmPackage } from '../helpers/real-code';
import { copyFixture, tempDir } from '../helpers/engine';

/**
 * One resolver answers every import of a repository and shares answers between folders (by the path a
 * relative specifier names; by the nearest node_modules and package.json for a bare one) and between
 * tsconfig.json files whose options resolve alike. Sharing must never change an answer: each file's imports
 * are also resolved by a resolver of its own, which shares nothing with other files.
 */
function importsOf(root: string): [string, string][] {
  const out: [string, string][] = [];
  for (const e of walk(root)) {
    if (!/\.(m|c)?[jt]sx?$/.test(e.relPath) || e.size > 512 * 1024) continue;
    const info = ts.preProcessFile(fs.readFileSync(path.join(root, e.relPath), 'utf8'), true, true);
    for (const i of info.importedFiles) out.push([e.relPath, i.fileName]);
  }
  return out;
}

function assertSharingChangesNothing(root: string, pairs: [string, string][]): Resolution[] {
  const shared = new ModuleResolver(root);
  const answers = pairs.map(([from, specifier]) => shared.resolve(from, specifier));
  let own: ModuleResolver | null = null;
  let ownFile = '';
  pairs.forEach(([from, specifier], i) => {
    if (from !== ownFile) { own = new ModuleResolver(root); ownFile = from; }
    assert.deepEqual(answers[i], own!.resolve(from, specifier), `${from} → ${specifier}`);
  });
  return answers;
}

test('answers shared between folders and alike configs are the answers each file gets alone, on real packages', () => {
  const all: Resolution[] = [];
  for (const spec of ['hono@4.13.19', 'react-native-windows@0.76.9']) {
    const root = npmPackage(spec);
    const pairs = importsOf(root);
    assert.ok(pairs.length > 500, `${spec}: ${pairs.length} imports`);
    const answers = assertSharingChangesNothing(root, pairs);
    assert.ok(answers.some((a) => a.targetPath), `${spec}: imports between its files resolve`);
    all.push(...answers);
  }
  assert.ok(all.filter((a) => a.packageName && !a.packageName.startsWith('node:')).length > 100, 'imports of packages stay packages');
  const workspace = copyFixture('ts-workspace');
  assertSharingChangesNothing(workspace, importsOf(workspace));
});

test('what decides a shared answer: the nearest node_modules, the nearest package.json, the base of paths, a folder named as one', () => {
  const root = tempDir('loupe-resolver-sharing-');
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), text); };
  const link = (rel: string, target: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.symlinkSync(path.relative(path.dirname(path.join(root, rel)), path.join(root, target)), path.join(root, rel), 'dir'); };
  write('tsconfig.json', JSON.stringify({ compilerOptions: { moduleResolution: 'bundler', module: 'esnext' } }));
  // Two copies of a library, linked as `shared` at the root and, nearer, inside package a.
  write('libs/shared-1/package.json', JSON.stringify({ name: 'shared', types: './index.ts' }));
  write('libs/shared-1/index.ts', 'export const v = 1;\n');
  write('libs/shared-2/package.json', JSON.stringify({ name: 'shared', types: './index.ts' }));
  write('libs/shared-2/index.ts', 'export const v = 2;\n');
  link('node_modules/shared', 'libs/shared-1');
  link('packages/a/node_modules/shared', 'libs/shared-2');
  // Packages b and c: a self-reference by name and `#imports`, each through its own package.json.
  write('packages/b/package.json', JSON.stringify({ name: '@x/b', exports: { './util': './src/util.ts' }, imports: { '#int': './src/int-b.ts' } }));
  write('packages/b/src/util.ts', 'export {};\n');
  write('packages/b/src/int-b.ts', 'export {};\n');
  write('packages/c/package.json', JSON.stringify({ name: '@x/c', imports: { '#int': './src/int-c.ts' } }));
  write('packages/c/src/int-c.ts', 'export {};\n');
  // Two tsconfig.json files alike in every option but the folder their `paths` are read from.
  for (const d of ['tools/one', 'tools/two']) {
    write(`${d}/tsconfig.json`, JSON.stringify({ compilerOptions: { moduleResolution: 'bundler', module: 'esnext', paths: { '@p': ['./p.ts'] } } }));
    write(`${d}/p.ts`, 'export {};\n');
  }
  // A file and a folder of one name: `./lib` is the file, `./lib/` and `.` (inside it) the folder's index.
  write('dirs/lib.ts', 'export {};\n');
  write('dirs/lib/index.ts', 'export {};\n');
  write('dirs/lib/inner.ts', 'import ".";\nimport "..";\nimport "../lib";\n');
  write('dirs/main.ts', 'import "./lib";\nimport "./lib/";\nimport "./";\n');
  const imports = 'import "shared"; import "@x/b/util"; import "#int"; import "@p"; import "../../libs/shared-1/index"; import "./util";\n';
  for (const f of ['src/main.ts', 'packages/a/src/deep/main.ts', 'packages/b/src/main.ts', 'packages/c/src/main.ts', 'tools/one/main.ts', 'tools/two/main.ts']) write(f, imports);

  const pairs = importsOf(root);
  const answers = assertSharingChangesNothing(root, pairs);
  const target = (from: string, specifier: string) => answers[pairs.findIndex(([f, s]) => f === from && s === specifier)].targetPath;
  const expected: [from: string, specifier: string, target: string | null][] = [
    ['src/main.ts', 'shared', 'libs/shared-1/index.ts'],
    ['packages/a/src/deep/main.ts', 'shared', 'libs/shared-2/index.ts'],
    ['packages/b/src/main.ts', '@x/b/util', 'packages/b/src/util.ts'],
    ['packages/c/src/main.ts', '@x/b/util', null],
    ['packages/b/src/main.ts', '#int', 'packages/b/src/int-b.ts'],
    ['packages/c/src/main.ts', '#int', 'packages/c/src/int-c.ts'],
    ['tools/one/main.ts', '@p', 'tools/one/p.ts'],
    ['tools/two/main.ts', '@p', 'tools/two/p.ts'],
    ['packages/b/src/main.ts', './util', 'packages/b/src/util.ts'],
    ['packages/c/src/main.ts', './util', null],
    ['dirs/main.ts', './lib', 'dirs/lib.ts'],
    ['dirs/main.ts', './lib/', 'dirs/lib/index.ts'],
    ['dirs/lib/inner.ts', '.', 'dirs/lib/index.ts'],
    ['dirs/lib/inner.ts', '../lib', 'dirs/lib.ts'],
  ];
  for (const [from, specifier, want] of expected) assert.equal(target(from, specifier), want, `${from} → ${specifier}`);

  // The compiler, with each file's own config and nothing cached, agrees on every import.
  for (let i = 0; i < pairs.length; i++) {
    const [from, specifier] = pairs[i];
    const file = path.join(root, from);
    const configFile = ts.findConfigFile(path.dirname(file), ts.sys.fileExists)!;
    const options = ts.parseJsonConfigFileContent(ts.readConfigFile(configFile, ts.sys.readFile).config, ts.sys, path.dirname(configFile), undefined, configFile).options;
    const resolved = ts.resolveModuleName(specifier, file, { ...options, allowJs: true, resolveJsonModule: true }, ts.sys).resolvedModule;
    const rel = resolved ? path.relative(fs.realpathSync(root), fs.realpathSync(resolved.resolvedFileName)).split(path.sep).join('/') : null;
    assert.equal(answers[i].targetPath, rel, `${from} → ${specifier}`);
  }
});
