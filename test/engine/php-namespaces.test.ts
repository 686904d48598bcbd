import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { debianPackage } from '../helpers/real-code';

// league/commonmark as Debian ships it: usr/share/php/League/CommonMark, with a generated autoload.php and no composer.json.
const SHIPPED = debianPackage('php-league-commonmark', '2.3.9-1+deb12u1');
const OWN = 'usr/share/php/League/CommonMark';

interface Edge { from: string; kind: string; specifier: string; to: string | null; packageName: string | null }

async function edgesOf(root: string): Promise<Edge[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.php')) files.push(rel);
    }
  };
  walk('');
  const edges: Edge[] = [];
  for (const from of files.sort()) {
    const { imports } = await analyzeWithTreeSitter('php', from, fs.readFileSync(path.join(root, from), 'utf8'), root);
    for (const i of imports) edges.push({ from, kind: i.kind, specifier: i.specifier, to: i.targetPath, packageName: i.packageName });
  }
  return edges;
}

const dependents = (edges: Edge[], target: string) => [...new Set(edges.filter((e) => e.to === target).map((e) => e.from))].sort();

test('PHP: names through `use X as Alias` and relative to the namespace (league/commonmark as Debian ships it, no composer.json)', async () => {
  const edges = await edgesOf(SHIPPED);
  // `use League\CommonMark\Parser as CoreParser; … new CoreParser\Inline\NewlineParser()` and
  // `use League\CommonMark as Core; … new Core\Parser\Inline\NewlineParser()`.
  assert.deepEqual(dependents(edges, `${OWN}/Parser/Inline/NewlineParser.php`), [
    `${OWN}/Extension/CommonMark/CommonMarkCoreExtension.php`,
    `${OWN}/Extension/InlinesOnly/InlinesOnlyExtension.php`,
  ]);
  // `new Parser\Block\BlockQuoteStartParser()` in namespace League\CommonMark\Extension\CommonMark: `Parser` is not the
  // alias CoreParser, so the name is relative to the file's namespace.
  assert.ok(edges.some((e) => e.from === `${OWN}/Extension/CommonMark/CommonMarkCoreExtension.php`
    && e.to === `${OWN}/Extension/CommonMark/Parser/Block/BlockQuoteStartParser.php`));
  // The namespace ↔ folder mapping comes from the files' own `namespace` lines: a plain `use` resolves too.
  assert.ok(edges.some((e) => e.from === `${OWN}/Parser/Inline/NewlineParser.php` && e.kind === 'use' && e.to === `${OWN}/Node/Inline/Newline.php`));
  // The project's own namespaces (`use League\CommonMark as Core`) are not dependencies; league/config is one.
  const packages = new Set(edges.map((e) => e.packageName).filter((p) => p !== null));
  assert.deepEqual([...packages].filter((p) => p.startsWith('League\\CommonMark')), []);
  assert.ok(packages.has('League\\Config'));
});

test('PHP: the same aliases through an upstream composer.json PSR-4 autoload', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-php-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.cpSync(path.join(SHIPPED, OWN), path.join(root, 'src'), { recursive: true });
  fs.rmSync(path.join(root, 'src/autoload.php'));
  fs.writeFileSync(path.join(root, 'composer.json'), JSON.stringify({ name: 'league/commonmark', autoload: { 'psr-4': { 'League\\CommonMark\\': 'src' } } }));
  const edges = await edgesOf(root);
  assert.deepEqual(dependents(edges, 'src/Parser/Inline/NewlineParser.php'), [
    'src/Extension/CommonMark/CommonMarkCoreExtension.php',
    'src/Extension/InlinesOnly/InlinesOnlyExtension.php',
  ]);
  assert.deepEqual([...new Set(edges.map((e) => e.packageName))].filter((p) => p?.startsWith('League\\CommonMark')), []);
});
