import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { createTestApp } from '../helpers/engine';
import { debianPackage } from '../helpers/real-code';

/**
 * Django 3.2.25 (Debian 12's python3-django), its imports checked against Python's own import system
 * (importlib's PathFinder with the unpacked copy on sys.path).
 */
const DJANGO = ['python3-django', '3:3.2.25-0+deb12u7'] as const;
const sitePackages = () => path.join(debianPackage(...DJANGO), 'usr/lib/python3/dist-packages');

/** The imports Loupe reads from one file of the copy, `root` being the folder opened. */
async function importsOf(root: string, file: string) {
  return (await analyzeWithTreeSitter('python', file, fs.readFileSync(path.join(root, file), 'utf8'), root)).imports;
}

test('`import __main__` (django/utils/autoreload.py) is the running program: no file, no dependency', async () => {
  // Opened as the package folder itself, whose own __main__.py (`python -m django`) Python never imports by that name.
  const own = await importsOf(path.join(sitePackages(), 'django'), 'utils/autoreload.py');
  const main = own.filter((i) => i.specifier === '__main__');
  assert.equal(main.length, 1, JSON.stringify(own));
  assert.equal(main[0].targetPath, null, JSON.stringify(main));

  // The blueprint of a project that imports it lists no `__main__` package.
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-django-')), 'site');
  for (const f of ['django/__init__.py', 'django/__main__.py', 'django/utils/__init__.py', 'django/utils/autoreload.py']) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.copyFileSync(path.join(sitePackages(), f), path.join(root, f));
  }
  const t = await createTestApp();
  try {
    const res = await t.call('POST', '/v2/repos/index/new', { url: root });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.engine.queue.idle();
    const bp = await t.call('GET', `/v2/repos/${res.body.data.repo.repo_id}/blueprint`);
    assert.equal(bp.status, 200, JSON.stringify(bp.body));
    const names = bp.body.data.dependencies.map((d: { name: string }) => d.name);
    assert.ok(names.includes('pywatchman'), names.join(', '));
    assert.ok(!names.includes('__main__'), names.join(', '));
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});

test('a script in a folder without __init__.py (django/bin/django-admin.py) imports the package it sits in by name, as installed', async () => {
  // Opened as the package folder itself: the package is found in the folder above, for its scripts as for its modules.
  const root = path.join(sitePackages(), 'django');
  const targets = (await importsOf(root, 'bin/django-admin.py')).map((i) => `${i.specifier} -> ${i.targetPath}`);
  // What importlib's PathFinder finds with site-packages on sys.path (`from django.core import management`, and
  // `from django.utils.deprecation import RemovedInDjango40Warning`), each package on the way included.
  for (const edge of ['django -> __init__.py', 'django.core -> core/__init__.py', 'django.core.management -> core/management/__init__.py',
    'django.utils -> utils/__init__.py', 'django.utils.deprecation -> utils/deprecation.py']) {
    assert.ok(targets.includes(edge), `${edge}: ${targets.join(', ')}`);
  }
  // A module of the package itself still finds it the same way.
  const module = (await importsOf(root, 'core/management/base.py')).map((i) => `${i.specifier} -> ${i.targetPath}`);
  assert.ok(module.includes('django.core.exceptions -> core/exceptions.py'), module.join(', '));
});
