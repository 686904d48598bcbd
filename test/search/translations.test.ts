import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { fileRole, rolesAsked } from '../../server/engine/search/file-role';
import { queryTerms } from '../../server/engine/search/query';

/**
 * Translations rank below source unless the query asks for them (search/file-role.ts): each language's copy of
 * the product's words matched a question about a feature before the code did. Real code nobody here wrote:
 * date-fns 4.1.0 from npm, whose functions (`formatDistance.js`, `formatRelative.js`) sit beside one folder of
 * rules and words per locale (`locale/fr/_lib/formatDistance.js`, 95 of them).
 */
test('translation files by format, by a locale\'s name or a locale\'s folder under a locales folder; and the words that ask for them', () => {
  const roles: [string, ReturnType<typeof fileRole>][] = [
    ['packages/translations/src/languages/en.ts', 'translation'], ['packages/translations/src/languages/zhTw.ts', 'translation'],
    ['config/locales/en.yml', 'translation'], ['public/locales/pt-BR/common.json', 'translation'],
    ['locale/fr/_lib/formatDistance.js', 'translation'], ['locale/fr/LC_MESSAGES/django.po', 'translation'],
    ['src/main/resources/messages_fr.properties', 'translation'], ['Resources/fr.lproj/Localizable.strings', 'translation'],
    ['lib/l10n/app_de.arb', 'translation'], ['src/i18n/messages/zh_Hant_TW.json', 'translation'],
    // Not translations: code about languages and locales, a highlighter's grammars, a locale folder's own code.
    ['server/engine/indexer/languages.ts', null], ['src/languages/go.js', null], ['packages/ui/src/providers/Locale/index.tsx', null],
    ['src/lang/parser.go', null], ['src/i18n/index.ts', null], ['locale/_lib/buildLocalizeFn.js', null], ['formatDistance.js', null],
    ['src/messages/handler.ts', null], ['test/locales/en.json', 'test'], ['internal/messages/id.go', null],
    ['src/messages/de.json', 'translation'], ['resources/lang/en/validation.php', 'translation'],
  ];
  for (const [p, role] of roles) assert.equal(fileRole(p), role, p);
  assert.deepEqual([...rolesAsked(queryTerms('french translation of relative dates'))], ['translation']);
  assert.deepEqual([...rolesAsked(queryTerms('where is the locale switched'))], ['translation']);
  assert.deepEqual([...rolesAsked(queryTerms('restore a previous version'))], []);
});

let t: TestEngine;
let repoId = '';

/** date-fns' distance and relative functions with every locale's rules for them (the ES module files). */
function dateFns(): string {
  const pkg = npmPackage('date-fns@4.1.0');
  const dir = path.join(tempDir('loupe-translations-'), 'date-fns');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(pkg)) if (/^(formatDistance\w*|formatRelative|intlFormatDistance|differenceIn\w+)\.js$/.test(f)) fs.copyFileSync(path.join(pkg, f), path.join(dir, f));
  for (const locale of fs.readdirSync(path.join(pkg, 'locale'))) {
    const lib = path.join(pkg, 'locale', locale, '_lib');
    if (!fs.existsSync(lib)) continue;
    fs.mkdirSync(path.join(dir, 'locale', locale, '_lib'), { recursive: true });
    for (const f of fs.readdirSync(lib)) if (f.endsWith('.js')) fs.copyFileSync(path.join(lib, f), path.join(dir, 'locale', locale, '_lib', f));
  }
  return dir;
}

before(async () => {
  t = createTestEngine();
  repoId = (await indexFolder(t, dateFns())).id;
  await t.engine.vectors.idle();
});
after(async () => { await t?.close(); });

async function top5(query: string): Promise<string[]> {
  const r = await t.engine.search.search(t.ownerId, { query, scope: 'files', limit: 5, repoIds: [repoId] });
  assert.deepEqual(r.warnings, [], 'the vectors are ready: the search is hybrid');
  return r.results.map((h) => h.filePath!);
}

test('a question about a function finds the function, not each locale\'s words for it; asked for, the translations come first', async () => {
  const distance = await top5('distance to now with a suffix');
  assert.deepEqual(distance.filter((p) => p.startsWith('locale/')), [], distance.join(', '));
  assert.equal(distance[0], 'formatDistanceToNow.js');
  const relative = await top5('relative date like last friday at noon');
  assert.ok(relative.includes('formatRelative.js'), relative.join(', '));
  const asked = await top5('french translation of relative dates');
  assert.match(asked[0], /^locale\//);
});
