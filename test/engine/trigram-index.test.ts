import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { codeChunks, npmPackage } from '../helpers/real-code';
import { TrigramIndex } from '../../server/engine/store/trigram-index';
import { closeDatabase } from '../../server/engine/store/db';
import { openIndexIn, tempDir } from '../helpers/engine';

/** Each chunk's trigrams as a reader would list them: three characters of 32–126 in a row, A–Z as a–z. */
function trigramsOf(text: string): Set<number> {
  const out = new Set<number>();
  const folded = [...text].map((ch) => {
    const c = ch.length === 1 ? ch.charCodeAt(0) : -1;
    return c < 32 || c > 126 ? -1 : c >= 65 && c <= 90 ? c + 32 : c;
  });
  for (let i = 2; i < folded.length; i++) {
    const [a, b, c] = [folded[i - 2], folded[i - 1], folded[i]];
    if (a >= 0 && b >= 0 && c >= 0) out.add(a * 16384 + b * 128 + c);
  }
  return out;
}

test('the trigram index lists, for every trigram of real code, exactly the chunks that hold it, over many segments and after a merge', () => {
  // Chunks of code nobody here wrote (hono's published modules, by 25 lines), one minified-like line (1.3 M characters) longer than the fill's first list (1 M trigrams),
  // and text that is not ASCII: what the writer's fills meet.
  const texts = codeChunks(path.join(npmPackage('hono@4.13.19'), 'dist'));
  texts.push(Array.from({ length: 100_000 }, (_, i) => `v${i.toString(36)}=Q${(i * 7919).toString(36)};`).join(''));
  texts.push('héllo Wörld — ÆØÅ 日本語 ABC abc 🙂 tail');
  // The index's own schema (every migration), the chunks under one file of one repository.
  const db = openIndexIn(tempDir('loupe-trigram-index-'));
  try {
    db.prepare("INSERT INTO repos (id, url, name, root_path, source, created_at) VALUES ('r', 'local:/hono', 'hono', '/hono', 'local', '')").run();
    const fileId = db.prepare("INSERT INTO files (uid, repo_id, path, name, size, lines, hash, mtime_ms, indexed_at) VALUES ('f', 'r', 'dist', 'dist', 0, 0, '', 0, '')").run().lastInsertRowid;
    const insert = db.prepare('INSERT INTO chunks (id, file_id, seq, start_line, end_line, content) VALUES (?, ?, ?, 1, 1, ?)');
    db.transaction(() => texts.forEach((text, i) => insert.run(i + 1, fileId, i, text)))();

    const expected = new Map<number, number[]>();
    texts.forEach((text, i) => { for (const tri of trigramsOf(text)) { const ids = expected.get(tri) ?? []; ids.push(i + 1); expected.set(tri, ids); } });
    assert.ok(texts.length > 500 && expected.size > 10_000, `real code: ${texts.length} chunks, ${expected.size} trigrams`);

    const index = new TrigramIndex(db);
    const segment = 61;
    for (let from = 1; from <= texts.length; from += segment) db.transaction(() => index.addSegment(from, Math.min(from + segment, texts.length + 1)))();
    const check = (when: string) => {
      const tris = db.prepare('SELECT DISTINCT tri FROM chunk_trigrams').pluck().all() as number[];
      assert.equal(tris.length, expected.size, `${when}: a row for each trigram held, and no other`);
      for (const [tri, ids] of expected) assert.deepEqual(index.chunksWith(tri), ids, `${when}: the chunks of ${String.fromCharCode(tri >> 14, (tri >> 7) & 127, tri & 127)}`);
    };
    check('segments');
    assert.ok(index.shouldMerge(), 'past 16 segments');
    db.transaction(() => index.merge())();
    check('merged');
  } finally {
    closeDatabase(db);
  }
});
