import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { frameworkRoutes } from '../../server/engine/analysis/framework-routes';
import { createTestApp, indexedRepo, type TestApp } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

// A web app starts from the files its framework routes to (Next.js's app/page.tsx, Nuxt's pages/ and app.vue, a
// SvelteKit +page.svelte), which nothing imports. They were no entry points: the blast radius of a component that
// every page shows reached no entry point and was rated low.

async function entryPoints(t: TestApp, repoId: string, file: string): Promise<string[]> {
  const r = await t.call('POST', `/v2/repos/${repoId}/radius`, { file, include: ['entry_points'] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.data.targets[0].entry_points as { file_path: string; detail: string }[]).map((e) => `${e.file_path} (${e.detail})`);
}

test('create-next-app 15.1.0: the app router\'s page and layout, and the pages router\'s pages and API routes, are Next.js routes', () => {
  const root = path.join(npmPackage('create-next-app@15.1.0'), 'dist/templates');
  const paths = (folder: string) => {
    const out: string[] = [];
    const visit = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, folder, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) visit(rel); else out.push(rel);
      }
    };
    visit('');
    return out;
  };
  assert.deepEqual([...frameworkRoutes(paths('app-tw/ts')).keys()].sort(), ['app/layout.tsx', 'app/page.tsx']);
  assert.deepEqual([...frameworkRoutes(paths('default-tw/ts')).keys()].sort(), ['pages/_app.tsx', 'pages/_document.tsx', 'pages/api/hello.ts', 'pages/index.tsx']);
  // SvelteKit (sv 0.17.1's minimal app, whose config is inside vite.config.ts): its `+` files.
  const sv = JSON.parse(fs.readFileSync(path.join(npmPackage('sv@0.17.1'), 'dist/templates/minimal/files.types=typescript.json'), 'utf8')) as { name: string }[];
  assert.deepEqual([...frameworkRoutes([...sv.map((f) => f.name), 'vite.config.ts']).entries()],
    [['src/routes/+layout.svelte', 'SvelteKit route'], ['src/routes/+page.svelte', 'SvelteKit route']]);
  // Without the framework's config, the same places are nothing special.
  assert.deepEqual([...frameworkRoutes(paths('app-tw/ts').filter((p) => p !== 'next.config.ts')).keys()], []);
});

test('docus 5.12.3 (Nuxt): a component every page shows reaches the app\'s routes', async () => {
  const root = copyOf(npmPackage('docus@5.12.3'), 'loupe-routes-');
  const t = await createTestApp();
  try {
    const repo = await indexedRepo(t, root);
    assert.deepEqual(await entryPoints(t, repo, 'app/components/app/AppHeaderLogo.vue'), ['app/app.vue (Nuxt route)', 'app/error.vue (Nuxt route)']);
    const blueprint = await t.call('GET', `/v2/repos/${repo}/blueprint`);
    assert.match(blueprint.body.data.documentation, /`app\/pages\/\[\[lang\]\]\/\[\.\.\.slug\]\.vue` \(Nuxt route\)/);
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});
