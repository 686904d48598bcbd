import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/engine';
import { ripgrepReadable } from '../../server/engine/search/grep-binary';
import { compileMatcher } from '../../server/engine/search/grep-scan';
import { parseGrepQuery } from '../../server/engine/search/query';
import { ripgrepLines } from './ripgrep';

/**
 * Where ripgrep stops in a file with a NUL byte depends on its read buffer (grep-binary.ts). Each case
 * is one file alone in a folder, searched by Debian's rg walking that folder, and by the emulation.
 */

/** The line numbers rg prints for a folder holding only this file. */
function ripgrepNumbers(bytes: Buffer, args: string[]): number[] {
  const dir = tempDir('loupe-rg-binary-');
  fs.writeFileSync(path.join(dir, 'file.txt'), bytes);
  return ripgrepLines(dir, args).map((l) => Number(l.split(':')[1]));
}

/** Deterministic pseudo-random line widths, so buffer boundaries fall at odd places. */
function lines(count: number, width: (i: number) => number, every = 3, first = ''): Buffer {
  const parts = [first];
  for (let i = 0; i < count; i++) parts.push(`${i % every === 0 ? 'needle' : 'line'}${i} `.padEnd(Math.max(12, width(i)) - 1, '.') + '\n');
  return Buffer.from(parts.join(''));
}
const withNuls = (bytes: Buffer, at: number[]) => { const b = Buffer.from(bytes); for (const i of at) b[i] = 0; return b; };
const wobble = (i: number) => 40 + ((i * 7919) % 173);

function loupeLines(bytes: Buffer, query: string): number[] {
  const q = parseGrepQuery(query);
  const multiline = q.matcher.kind === 'regex' && q.matcher.multiline;
  const { bytes: readable, binary } = ripgrepReadable(bytes, multiline);
  return compileMatcher(q.matcher).scan(readable.toString('utf8'), 1e9, binary).map((l) => l.line);
}

const CASES: [string, Buffer][] = [
  ['NUL in the first fill', withNuls(lines(400, () => 100), [9000])],
  ['NUL on the last byte of the first fill', withNuls(lines(2000, () => 100), [65_535])],
  ['NUL on the first byte after it', withNuls(lines(2000, () => 100), [65_536])],
  ['NUL in the second fill', withNuls(lines(3000, () => 100), [100_000])],
  ['NUL on a fill boundary, odd widths', withNuls(lines(3000, wobble), [131_072])],
  ['NUL far in, odd widths', withNuls(lines(5000, wobble), [400_000, 400_100])],
  ['a first line longer than the buffer', withNuls(lines(3000, () => 100, 3, `needle-long ${'x'.repeat(70_000)}\n`), [230_000])],
  ['a long line further in', withNuls(lines(3000, (i) => (i === 900 ? 150_000 : 90)), [300_000])],
  ['no NUL', lines(3000, wobble)],
];

test('line mode: the lines ripgrep prints before a NUL byte stops it', () => {
  for (const [name, bytes] of CASES) {
    const expected = ripgrepNumbers(bytes, ['-F', 'needle']);
    assert.deepEqual(loupeLines(bytes, 'needle'), expected, name);
  }
  // The cases are real: some print part of the file, some nothing.
  assert.equal(ripgrepNumbers(CASES[0][1], ['-F', 'needle']).length, 0);
  assert.ok(ripgrepNumbers(CASES[3][1], ['-F', 'needle']).length > 100);
});

test('multi-line mode: nothing for a NUL in the first 64 KiB, else matches up to one that holds a NUL', () => {
  const query = '/needle\\d+ \\.*\\n\\w+/m';
  const args = parseGrepQuery(query).rgArgs;
  // Line 1002 (index 1001, not a needle line nor the one after): no match covers it.
  const outside = withNuls(lines(3000, () => 100), [1001 * 100 + 50]);
  for (const [name, bytes] of [
    ...CASES,
    // A NUL in a line no match covers (each match is a needle line and the next one).
    ['NUL outside every match', outside] as [string, Buffer],
  ]) {
    assert.deepEqual(loupeLines(bytes, query), ripgrepNumbers(bytes, args), name);
  }
  assert.ok(ripgrepNumbers(outside, args).some((l) => l > 1100), 'ripgrep goes on past a NUL no match covers');
});
