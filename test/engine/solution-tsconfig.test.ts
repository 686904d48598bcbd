import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

// `npm create vue` and `npm create vite` write a "solution" tsconfig.json: `"files": []` and `references` to
// tsconfig.app.json (the app under src/, with the `@/*` → `./src/*` alias) and tsconfig.node.json (vite.config.*).
// The nearest tsconfig.json has no options, so `@/views/HomeView.vue` resolved to a package named `@`. The
// editor's TypeScript opens each file in the referenced project that includes it; so does the resolver.

/** A create-vue 3.24.0 project as its generator lays it out (bundle.js: base, TypeScript, router, tsconfig/base). */
function createVueProject(): string {
  const template = path.join(npmPackage('create-vue@3.24.0'), 'template');
  const root = tempDir('loupe-create-vue-');
  for (const part of ['base', 'config/typescript', 'tsconfig/base', 'code/typescript-router']) {
    fs.cpSync(path.join(template, part), root, { recursive: true });
  }
  // What bundle.js writes for a TypeScript project, with the tsconfig/base parts.
  fs.writeFileSync(path.join(root, 'tsconfig.json'), `${JSON.stringify({ files: [], references: [{ path: './tsconfig.node.json' }, { path: './tsconfig.app.json' }] }, null, 2)}\n`);
  return root;
}

test('create-vue 3.24.0: an app file resolves `@/…` with tsconfig.app.json\'s paths, as the compiler does with that config', () => {
  const root = createVueProject();
  try {
    // The router's own imports are relative; an app module written with the alias, as app code does.
    fs.writeFileSync(path.join(root, 'src/router/routes.ts'), "import HomeView from '@/views/HomeView.vue'\nimport { router } from '@/router'\n");
    const resolver = new ModuleResolver(root);
    assert.equal(resolver.resolve('src/router/routes.ts', '@/views/HomeView.vue').targetPath, 'src/views/HomeView.vue');
    assert.equal(resolver.resolve('src/router/routes.ts', '@/router').targetPath, 'src/router/index.ts');
    assert.equal(resolver.resolve('src/App.vue', '@/components/HelloWorld.vue').targetPath, 'src/components/HelloWorld.vue');

    // The compiler, with tsconfig.app.json's own options, gives the same file.
    const app = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.app.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const compiler = ts.resolveModuleName('@/router', path.join(root, 'src/router/routes.ts'), app.options, ts.sys).resolvedModule?.resolvedFileName;
    assert.equal(compiler && path.relative(root, compiler), 'src/router/index.ts');

    // vite.config.ts is tsconfig.node.json's (its `include`), not the app's: no `@/` alias there.
    fs.writeFileSync(path.join(root, 'vite.config.ts'), "import { router } from '@/router'\n");
    assert.deepEqual(resolver.resolve('vite.config.ts', '@/router'), { targetPath: null, packageName: '@/router' });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a solution\'s member is chosen by include and exclude: create-vue\'s vitest config holds src/**/__tests__', () => {
  const root = createVueProject();
  try {
    const vitest = path.join(npmPackage('create-vue@3.24.0'), 'template/tsconfig/vitest');
    fs.cpSync(vitest, root, { recursive: true });
    // The vitest config extends the app's; give it an alias of its own to tell which config a file resolved with.
    const config = ts.readConfigFile(path.join(root, 'tsconfig.vitest.json'), ts.sys.readFile).config as { compilerOptions: Record<string, unknown> };
    config.compilerOptions.paths = { '#test/*': ['./src/*'] };
    fs.writeFileSync(path.join(root, 'tsconfig.vitest.json'), JSON.stringify(config));
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ files: [], references: [{ path: './tsconfig.node.json' }, { path: './tsconfig.app.json' }, { path: './tsconfig.vitest.json' }] }));
    fs.mkdirSync(path.join(root, 'src/components/__tests__'));
    const resolver = new ModuleResolver(root);
    // tsconfig.app.json excludes src/**/__tests__/*: the vitest config (later in the list) holds those files.
    assert.equal(resolver.resolve('src/components/__tests__/HelloWorld.spec.ts', '#test/components/HelloWorld.vue').targetPath, 'src/components/HelloWorld.vue');
    assert.equal(resolver.resolve('src/components/TheWelcome.vue', '#test/components/HelloWorld.vue').targetPath, null);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
