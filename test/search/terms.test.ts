import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { STOP_WORDS, stem, textTerms } from '../../server/engine/embed/terms';
import { npmPackage } from '../helpers/real-code';

/** textTerms as its documentation defines it, one regular expression match at a time (the code before the token memo). */
function reference(text: string): string[] {
  const noise = new Set('this return const var let function if else for while new true false null undefined typeof instanceof break continue case switch default export import from require module exports prototype private public protected static void string number boolean object any type since method memberof param returns type'.split(' '));
  const out: string[] = [];
  for (const match of text.matchAll(/[A-Za-z][A-Za-z0-9]*/g)) {
    for (const raw of match[0].match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [match[0]]) {
      const p = raw.toLowerCase();
      if (p.length < 2 || p.length > 30 || STOP_WORDS.has(p) || noise.has(p)) continue;
      out.push(stem(p));
    }
  }
  return out;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(js|ts|md)$/.test(entry.name)) out.push(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
  }
  return out;
}

test('textTerms splits, drops and stems every token of real code as its definition does, before and after its memo starts over', () => {
  const files = sources(npmPackage('hono@4.13.19'));
  assert.ok(files.length > 300, `only ${files.length} files`);
  let terms = 0;
  for (const text of files) {
    const got = textTerms(text);
    assert.deepEqual(got, reference(text));
    terms += got.length;
  }
  assert.ok(terms > 100_000, `only ${terms} terms`);
  // More distinct tokens than the memo keeps (65,536): it starts over, and answers the same.
  const many = Array.from({ length: 70_000 }, (_, i) => `tokenNumber${i.toString(36)}Running`).join(' ');
  assert.deepEqual(textTerms(many), reference(many));
  for (const text of files.slice(0, 50)) assert.deepEqual(textTerms(text), reference(text));
  // Edges: digits, underscores, non-ASCII letters and a token at the very end.
  const edges = 'café_naïveHTTPServer2xx __proto__ x1y2 ÄÖÜ parseSignedCookie\n\tgetRotation';
  assert.deepEqual(textTerms(edges), reference(edges));
  assert.deepEqual(textTerms('parseSignedCookie'), ['pars', 'sign', 'cooki']);
});
