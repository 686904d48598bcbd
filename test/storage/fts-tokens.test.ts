import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { ftsTokens, parseFtsMatch } from '../../server/engine/store/pg/fts-tokens';
import { FTS5_TOKEN_RANGES, isFts5TokenChar } from '../../server/engine/store/pg/fts-token-chars';
import { ftsExpression, queryTerms } from '../../server/engine/search/query';

/**
 * The PostgreSQL backend's terms are SQLite FTS5's (migration 001: unicode61 remove_diacritics 2), checked
 * against SQLite itself: the token-character table on every range edge and 6,000 random code points,
 * and whole texts (code, prose in several scripts, emoji, combining marks) token by token.
 */
function fts5(): { tokens(text: string): string[]; close(): void } {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);");
  let rowid = 0;
  return {
    tokens(text) {
      const id = ++rowid;
      db.prepare('INSERT INTO t(rowid, x) VALUES (?, ?)').run(id, text);
      return (db.prepare('SELECT term FROM v WHERE doc = ? ORDER BY offset').all(id) as { term: string }[]).map((r) => r.term);
    },
    close: () => db.close(),
  };
}

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('the token-character table is FTS5\'s: every range edge and 6,000 random code points', () => {
  const sqlite = fts5();
  try {
    const probe = new Set<number>();
    for (let i = 0; i < FTS5_TOKEN_RANGES.length; i++) for (const d of [-1, 0, 1]) probe.add(FTS5_TOKEN_RANGES[i]! + d);
    const next = random(7);
    for (let i = 0; i < 6_000; i++) probe.add(0x80 + Math.floor(next() * (0x110000 - 0x80)));
    let checked = 0;
    for (const cp of probe) {
      if (cp < 0x80 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) continue;
      const one = sqlite.tokens(`a${String.fromCodePoint(cp)}a`).length === 1;
      assert.equal(isFts5TokenChar(cp), one, `U+${cp.toString(16)}`);
      checked++;
    }
    assert.ok(checked > 7_000, `${checked} code points checked`);
  } finally {
    sqlite.close();
  }
});

test('texts are split into FTS5\'s tokens: the same count always, the same terms wherever a term is ASCII', () => {
  const sqlite = fts5();
  try {
    const alphabet = [
      ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ...'    __$$..()[]{}<>=+-*/\\\'"`;:,!?#@%&|~\n\t',
      ...'éèêëÉàçñøßÆœĳ', 'e\u0301', '\u0301', '\u0308', ...'αβγΩЖжщ中文字日本語한국어', 'ﬁ', 'Ｆｕｌｌ', '🧡', '💛', '👍🏽', '\u00a0', '\u2028', '١٢٣', '²', '½', 'Ⅻ',
    ];
    const next = random(11);
    const texts = [
      'def dispatch_request(self) -> ft.ResponseReturnValue:\n    """Does the request dispatching."""',
      'func (c *Context) ShouldBindJSON(obj any) error { return c.ShouldBindWith(obj, binding.JSON) } // 🧡💛💚💙💜',
      'Ça va? Crème brûlée, naïve café — Straße, ĲSSEL, ǅemal, İstanbul, ΣΊΣΥΦΟΣ',
    ];
    for (let i = 0; i < 400; i++) texts.push(Array.from({ length: 5 + Math.floor(next() * 60) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
    let nonAsciiSpellings = 0;
    for (const text of texts) {
      const [theirs, mine] = [sqlite.tokens(text), ftsTokens(text)];
      assert.equal(mine.length, theirs.length, `${JSON.stringify(text)}: ${JSON.stringify(mine)} vs ${JSON.stringify(theirs)}`);
      theirs.forEach((t, i) => {
        if (/^[\x00-\x7f]+$/.test(t) || /^[\x00-\x7f]+$/.test(mine[i]!)) assert.equal(mine[i], t, JSON.stringify(text));
        else if (mine[i] !== t) nonAsciiSpellings++;
      });
    }
    // Case folding of a few non-ASCII letters differs (JavaScript's Unicode against FTS5's tables); never a count.
    assert.ok(nonAsciiSpellings < texts.length / 10, `${nonAsciiSpellings} non-ASCII spellings differ`);
  } finally {
    sqlite.close();
  }
});

test('the full-text expressions the query parser builds are read back as phrases; anything else is refused', () => {
  const match = ftsExpression(queryTerms('parse_signed cookies'))!;
  assert.equal(match, '"parse_signed" OR "parse" OR "signed" OR "cookies" OR "parse_sign"* OR "pars"* OR "sign"* OR "cook"*');
  assert.deepEqual(parseFtsMatch(match), [
    { tokens: ['parse', 'signed'], prefix: false }, { tokens: ['parse'], prefix: false }, { tokens: ['signed'], prefix: false },
    { tokens: ['cookies'], prefix: false }, { tokens: ['parse', 'sign'], prefix: true }, { tokens: ['pars'], prefix: true },
    { tokens: ['sign'], prefix: true }, { tokens: ['cook'], prefix: true },
  ], 'snake case is a phrase of two words, as unicode61 splits it');
  assert.deepEqual(parseFtsMatch('"a""b" OR "c"*'), [{ tokens: ['a', 'b'], prefix: false }, { tokens: ['c'], prefix: true }]);
  assert.throws(() => parseFtsMatch('a NEAR b'), /not a full-text expression/);
});
