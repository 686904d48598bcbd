import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseGrepQuery } from '../../server/engine/search/query';
import { compileMatcher } from '../../server/engine/search/grep-scan';

/**
 * The literal planner (regex-plan.ts) decides which files are never read: a literal it requires that a
 * match does not contain would silently drop that match. So besides a few exact plans, a property
 * test builds random patterns and texts from one small alphabet and checks, for every text the regex
 * matches, that the text holds every literal of some list, and one of the scanner's needles.
 */

const literals = (q: string) => parseGrepQuery(q).literals;
const needles = (q: string) => { const m = parseGrepQuery(q).matcher; return m.kind === 'regex' ? m.needles : undefined; };

test('plans: alternations become OR, small classes expand, repetitions keep their ends', () => {
  assert.deepEqual(literals('/Math\\.(sin|cos)\\(/'), [['Math.sin('], ['Math.cos(']]);
  assert.deepEqual(literals('/this\\.\\w+ = null;$/'), [[' = null;', 'this.']]);
  assert.deepEqual(literals('/function\\s+\\w+Matrix/'), [['function', 'Matrix']]);
  assert.deepEqual(literals('/colou?r/'), [['colour'], ['color']]);
  assert.deepEqual(literals('/[Tt]exture/')?.sort(), [['Texture'], ['texture']]);
  assert.deepEqual(literals('/@since 3\\.[0-9]+\\.0/'), Array.from({ length: 10 }, (_, d) => [`@since 3.${d}`]));
  assert.deepEqual(literals('/(foo|bar)\\w*baz/'), [['baz', 'foo'], ['baz', 'bar']]);
  assert.deepEqual(literals('/get(Width|Height)\\(\\)/'), [['getWidth()'], ['getHeight()']]);
  // Too many alternatives: cut to what they share.
  assert.deepEqual(literals('/(a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r)_suffix/'), [['suffix']]);
  // Nothing to require.
  for (const q of ['/ab|cd/', '/x*/', '/[A-Z_]{3,}/', '/\\w+/', '/a.b.c/', '/(abc)?/']) assert.equal(literals(q), null, q);
});

test('plans: case, Unicode and the index wildcards', () => {
  // Ignoring case, literals are lower-cased and k/s (which also match K and ſ) are no literal characters.
  assert.deepEqual(literals('/(?i)Kelvin/'), [['elvin']]);
  assert.deepEqual(literals('/deprecated/i'), [['deprecated']]);
  assert.deepEqual(literals('/(?i)straße/'), [['tra']]);
  // Non-ASCII characters end a literal (the index folds case for ASCII only).
  assert.deepEqual(literals('café au lait'), [[' au lait', 'caf']]);
  assert.deepEqual(literals('/λόγος_value/'), [['value']]);
  // LIKE's wildcards split a literal.
  assert.deepEqual(literals('/a%b_cde/'), [['cde']]);
  // Multi-line matches may hold \n: literals stop there.
  assert.deepEqual(literals('/return\\s+\\w+;\\s*\\}/m'), [['return']]);
});

test('needles: merged into few, cut to the part indexOf finds fastest', () => {
  assert.deepEqual(needles('/@since 3\\.[0-9]+\\.0/'), ['@since']);
  assert.deepEqual(needles('/Math\\.(sin|cos)\\(/'), ['Math.']);
  assert.deepEqual(needles('/this\\.\\w+ = null;$/'), ['= null']);
  assert.deepEqual(needles('/abc|xyz/'), ['abc', 'xyz']);
  // Case-insensitive and multi-line regexes scan without needles.
  assert.equal(needles('/deprecated/i'), undefined);
  assert.equal(needles('/return\\s+\\w+;/m'), undefined);
});

