import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';

/**
 * The grep workers resolve each folder once per search and open files without following symlinks.
 * After indexing, folders and files that turn into symlinks out of the repository are not read
 * (a fetched commit can do that), while symlinks that stay inside are.
 */

const engines: TestEngine[] = [];
after(async () => { for (const t of engines) await t.close(); });

test('folders and files that become symlinks out of the repository are never read by grep_code', async () => {
  const base = tempDir('loupe-grep-links-');
  const repo = path.join(base, 'repo');
  const outside = path.join(base, 'outside');
  const write = (file: string, text: string) => { fs.mkdirSync(path.dirname(file), { recursive: true }); fs.writeFileSync(file, text); };
  write(path.join(repo, 'src', 'a', 'x.txt'), 'needle in a\n');
  write(path.join(repo, 'src', 'b', 'deep', 'y.txt'), 'needle in b\n');
  write(path.join(repo, 'src', 'c', 'z.txt'), 'needle in c\n');
  write(path.join(repo, 'src', 'd', 'w.txt'), 'needle in d\n');
  write(path.join(repo, 'kept', 'v.txt'), 'needle kept\n');
  for (const f of ['a/x.txt', 'b/deep/y.txt', 'c/z.txt', 'd/w.txt']) write(path.join(outside, f), 'needle SECRET outside\n');

  for (const grepIndex of ['always', 'never'] as const) {
    const t = createTestEngine({ search: { grepIndex } });
    engines.push(t);
    const copy = path.join(base, `repo-${grepIndex}`);
    fs.cpSync(repo, copy, { recursive: true });
    await indexFolder(t, copy);
    const grep = async () => (await t.engine.search.search(t.ownerId, { query: 'needle', scanMode: 'grep_code', scope: 'code', limit: 100 }))
      .results.map((h) => `${h.filePath}:${h.snippet!.text}`).sort();
    assert.deepEqual(await grep(), ['kept/v.txt:needle kept', 'src/a/x.txt:needle in a', 'src/b/deep/y.txt:needle in b', 'src/c/z.txt:needle in c', 'src/d/w.txt:needle in d']);

    // A folder becomes a symlink out; so does a folder's parent; a file becomes one; another folder
    // becomes a symlink to a folder inside the repository.
    fs.rmSync(path.join(copy, 'src', 'a'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'a'), path.join(copy, 'src', 'a'));
    fs.rmSync(path.join(copy, 'src', 'b'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'b'), path.join(copy, 'src', 'b'));
    fs.rmSync(path.join(copy, 'src', 'c', 'z.txt'));
    fs.symlinkSync(path.join(outside, 'c', 'z.txt'), path.join(copy, 'src', 'c', 'z.txt'));
    fs.rmSync(path.join(copy, 'src', 'd'), { recursive: true });
    fs.mkdirSync(path.join(copy, 'inner'));
    fs.writeFileSync(path.join(copy, 'inner', 'w.txt'), 'needle through an inside link\n');
    fs.symlinkSync(path.join(copy, 'inner'), path.join(copy, 'src', 'd'));

    const after = await grep();
    assert.ok(!after.some((l) => l.includes('SECRET')), `${grepIndex}: ${after.join(' | ')}`);
    assert.deepEqual(after, ['kept/v.txt:needle kept', 'src/d/w.txt:needle through an inside link'], grepIndex);
  }
});
