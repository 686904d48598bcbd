import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { TRUST_MARGIN_MS, walk, walkWithCatalog, catalogBytes, catalogFrom, type WalkCatalog, type WalkEntry } from '../../server/engine/indexer/walk';
import { WalkCatalogStore } from '../../server/engine/store/walk-catalog-store';
import { copyOf, npmPackage } from '../helpers/real-code';
import { openIndexIn, tempDir } from '../helpers/engine';

const sorted = (entries: WalkEntry[]) => entries.map((e) => `${e.relPath} ${e.size} ${e.mtimeMs}`).sort();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Folders listed by the real readdirSync during fn (the walk's only way to list one). */
function countingReaddir<T>(fn: () => T): { value: T; listed: string[] } {
  const listed: string[] = [];
  const original = fs.readdirSync;
  (fs as { readdirSync: unknown }).readdirSync = (p: fs.PathLike, ...rest: unknown[]) => {
    listed.push(String(p));
    return (original as (...a: unknown[]) => unknown)(p, ...rest);
  };
  try {
    return { value: fn(), listed };
  } finally {
    (fs as { readdirSync: unknown }).readdirSync = original;
  }
}

/** Walks with the catalog, checks it lists what a full walk lists, and keeps the catalog (through the bytes the store keeps). */
function walkAgain(root: string, previous: WalkCatalog | null) {
  const { value, listed } = countingReaddir(() => walkWithCatalog(root, {}, previous));
  assert.deepEqual(sorted(value.entries), sorted(walk(root)), 'the catalog walk and a full walk differ');
  assert.equal(listed.length, value.listed);
  return { ...value, listedDirs: listed.map((d) => path.relative(fs.realpathSync(root), d).split(path.sep).join('/')), catalog: catalogFrom(catalogBytes(value.catalog)) };
}

test('a walk with the catalog lists only folders whose entries changed, and finds what a full walk finds', async (t) => {
  // hono's published files (real, ~100 folders) with an ignore file of our own.
  const root = copyOf(path.join(npmPackage('hono@4.13.19'), 'dist'), 'loupe-walk-catalog-');
  fs.writeFileSync(path.join(root, 'cjs', '.gitignore'), '*.secret.js\n');
  fs.writeFileSync(path.join(root, 'cjs', 'helper', 'hidden.secret.js'), 'export const x = 1;\n');
  const dirs = walkWithCatalog(root, {}, null);
  const folderCount = dirs.listed;
  assert.ok(folderCount > 30, `hono's dist has ${folderCount} folders`);
  // Folders changed within the margin before their stat are listed again next time (the clock's tick).
  const recent = walkAgain(root, dirs.catalog);
  assert.equal(recent.listed, folderCount, 'folders written just now were trusted');
  await sleep(TRUST_MARGIN_MS + 200);
  let last = walkAgain(root, recent.catalog);

  await t.test('no change: no folder listed, every file stat\'ed', () => {
    const again = walkAgain(root, last.catalog);
    assert.equal(again.listed, 0);
    assert.equal(again.trusted, folderCount);
    assert.equal(again.changed, false);
    last = again;
  });

  await t.test('a file added in an old folder whose mtime is then set back is found', () => {
    const dir = path.join(root, 'cjs', 'utils');
    // touch(1) keeps nanoseconds: the folder's mtime is set back exactly as it was (its ctime still moves).
    const reference = path.join(tempDir('loupe-walk-ref-'), 'ref');
    fs.writeFileSync(reference, '');
    execFileSync('touch', ['-m', '-r', dir, reference]);
    const before = fs.statSync(dir, { bigint: true });
    fs.writeFileSync(path.join(dir, 'added-later.js'), 'exports.later = 1;\n');
    execFileSync('touch', ['-m', '-r', reference, dir]);
    assert.equal(fs.statSync(dir, { bigint: true }).mtimeNs, before.mtimeNs);
    const again = walkAgain(root, last.catalog);
    assert.ok(again.entries.some((e) => e.relPath === 'cjs/utils/added-later.js'));
    assert.deepEqual(again.listedDirs, ['cjs/utils']);
    last = again;
  });

  await t.test('a file changed with the same size is seen by its own stat, without listing its folder', () => {
    const file = path.join(root, 'cjs', 'hono.js');
    const text = fs.readFileSync(file, 'utf8');
    const old = last.entries.find((e) => e.relPath === 'cjs/hono.js')!;
    fs.writeFileSync(file, text.replace(/[a-z]/, (c) => (c === 'a' ? 'b' : 'a')));
    fs.utimesSync(file, new Date(), new Date(old.mtimeMs + 5000));
    const again = walkAgain(root, last.catalog);
    const now = again.entries.find((e) => e.relPath === 'cjs/hono.js')!;
    assert.equal(now.size, old.size);
    assert.notEqual(now.mtimeMs, old.mtimeMs);
    // The folder written in the last step is still within the margin; nothing else is listed.
    assert.deepEqual(again.listedDirs, ['cjs/utils']);
    last = again;
  });

  await t.test('a deleted folder and its files are gone', () => {
    const gone = last.entries.filter((e) => e.relPath.startsWith('cjs/adapter/'));
    assert.ok(gone.length > 3);
    fs.rmSync(path.join(root, 'cjs', 'adapter'), { recursive: true });
    const again = walkAgain(root, last.catalog);
    assert.equal(again.entries.filter((e) => e.relPath.startsWith('cjs/adapter/')).length, 0);
    assert.ok(again.listedDirs.includes('cjs'));
    assert.ok(!Object.keys(again.catalog!.dirs).some((d) => d.startsWith('cjs/adapter')));
    last = again;
  });

  await t.test('an ignore file edited in place (its folder\'s mtime unchanged) lists the folders below it again', () => {
    const ignoreFile = path.join(root, 'cjs', '.gitignore');
    assert.ok(!last.entries.some((e) => e.relPath === 'cjs/helper/hidden.secret.js'));
    const parentBefore = fs.statSync(path.join(root, 'cjs')).mtimeMs;
    fs.writeFileSync(ignoreFile, '*.other.js\n');
    assert.equal(fs.statSync(path.join(root, 'cjs')).mtimeMs, parentBefore);
    const again = walkAgain(root, last.catalog);
    assert.ok(again.entries.some((e) => e.relPath === 'cjs/helper/hidden.secret.js'));
    assert.ok(again.listedDirs.includes('cjs/helper'));
    assert.ok(!again.listedDirs.includes('client'), 'a folder outside the ignore file\'s reach was listed');
    last = again;
  });

  await t.test('a symlink whose target appears later is found, though its folder did not change', async () => {
    fs.symlinkSync('../late-target.js', path.join(root, 'client', 'late-link.js'));
    last = walkAgain(root, last.catalog);
    assert.ok(!last.entries.some((e) => e.relPath === 'client/late-link.js'), 'a broken link was listed');
    await sleep(TRUST_MARGIN_MS + 200);
    last = walkAgain(root, last.catalog); // client/ recorded as old enough to trust
    fs.writeFileSync(path.join(root, 'late-target.js'), 'export const late = 1;\n');
    const again = walkAgain(root, last.catalog);
    assert.ok(!again.listedDirs.includes('client'));
    assert.ok(again.entries.some((e) => e.relPath === 'client/late-link.js'), 'the link to the new file was not found');
  });
});

test('the catalog is kept per repository in the index (migration 020) and goes with its repository', () => {
  const db = openIndexIn(tempDir('loupe-walk-catalog-db-'));
  try {
    db.prepare("INSERT INTO repos (id, url, name, root_path, source, created_at) VALUES ('r1', 'u', 'n', '/x', 'local', '2026-11-27')").run();
    const store = new WalkCatalogStore(db);
    assert.equal(store.load('r1'), null);
    const bytes = catalogBytes({ key: 'k', dirs: { '': { i: 1, m: 1, c: 1, at: 5000, ig: '', files: ['a.ts'], links: [], dirs: [] } } });
    store.save('r1', bytes);
    store.save('r1', bytes);
    assert.deepEqual(catalogFrom(store.load('r1'))!.dirs[''].files, ['a.ts']);
    db.prepare("DELETE FROM repos WHERE id = 'r1'").run();
    assert.equal(store.load('r1'), null);
    assert.equal(catalogFrom(Buffer.from('not a catalog')), null);
  } finally {
    db.close();
  }
});
