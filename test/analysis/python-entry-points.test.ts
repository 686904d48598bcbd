import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { languageOf } from '../../server/engine/indexer/languages';
import { blueprintOf, createTestApp } from '../helpers/engine';
import { debianPackage } from '../helpers/real-code';

/**
 * Python programs without a manifest that declares them: a package's `__main__.py` (`python -m pytest`), and scripts
 * in bin/ that start with `#!` or run under `if __name__ == "__main__":`, whatever their name (Debian's bin/py.test;
 * django/bin/django-admin.py: testing-libraries.test.ts).
 */

test('pytest as Debian installs it: bin/pytest, bin/py.test (a `#!` script whose name has a dot) and `python -m pytest` are entry points', async () => {
  assert.equal(languageOf('py.test', '#!/usr/bin/python3\nimport re\n'), 'python');
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pytest-')), 'usr');
  fs.cpSync(path.join(debianPackage('python3-pytest', '7.2.1-2'), 'usr'), root, { recursive: true, verbatimSymlinks: true });
  const t = await createTestApp();
  try {
    const doc: string = (await blueprintOf(t, root)).documentation;
    const entries = doc.slice(doc.indexOf('## Entry points'), doc.indexOf('## Central modules'));
    assert.match(entries, /- `bin\/pytest` \(python executable\)/);
    assert.match(entries, /- `bin\/py\.test` \(python script\)/);
    assert.match(entries, /- `lib\/python3\/dist-packages\/pytest\/__main__\.py` \(conventional entry name\)/);
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});
