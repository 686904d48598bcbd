import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { analyzeScript } from '../../server/engine/indexer/parse-typescript';
import { createTestApp, indexedRepo, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

// A declaration file written beside the JavaScript it describes (`x.d.ts` beside `x.js`) is what the compiler
// resolves `./x` to, but `x.js` is what runs. react-native-windows' Flow sources import `../StyleSheet/StyleSheet`
// that way, so StyleSheet.js had no dependents: editing it showed an empty blast radius. The JavaScript is the
// import's target and the declaration a type-only one.

const targets = (root: string, file: string) => analyzeScript(file, fs.readFileSync(path.join(root, file), 'utf8'), new ModuleResolver(root)).imports
  .map((i) => `${i.specifier} ${i.typeOnly ? 'type ' : ''}${i.targetPath}`);

test('react-native-windows 0.76.9: a Flow file imports the JavaScript beside a hand-written declaration', () => {
  const root = npmPackage('react-native-windows@0.76.9');
  const found = targets(root, 'Libraries/ActionSheetIOS/ActionSheetIOS.js');
  // `import type {ProcessedColorValue} from '../StyleSheet/processColor'` (Flow: its types are in the JavaScript),
  // then `const processColor = require('../StyleSheet/processColor').default`.
  for (const line of [
    '../StyleSheet/processColor type Libraries/StyleSheet/processColor.js',
    '../StyleSheet/processColor type Libraries/StyleSheet/processColor.d.ts',
    '../StyleSheet/processColor Libraries/StyleSheet/processColor.js',
  ]) assert.ok(found.includes(line), `${line} in ${JSON.stringify(found, null, 1)}`);
  assert.ok(!found.some((t) => /^\.\.\/StyleSheet\/processColor Libraries\/StyleSheet\/processColor\.d\.ts$/.test(t)), JSON.stringify(found));
});

test('chalk 5.3.0: `#ansi-styles` runs the vendored index.js; the declarations\' own imports stay declarations', () => {
  const root = npmPackage('chalk@5.3.0');
  const found = targets(root, 'source/index.js');
  assert.ok(found.includes('#ansi-styles source/vendor/ansi-styles/index.js'), JSON.stringify(found));
  assert.ok(found.includes('#ansi-styles type source/vendor/ansi-styles/index.d.ts'), JSON.stringify(found));
  assert.ok(found.includes('#supports-color source/vendor/supports-color/index.js'), JSON.stringify(found));
  // index.d.ts describes index.js; what it imports is read by a type checker alone.
  assert.deepEqual([...new Set(targets(root, 'source/index.d.ts').filter((t) => t.startsWith('./vendor')))], [
    './vendor/ansi-styles/index.js source/vendor/ansi-styles/index.d.ts',
    './vendor/supports-color/index.js source/vendor/supports-color/index.d.ts',
  ]);
});

test('a TypeScript file: a value import runs the JavaScript, a type-only import reads the declaration alone', () => {
  const root = tempDir('loupe-runtime-');
  try {
    fs.writeFileSync(path.join(root, 'legacy.js'), 'export function parse(s) { return s; }\n');
    fs.writeFileSync(path.join(root, 'legacy.d.ts'), 'export declare function parse(s: string): string;\nexport type Parsed = string;\n');
    fs.writeFileSync(path.join(root, 'only-types.d.ts'), 'export type Shape = { w: number };\n');
    fs.writeFileSync(path.join(root, 'app.ts'), "import { parse } from './legacy';\nimport type { Parsed } from './legacy';\nimport type { Shape } from './only-types';\n");
    assert.deepEqual(targets(root, 'app.ts'), ['./legacy legacy.js', './legacy type legacy.d.ts', './legacy type legacy.d.ts', './only-types type only-types.d.ts']);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the blast radius of a JavaScript file with a declaration beside it names its importers (react-native-windows 0.76.9)', async () => {
  const rnw = npmPackage('react-native-windows@0.76.9');
  const folder = tempDir('loupe-rnw-');
  const t = await createTestApp();
  try {
    for (const f of ['package.json', 'Libraries/ActionSheetIOS/ActionSheetIOS.js', 'Libraries/StyleSheet/processColor.js', 'Libraries/StyleSheet/processColor.d.ts']) {
      fs.cpSync(path.join(rnw, f), path.join(folder, f));
    }
    const repo = await indexedRepo(t, folder);
    const dependents = async (file: string) => {
      const r = await t.call('POST', `/v2/repos/${repo}/radius`, { file, include: ['dependents'] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.data.targets[0].dependents as { file_path: string }[]).map((d) => d.file_path);
    };
    assert.deepEqual(await dependents('Libraries/StyleSheet/processColor.js'), ['Libraries/ActionSheetIOS/ActionSheetIOS.js']);
    // The declaration is still read by a type checker of the same file.
    assert.deepEqual(await dependents('Libraries/StyleSheet/processColor.d.ts'), ['Libraries/ActionSheetIOS/ActionSheetIOS.js']);
  } finally {
    await t.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
