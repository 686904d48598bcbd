import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { identifierWords, splitIdentifier } from '../../server/engine/util/words';
import { walk } from '../../server/engine/indexer/walk';
import { npmPackage } from '../helpers/real-code';

/** What identifierWords answered before it read runs: the pattern over the whole text (the oracle). */
const IDENTIFIER = /[A-Za-z][A-Za-z0-9]*(?:[A-Z][a-z0-9]+)+|[a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z][A-Za-z0-9]*/g;
function byPattern(text: string): string {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    const parts = splitIdentifier(match[0]);
    if (parts.length > 1) out.push(parts.join(' '));
  }
  return out.join(' ');
}

test('identifierWords answers what the pattern over the whole text answers, on every file of two packages nobody here wrote', () => {
  // phaser's sources (class names, SCREAMING constants, digits in names) and hono's built modules; each file whole
  // and in 40-line pieces, so the same runs come again and are answered from the memo.
  let files = 0;
  let words = 0;
  for (const root of [path.join(npmPackage('phaser@3.90.0'), 'src'), path.join(npmPackage('hono@4.13.19'), 'dist')]) {
    for (const e of walk(root).filter((f) => /\.(js|ts)$/.test(f.relPath))) {
      const text = fs.readFileSync(path.join(root, e.relPath), 'utf8');
      const lines = text.split('\n');
      for (const piece of [text, ...Array.from({ length: Math.ceil(lines.length / 40) }, (_, i) => lines.slice(i * 40, i * 40 + 40).join('\n'))]) {
        const expected = byPattern(piece);
        assert.equal(identifierWords(piece), expected, `${e.relPath}: ${piece.slice(0, 80)}`);
        words += expected.length;
      }
      files++;
    }
  }
  assert.ok(files > 1000, `${files} files`);
  assert.ok(words > 1_000_000, `${words} characters of words`);
});

test('identifierWords at the edges: runs at both ends, digits, underscores and non-ASCII letters between, no capital', () => {
  const cases = [
    'parseSignedCookie', 'MAX_RETRY_COUNT', 'HTMLElement x', 'x getXMLHttpRequest2', 'a1B2c3', 'v8Flags', 'ABc',
    'naïveParserName', 'fooBar_bazQux', 'ÉtéGood', '', 'plain words only', 'AB', 'A', 'x.y.zIndex(', 'aB'.repeat(5000),
    `${'a'.repeat(20_000)}Z`, 'IOError OSError', '$jqueryPlugin #privateField @Decorator', 'mixed123Digits456 ABC123def',
  ];
  for (const text of cases) assert.equal(identifierWords(text), byPattern(text), JSON.stringify(text.slice(0, 60)));
  assert.equal(identifierWords('parseSignedCookie MAX_RETRY_COUNT plain'), 'parse signed cookie');
  // More distinct runs than the memo holds: it starts over and answers the same.
  const many = Array.from({ length: 70_000 }, (_, i) => `get${i}Value`).join(' ');
  assert.equal(identifierWords(many), byPattern(many));
});
