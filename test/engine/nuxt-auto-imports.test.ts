import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { nuxtComponentName } from '../../server/engine/indexer/nuxt-auto-imports';
import { createTestApp, dependentsOf, indexedRepo, type TestApp } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

// A Nuxt app uses its components (`<AppHeader />`) and what its composables and utils export (`useSeo(…)`) without
// importing them: Nuxt generates the imports into `.nuxt/`, which a fresh clone does not have. So every component
// and composable looked unused: blast radius empty. docus 5.12.3 (npm) is a Nuxt 4 layer (`app/` holds the app).

const dependents = async (t: TestApp, repoId: string, file: string) => (await dependentsOf(t, repoId, file)).sort();

test('Nuxt names a component by its folders and file, a folder the file name starts with said once', () => {
  assert.equal(nuxtComponentName('app/AppHeader.vue'), 'AppHeader');
  assert.equal(nuxtComponentName('docs/DocsAsideLeftTop.vue'), 'DocsAsideLeftTop');
  assert.equal(nuxtComponentName('base/foo/Button.vue'), 'BaseFooButton');
  assert.equal(nuxtComponentName('form/index.vue'), 'Form');
  assert.equal(nuxtComponentName('IconMenuToggle.vue'), 'IconMenuToggle');
  assert.equal(nuxtComponentName('ui/color-mode/ColorModeSwitch.client.vue'), 'UiColorModeSwitch');
});

test('docus 5.12.3: components used in templates and composables called by name are their users\' dependencies', async () => {
  const root = copyOf(npmPackage('docus@5.12.3'), 'loupe-nuxt-');
  const t = await createTestApp();
  try {
    const repo = await indexedRepo(t, root);
    // `<AppHeaderLogo />` in AppHeaderLeft.vue, `<AppHeaderLeft />` in AppHeader.vue, `<AppHeader />` in app.vue and error.vue.
    assert.deepEqual(await dependents(t, repo, 'app/components/app/AppHeaderLogo.vue'), [
      '1 app/components/app/AppHeaderLeft.vue', '2 app/components/app/AppHeader.vue', '3 app/app.vue', '3 app/error.vue',
    ]);
    // `useSeo({…})` in a page and a template; `findPageBreadcrumbs(…)` (utils/) in the page.
    assert.deepEqual(await dependents(t, repo, 'app/composables/useSeo.ts'), ['1 app/pages/[[lang]]/[...slug].vue', '1 app/templates/landing.vue']);
    assert.ok((await dependents(t, repo, 'app/utils/navigation.ts')).includes('1 app/pages/[[lang]]/[...slug].vue'));
    // A symbol's users too: the component is its file's one export; a util's function is used by its name.
    assert.deepEqual(await dependents(t, repo, 'app/components/app/AppHeader.vue#AppHeader'), ['1 app/app.vue', '1 app/error.vue']);
    assert.deepEqual(await dependents(t, repo, 'app/utils/navigation.ts#findPageBreadcrumbs'), ['1 app/pages/[[lang]]/[...slug].vue']);
    // A file that imports a composable explicitly keeps its import as the one edge (app.vue imports useDocusShortcuts).
    const app = t.engine.filesStore.getByPath(repo, 'app/app.vue')!;
    const rows = t.engine.filesStore.imports(app.id).filter((i) => i.targetPath === 'app/composables/useDocusShortcuts.ts');
    assert.deepEqual(rows.map((i) => i.kind), ['import']);
    // The module's own components (registered by its code, not by the app's folders) are not guessed at.
    assert.deepEqual(await dependents(t, repo, 'modules/assistant/runtime/components/AssistantPanel.vue'), []);
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});

test('docus 5.12.3: a component added after its use gains its user, and loses it when removed; a new composable export likewise', async () => {
  const root = copyOf(npmPackage('docus@5.12.3'), 'loupe-nuxt-');
  const t = await createTestApp();
  try {
    const repo = t.engine.repos.registerLocalFolder(t.ownerId, root);
    await t.engine.queue.idle();
    const record = t.engine.reposStore.get(repo.id)!;
    const layout = path.join(root, 'app/layouts/default.vue');
    fs.writeFileSync(layout, fs.readFileSync(layout, 'utf8').replace('<template>', '<template>\n  <app-banner />\n  <table />'));
    // A component named like an HTML element is not what `<table>` is.
    fs.writeFileSync(path.join(root, 'app/components/Table.vue'), '<template>\n  <p />\n</template>\n');
    await t.engine.indexer.updatePaths(record, ['app/layouts/default.vue']);
    // Saved after its use: the layout, not edited again, depends on it.
    fs.writeFileSync(path.join(root, 'app/components/app/AppBanner.vue'), '<template>\n  <p>{{ bannerText() }}</p>\n</template>\n');
    await t.engine.indexer.updatePaths(record, ['app/components/app/AppBanner.vue']);
    assert.deepEqual(await dependents(t, repo.id, 'app/components/app/AppBanner.vue'), ['1 app/layouts/default.vue']);
    await t.engine.indexer.updatePaths(record, ['app/components/Table.vue']);
    assert.deepEqual(await dependents(t, repo.id, 'app/components/Table.vue'), []);
    // `bannerText()` resolves once a util exports it.
    fs.appendFileSync(path.join(root, 'app/utils/navigation.ts'), '\nexport function bannerText(): string { return \'\' }\n');
    await t.engine.indexer.updatePaths(record, ['app/utils/navigation.ts']);
    assert.ok((await dependents(t, repo.id, 'app/utils/navigation.ts')).includes('1 app/components/app/AppBanner.vue'));

    // `shared/utils/` is the app's and the server's: a server tool and a component call what it exports.
    fs.mkdirSync(path.join(root, 'shared/utils'), { recursive: true });
    fs.writeFileSync(path.join(root, 'shared/utils/slug.ts'), 'export const slugOf = (s: string) => s.toLowerCase()\n');
    fs.appendFileSync(path.join(root, 'server/mcp/tools/get-page.ts'), '\nexport const pageSlug = (s: string) => slugOf(s)\n');
    await t.engine.indexer.updatePaths(record, ['shared/utils/slug.ts', 'server/mcp/tools/get-page.ts']);
    assert.deepEqual(await dependents(t, repo.id, 'shared/utils/slug.ts'), ['1 server/mcp/tools/get-page.ts']);

    fs.rmSync(path.join(root, 'app/components/app/AppBanner.vue'));
    await t.engine.indexer.updatePaths(record, ['app/components/app/AppBanner.vue']);
    const file = t.engine.filesStore.getByPath(repo.id, 'app/layouts/default.vue')!;
    assert.ok(!t.engine.filesStore.imports(file.id).some((i) => i.specifier === 'AppBanner'), 'no edge is left to the removed component');
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});
