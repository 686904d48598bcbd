import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { parseGrepQuery } from '../../server/engine/search/query';
import type { GrepIndexUse } from '../../server/engine/search/grep-plan';
import { ripgrepLines } from './ripgrep';

/**
 * grep_code on a repository large enough (2,400 files) for the planner to sample it: a query whose
 * literals are in most files scans every file from the top and stops at the line cap, a rare one uses
 * the trigram index. Either way, and with the index forced on or off, the lines are rg's, and a capped
 * answer is rg's first lines in path order.
 */

let folder: string;
const engines = new Map<GrepIndexUse, TestEngine>();

before(async () => {
  folder = path.join(tempDir('loupe-grep-plans-'), 'repo');
  for (let d = 0; d < 40; d++) {
    const dir = path.join(folder, `pkg${String(d).padStart(2, '0')}`, d % 3 ? 'src' : 'lib');
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 60; f++) {
      const n = d * 60 + f;
      const lines = [
        `/** Part ${n}. @since 3.${n % 7}.0 */`,
        ...Array.from({ length: 1 + (n % 5) }, (_, i) => `  value${i} = compute(${n}, ${i}); // @since 3.${(n + i) % 9}.${i % 2}`),
        n % 97 === 0 ? '  rareNeedleCall(this.widget);' : '  this.widget = null;',
        n % 2 ? 'export function makeMatrix() { return Math.sin(1); }\r' : 'export const angle = Math.cos(0);',
      ];
      fs.writeFileSync(path.join(dir, `f${String(f).padStart(2, '0')}.txt`), `${n % 11 === 0 ? '\ufeff' : ''}${lines.join('\n')}\n`);
    }
  }
  // Anchors next to surrogate pairs, CR LF, U+2028: where JavaScript and ripgrep disagree unless translated with care.
  const unicode = ['party 🎉', '', '🎉', '  ', 'export 🎉 x', 'sep\u2028arated x', '🎉🎉 export'];
  fs.mkdirSync(path.join(folder, 'unicode'));
  fs.writeFileSync(path.join(folder, 'unicode', 'crlf.txt'), `${unicode.join('\r\n')}\r\n`);
  fs.writeFileSync(path.join(folder, 'unicode', 'lf.txt'), `${unicode.join('\n')}\n`);
  for (const index of ['auto', 'never', 'always'] as const) {
    const t = createTestEngine({ search: { grepIndex: index, grepBudgetMs: 20000 } });
    await indexFolder(t, folder);
    engines.set(index, t);
  }
});
after(async () => { for (const t of engines.values()) await t.close(); });

/** rg's matching lines in path order, then line order. */
async function loupe(index: GrepIndexUse, query: string, maxMatches?: number) {
  const t = engines.get(index)!;
  const r = await t.engine.search.search(t.ownerId, { query, scanMode: 'grep_code', scope: 'code', limit: 100000, maxMatches });
  return { lines: r.results.map((h) => `${h.filePath}:${h.startLine}:${h.snippet!.text}`), candidates: r.candidates!.files };
}

const QUERIES = [
  '/@since 3\\.[0-9]+\\.0/', '/Math\\.(sin|cos)\\(/', '/this\\.\\w+ = null;$/', '/function\\s+\\w+Matrix/', 'rareNeedleCall',
  '/rare(Needle|Thing)Call\\(/', '/(?i)RARENEEDLE/', '/value[0-3] = compute/', '/Part \\d+\\./', '@since 3.1', '/[Mm]ath\\.sin/',
  '/^\\s*$/', '/\\A\\s*\\z/', '/\\Aexport/', '/🎉$/', '/x\\z/', '/^🎉/', '/\\b🎉/', '/(🎉|d).\\z/', '/^.$/', '/export\\s*$/m', '/\\A🎉/m',
];

test('every plan returns rg\'s lines', async () => {
  for (const q of QUERIES) {
    const expected = ripgrepLines(folder, parseGrepQuery(q).rgArgs);
    for (const index of engines.keys()) {
      assert.deepEqual((await loupe(index, q)).lines.sort(), [...expected].sort(), `${q} with the index ${index}`);
    }
  }
});

test('a capped answer is rg\'s first lines in path order, whatever the plan', async () => {
  for (const q of ['/@since 3\\.[0-9]+\\.0/', '/this\\.\\w+ = null;$/', '/Part \\d+\\./', '@since 3.1', '/Math\\.(sin|cos)\\(/']) {
    const expected = ripgrepLines(folder, parseGrepQuery(q).rgArgs);
    for (const cap of [1, 37, 500, 2999]) {
      for (const index of engines.keys()) {
        const { lines } = await loupe(index, q, cap);
        assert.deepEqual(lines, expected.slice(0, cap), `${q} capped at ${cap} with the index ${index}`);
      }
    }
  }
});

test('the planner scans from the top when the literals are everywhere, and uses the index when they are rare', async () => {
  const files = (await loupe('never', '/x*/')).candidates;
  assert.ok(files >= 2400);
  assert.equal((await loupe('auto', '/@since 3\\.[0-9]+\\.0/', 100)).candidates, files, 'every file, from the top');
  const rare = await loupe('auto', 'rareNeedleCall');
  assert.ok(rare.candidates < 100, `the index proposed ${rare.candidates} files`);
  assert.equal(rare.lines.length, 25);
  assert.ok((await loupe('auto', '/Math\\.(sin|cos)\\(/')).candidates === files, 'Math. is in every file');
  assert.ok((await loupe('always', '/rare(Needle|Thing)Call\\(/')).candidates < 100, 'an alternation is two lookups, not a scan');
});
