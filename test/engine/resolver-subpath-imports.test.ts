import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { analyzeScript } from '../../server/engine/indexer/parse-typescript';
import { npmPackage } from '../helpers/real-code';
import { tempDir } from '../helpers/engine';

// Subpath imports (package.json `imports`, `#name`) and a package's imports of itself by name (through its
// `exports`) resolve as Node resolves them even where no tsconfig.json chooses a resolution that reads those
// fields: the default (node10) ignores them, and chalk's own imports of its vendored modules were dropped as two
// unknown packages named `#ansi-styles` and `#supports-color`, zod's tests' `zod/v4` as the package zod.

test('chalk 5.3.0 reaches its vendored modules through `#ansi-styles` and `#supports-color` (the node condition)', () => {
  const root = npmPackage('chalk@5.3.0');
  const imports = analyzeScript('source/index.js', fs.readFileSync(path.join(root, 'source/index.js'), 'utf8'), new ModuleResolver(root)).imports;
  const bySpecifier = new Map(imports.filter((i) => !i.typeOnly).map((i) => [i.specifier, i]));
  // The compiler answers index.d.ts with moduleResolution nodenext for this ES module ("type": "module"); the
  // index.js beside it is what runs (resolver-runtime-file.test.ts).
  assert.equal(bySpecifier.get('#ansi-styles')?.targetPath, 'source/vendor/ansi-styles/index.js');
  assert.equal(bySpecifier.get('#supports-color')?.targetPath, 'source/vendor/supports-color/index.js');
  assert.ok(imports.every((i) => i.packageName === null), JSON.stringify(imports));
});

test('a subpath import follows the importing file\'s module format: `import` in .mjs, `require` in .cjs', () => {
  const root = tempDir('loupe-subpath-');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', imports: { '#dep': { import: './esm.js', require: './cjs.js' } } }));
  for (const f of ['esm.js', 'cjs.js']) fs.writeFileSync(path.join(root, f), 'export const x = 1;\n');
  fs.writeFileSync(path.join(root, 'a.mjs'), "import { x } from '#dep';\n");
  fs.writeFileSync(path.join(root, 'b.cjs'), "const { x } = require('#dep');\n");
  const resolver = new ModuleResolver(root);
  assert.equal(resolver.resolve('a.mjs', '#dep').targetPath, 'esm.js');
  assert.equal(resolver.resolve('b.cjs', '#dep').targetPath, 'cjs.js');
  // An import the map does not name is nobody's package.
  assert.deepEqual(resolver.resolve('a.mjs', '#missing'), { targetPath: null, packageName: null });
});

test('zod 4.1.12\'s own tests import zod by name: the package itself, through its exports (types first)', () => {
  const root = npmPackage('zod@4.1.12');
  const resolver = new ModuleResolver(root);
  // What the compiler answers with moduleResolution nodenext; the `@zod/source` condition is zod's tsconfig's, not shipped.
  assert.deepEqual(resolver.resolve('src/v4/classic/tests/union.test.ts', 'zod/v4'), { targetPath: 'v4/index.d.cts', packageName: null });
  assert.deepEqual(resolver.resolve('src/v4/classic/tests/union.test.ts', 'zod'), { targetPath: 'index.d.cts', packageName: null });
  // Another package is still a package.
  assert.deepEqual(resolver.resolve('src/v4/classic/tests/union.test.ts', 'vitest'), { targetPath: null, packageName: 'vitest' });
});