// Random patterns in Rust syntax over a small alphabet, and texts over the same alphabet.
const ALPHABET = ['a', 'b', 'c', 'k', 'K', 'S', 's', 'x', '.', ' ', '%', '_', 'é', '\n'];
const atom: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'k', 'K', 's', 'x', ' ', '%', '_', 'é', '\\.', '.', '\\w', '\\s', '\\d', '[abc]', '[a-c]', '[^a]', '[ks]', '^', '$', '\\b'),
);
const pattern: fc.Arbitrary<string> = fc.letrec<{ seq: string; alt: string; piece: string }>((tie) => ({
  piece: fc.oneof(
    { weight: 4, arbitrary: atom },
    { weight: 1, arbitrary: fc.tuple(tie('alt'), fc.constantFrom('', '?', '*', '+', '{2}', '{1,3}', '{0,2}')).map(([a, q]) => `(${a})${q}`) },
    { weight: 1, arbitrary: fc.tuple(atom.filter((a) => !['^', '$', '\\b'].includes(a)), fc.constantFrom('?', '*', '+', '{2}')).map(([a, q]) => `${a}${q}`) },
  ),
  seq: fc.array(tie('piece'), { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
  alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((s) => s.join('|')),
})).alt;
// Short texts: random patterns can nest quantifiers, and a backtracking engine is exponential in the run they fail on.
const text = fc.array(fc.constantFrom(...ALPHABET, 'abc', 'a.b', 'xx', 'ks'), { maxLength: 10 }).map((p) => p.join(''));

test('property: every text a regex matches holds the literals of some list, and a needle', () => {
  fc.assert(fc.property(pattern, fc.constantFrom('', 'i', 'm', 's'), fc.array(text, { minLength: 1, maxLength: 12 }), (p, flags, texts) => {
    let q;
    try { q = parseGrepQuery(`/${p}/${flags}`); } catch { return; } // a pattern Rust would refuse
    if (q.matcher.kind !== 'regex') return;
    const re = new RegExp(q.matcher.exact, q.matcher.flags.replace('g', ''));
    const lines = flags === 'm' ? texts : texts.flatMap((t) => t.split('\n'));
    for (const line of lines) {
      if (!re.test(line)) continue;
      if (q.literals) {
        const haystack = flags === 'i' ? line.toLowerCase() : line;
        assert.ok(q.literals.some((term) => term.every((l) => haystack.includes(l))), `/${p}/${flags} matches ${JSON.stringify(line)} but ${JSON.stringify(q.literals)}`);
      }
      if (q.matcher.needles?.length) {
        assert.ok(q.matcher.needles.some((n) => line.includes(n)), `/${p}/${flags} matches ${JSON.stringify(line)} without a needle of ${JSON.stringify(q.matcher.needles)}`);
      }
    }
  }), { numRuns: 800 });
});

test('property: scanning bytes for needles finds what scanning the decoded text finds', () => {
  // BOMs, CR LF, invalid UTF-8 and lines with several needles, for literal and regex matchers.
  const chunk = fc.oneof(
    fc.constantFrom('abc', 'xabcx', 'a.b', '\n', '\r\n', ' ', 'é', 'λ', '🎉', 'abc abc', 'ab'),
    fc.uint8Array({ minLength: 1, maxLength: 3 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  const bytes = fc.tuple(fc.boolean(), fc.array(chunk, { maxLength: 40 }), fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 }))
    .map(([bom, parts, raw]) => Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...parts.map((p) => Buffer.from(p)), Buffer.from(raw)]));
  const queries = ['abc', 'a.b', 'ab', '/abc/', '/a\\.b$/', '/^abc/', '/x?abc\\s/', '/(abc|a\\.b)x/', '/abc\\b/', '/abc.a/'];
  fc.assert(fc.property(bytes, fc.constantFrom(...queries), fc.integer({ min: 1, max: 5 }), (buf, query, max) => {
    const m = compileMatcher(parseGrepQuery(query).matcher);
    assert.ok(m.scanBytes, `${query} scans bytes`);
    assert.deepEqual(m.scanBytes!(buf, max), m.scan(buf.toString('utf8'), max), query);
  }), { numRuns: 2000 });
});
