import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { analyzeScript } from '../../server/engine/indexer/parse-typescript';
import { tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

// Under moduleResolution node16/nodenext the compiler resolves an import by its mode: the importing file's
// format (an ES module: .mts, or .ts in a `"type": "module"` package; else CommonJS) and the import's kind
// (`require()` is CommonJS, `import()` ES). It picks package.json `exports`' `import` or `require` condition
// by it. Loupe passed no mode, and got the `require` target everywhere: payload's `@tools/constants` (exports
// `import` only) was imported by 10 of its ES modules and resolved to nothing; `@payloadcms/next/routes` went
// through tsconfig `paths` to a folder's index.ts, which an ES module's import cannot name (12 files). No npm
// package ships a nodenext tsconfig with such exports and imports of itself, so this is a tiny copy of the case.

test('nodenext: an import takes the `import` or `require` export by the file\'s format and the import\'s kind', () => {
  const root = tempDir('loupe-resolution-mode-');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({
    name: 'p', type: 'module', exports: { '.': { import: './src/esm.ts', require: './src/cjs.ts' } },
  }));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
  fs.mkdirSync(path.join(root, 'src'));
  const files: Record<string, string> = {
    'src/esm.ts': 'export const x = 1;\n',
    'src/cjs.ts': 'export const x = 1;\n',
    'src/a.ts': "import { x } from 'p';\nexport { x as y } from 'p';\nconst z = require('p');\n",
    'src/b.cts': "import { x } from 'p';\nconst later = import('p');\n",
  };
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(root, f), text);
  const resolver = new ModuleResolver(root);
  const targets = (f: string) => analyzeScript(f, files[f], resolver).imports.map((i) => `${i.kind} ${i.targetPath}`);
  // What the compiler answers (ts.getModeForUsageLocation, then ts.resolveModuleName with that mode).
  assert.deepEqual(targets('src/a.ts'), ['import src/esm.ts', 'export src/esm.ts', 'require src/cjs.ts']);
  assert.deepEqual(targets('src/b.cts'), ['import src/cjs.ts', 'dynamic src/esm.ts']);
  // A relink resolves a stored import again from its file, specifier and kind (index-writes.ts importResolution):
  // the same answers, in any order, from a fresh resolver.
  const again = new ModuleResolver(root);
  assert.equal(again.resolve('src/b.cts', 'p', 'dynamic').targetPath, 'src/esm.ts');
  assert.equal(again.resolve('src/a.ts', 'p', 'require').targetPath, 'src/cjs.ts');
  assert.equal(again.resolve('src/b.cts', 'p', 'import').targetPath, 'src/cjs.ts');
  assert.equal(again.resolve('src/a.ts', 'p', 'import').targetPath, 'src/esm.ts');
});

test('nodenext: an ES module\'s relative import without an extension still names its file', () => {
  // An error to the compiler (TS2835), but vitest and bundlers run such files (payload: 29 spec files).
  const root = tempDir('loupe-resolution-mode-');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'q', type: 'module' }));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
  fs.writeFileSync(path.join(root, 'utils.ts'), 'export const u = 1;\n');
  const resolver = new ModuleResolver(root);
  assert.deepEqual(resolver.resolve('utils.spec.ts', './utils', 'import'), { targetPath: 'utils.ts', packageName: null });
  assert.deepEqual(resolver.resolve('utils.spec.ts', './utils.js', 'import'), { targetPath: 'utils.ts', packageName: null });
});

test('axios 1.7.9 as a workspace package: `import type … with { \'resolution-mode\' }` picks its `import` or `require` types, as the compiler does', () => {
  // axios exports `index.d.ts` under `import` and `index.d.cts` under `require`. Loupe ignored the attribute: every
  // type import of an ES module took `index.d.ts`. The oracle is the compiler on the same tree, installed (a symlink).
  const root = tempDir('loupe-resolution-mode-axios-');
  fs.cpSync(npmPackage('axios@1.7.9'), path.join(root, 'packages/axios'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', workspaces: ['packages/*'] }));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', noEmit: true } }));
  fs.mkdirSync(path.join(root, 'src'));
  const text = [
    "import type { AxiosInstance } from 'axios' with { 'resolution-mode': 'require' };",
    "import type { AxiosResponse } from 'axios' with { 'resolution-mode': 'import' };",
    "import type { AxiosError } from 'axios';",
    "export type { AxiosHeaders } from 'axios' with { 'resolution-mode': 'require' };",
    // Not type-only: the compiler reports the attribute and resolves by the file's format.
    "import { isAxiosError } from 'axios' with { 'resolution-mode': 'require' };",
    'export type T = [AxiosInstance, AxiosResponse, AxiosError, typeof isAxiosError];', '',
  ].join('\n');
  for (const file of ['src/a.ts', 'src/b.cts']) fs.writeFileSync(path.join(root, file), text);
  const resolver = new ModuleResolver(root);
  // Loupe, on the workspace as cloned (nothing installed: workspaces.ts links it).
  const loupe = Object.fromEntries(['src/a.ts', 'src/b.cts'].map((f) => [f, analyzeScript(f, text, resolver).imports.map((i) => i.targetPath)]));
  // The compiler, on an install of the workspace (node_modules/axios → packages/axios).
  fs.mkdirSync(path.join(root, 'node_modules'));
  fs.symlinkSync(path.join(root, 'packages/axios'), path.join(root, 'node_modules/axios'));
  try {
    const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const program = ts.createProgram([path.join(root, 'src/a.ts'), path.join(root, 'src/b.cts')], config.options);
    const compiler = (file: string) => {
      const sf = program.getSourceFile(path.join(root, file))!;
      return sf.statements.filter((s) => (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier).map((s) => {
        const literal = (s as ts.ImportDeclaration).moduleSpecifier as ts.StringLiteral;
        const resolved = ts.resolveModuleName(literal.text, sf.fileName, config.options, ts.sys, undefined, undefined, program.getModeForUsageLocation(sf, literal));
        return path.relative(fs.realpathSync(root), resolved.resolvedModule!.resolvedFileName).split(path.sep).join('/');
      });
    };
    const d = (ext: string) => `packages/axios/index.d.${ext}`;
    assert.deepEqual(compiler('src/a.ts'), [d('cts'), d('ts'), d('ts'), d('cts'), d('ts')]);
    assert.deepEqual(compiler('src/b.cts'), [d('cts'), d('ts'), d('cts'), d('cts'), d('cts')]);
    assert.deepEqual(loupe['src/a.ts'], compiler('src/a.ts'));
    assert.deepEqual(loupe['src/b.cts'], compiler('src/b.cts'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
