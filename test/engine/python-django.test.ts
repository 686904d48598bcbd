import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findNameUses } from '../../server/engine/analysis/name-usages';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { blueprintOf, createTestApp, indexedRepo, type TestApp } from '../helpers/engine';
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

/** Indexes `root` and reads which files use each exported name (`of(file, name)`, sorted), as blueprint and radius do. */
async function nameUsersIn(t: TestApp, root: string) {
  const repo = await indexedRepo(t, root);
  const graph = await t.engine.analysis.ctx.graph(repo);
  const users = await t.engine.analysis.ctx.exportedNameUsers(repo, graph);
  const of = (file: string, name: string) => [...users.get(`${graph.indexOfPath.get(file)}\0${name}`) ?? []].map((i) => graph.path(i)).sort();
  return { repo, graph, of };
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
    const names = (await blueprintOf(t, root)).dependencies.map((d: { name: string }) => d.name);
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

/** A part of the package copied into a fresh folder (`site/django/…`), the site folder opened as the repository. */
function partOf(paths: string[]): { root: string; done: () => void } {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-django-')), 'site');
  for (const p of paths) fs.cpSync(path.join(sitePackages(), 'django', p), path.join(root, 'django', p), { recursive: true });
  return { root, done: () => fs.rmSync(path.dirname(root), { recursive: true, force: true }) };
}

test('a class re-exported by a package\'s __init__.py (django.http.HttpRequest) is used by the files naming it through the package', async () => {
  const part = partOf(['__init__.py', 'http', 'shortcuts.py', 'core/__init__.py', 'core/handlers', 'views/__init__.py', 'views/decorators', 'test/__init__.py', 'test/client.py']);
  const t = await createTestApp();
  try {
    const res = await t.call('POST', '/v2/repos/index/new', { url: part.root });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.engine.queue.idle();
    const repo = res.body.data.repo.repo_id;
    const files = t.engine.filesStore;
    // http/__init__.py's `from django.http.request import (HttpRequest, …)` is the package's API, a re-export.
    const init = files.imports(files.getByPath(repo, 'django/http/__init__.py')!.id).find((i) => i.targetPath === 'django/http/request.py');
    assert.equal(init?.kind, 'export', JSON.stringify(init));
    const radius = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'django/http/request.py#HttpRequest', include: ['dependents', 'call_edges'] });
    assert.equal(radius.status, 200, JSON.stringify(radius.body));
    const target = radius.body.data.targets[0];
    const direct = (target.dependents as { file_path: string; depth: number }[]).filter((d) => d.depth === 1).map((d) => d.file_path).sort();
    // The files whose code names HttpRequest (`rg -lw HttpRequest`, less comments, docstrings and the package's own
    // re-export), each importing it as `from django.http import HttpRequest`.
    assert.deepEqual(direct, ['django/core/handlers/asgi.py', 'django/core/handlers/wsgi.py', 'django/test/client.py', 'django/views/decorators/debug.py']);
    // shortcuts.py imports django.http for its responses only.
    const depths = new Map((target.dependents as { file_path: string; depth: number }[]).map((d) => [d.file_path, d.depth]));
    assert.notEqual(depths.get('django/shortcuts.py'), 1);
    assert.ok(target.call_edges.some((c: { from_file: string; line: number }) => c.from_file === 'django/test/client.py' && c.line === 625), JSON.stringify(target.call_edges));
    // The blueprint's symbols count the files importing it through the package too (and http/__init__.py's own import).
    const bp = await t.call('GET', `/v2/repos/${repo}/blueprint`);
    assert.equal(bp.status, 200, JSON.stringify(bp.body));
    const symbol = (bp.body.data.symbols as { name: string; file_path: string; used_by: number }[]).find((x) => x.name === 'HttpRequest');
    assert.deepEqual(symbol && [symbol.file_path, symbol.used_by], ['django/http/request.py', 5], JSON.stringify(bp.body.data.symbols));
  } finally {
    await t.close();
    part.done();
  }
});

test('an __init__.py re-exports the names it imports, not the names of a submodule it imports (django/db/models/fields)', async () => {
  const imports = await importsOf(sitePackages(), 'django/db/models/fields/__init__.py');
  const kindOf = (target: string) => [...new Set(imports.filter((i) => i.targetPath === target).map((i) => `${i.specifier} ${i.kind} ${i.names.join(',')}`))];
  // `from django.utils.functional import Promise, cached_property`: models.fields.cached_property is that one.
  assert.deepEqual(kindOf('django/utils/functional.py'), ['django.utils.functional export Promise,cached_property']);
  // `from django import forms` binds the module: `CharField` through it is forms.CharField, never models.CharField.
  assert.deepEqual(kindOf('django/forms/__init__.py'), ['django.forms import forms']);
  // `from django.db.models.expressions import Col` inside a method (lines 398 and 405) binds a local name.
  assert.deepEqual(kindOf('django/db/models/expressions.py'), ['django.db.models.expressions import Col']);
});

test('a name imported under another name (`gettext_lazy as _`, django/core/paginator.py) is used where the alias is', () => {
  const text = fs.readFileSync(path.join(sitePackages(), 'django/core/paginator.py'), 'utf8');
  const uses = findNameUses('python', text, new Set(['gettext_lazy', 'Page']));
  const lazy = uses.filter((u) => u.name === 'gettext_lazy').map((u) => `${u.line} ${u.kind}`);
  // Line 8 binds it; `ELLIPSIS = _('…')` and the three `raise …(_('…'))` call it.
  assert.deepEqual(lazy, ['8 reexport', '30 call', '51 call', '53 call', '58 call']);
  // A name imported as itself is used where it is written, its import line a binding only.
  assert.ok(uses.some((u) => u.name === 'Page' && u.kind === 'call'), JSON.stringify(uses));
});

test('a quoted name is a type only where a type is written: a string compared or mapped (\'ForeignKey\', \'CharField\') is no use', () => {
  const read = (f: string) => fs.readFileSync(path.join(sitePackages(), f), 'utf8');
  // `field.get_internal_type() == 'ForeignKey'` (lines 119, 134), `rel_type = 'ForeignKey'`, `'varchar': 'CharField'`.
  assert.deepEqual(findNameUses('python', read('django/db/backends/mysql/schema.py'), new Set(['ForeignKey'])), []);
  assert.deepEqual(findNameUses('python', read('django/core/management/commands/inspectdb.py'), new Set(['ForeignKey'])), []);
  assert.deepEqual(findNameUses('python', read('django/db/backends/sqlite3/introspection.py'), new Set(['CharField'])), []);
  // Where a type is written the quoted name is one: a parameter's and a return annotation, a subscript, a variable's.
  const code = [
    'def get(self, key: "ds.Headers", default=\'Headers\') -> \'Headers\':',
    '    h: "Headers" = cast("Headers", key)',
    '    return t.Optional["Headers"], {"k": "Headers"}, ["Headers"]',
    'def put(',
    '    value: "Headers",',
    '    other=("Headers", 1),',
    ') -> None: ...',
  ].join('\n');
  assert.deepEqual(findNameUses('python', code, new Set(['Headers'])).map((u) => `${u.line} ${u.kind}`), ['1 type', '1 type', '2 type', '2 type', '3 type', '5 type']);
});

test('a package bound as a module (`from django import forms`) is used through its names: forms.CharField is forms/fields.py\'s', async () => {
  const part = partOf(['__init__.py', 'forms', 'contrib/__init__.py', 'contrib/auth/__init__.py', 'contrib/auth/forms.py']);
  const t = await createTestApp();
  try {
    const { of } = await nameUsersIn(t, part.root);
    // contrib/auth/forms.py writes `forms.CharField(` and `forms.Form` through django/forms/__init__.py's `import *`s.
    assert.ok(of('django/forms/fields.py', 'CharField').includes('django/contrib/auth/forms.py'), of('django/forms/fields.py', 'CharField').join(', '));
    assert.ok(of('django/forms/forms.py', 'Form').includes('django/contrib/auth/forms.py'), of('django/forms/forms.py', 'Form').join(', '));
  } finally {
    await t.close();
    part.done();
  }
});

test('a file uses only the names its statements bind: not those of a package run on the way, nor ones it did not import (django.db.connection)', async () => {
  const part = partOf(['__init__.py', 'db/__init__.py', 'db/utils.py', 'db/models/__init__.py', 'db/models/expressions.py', 'db/models/functions']);
  const t = await createTestApp();
  try {
    const { repo, graph, of } = await nameUsersIn(t, part.root);
    // functions/math.py's `def as_sqlite(self, compiler, connection, …)` names its parameter, not django.db.connection.
    assert.ok(graph.out[graph.indexOfPath.get('django/db/models/functions/math.py')!].some((e) => graph.path(e.to) === 'django/db/__init__.py'));
    assert.deepEqual(of('django/db/__init__.py', 'connection'), []);
    // The symbol radius of django.db.connection: expressions.py imports it (`from django.db import NotSupportedError,
    // connection`); comparison.py and text.py import NotSupportedError alone, so their `connection` is a parameter.
    const radius = await t.call('POST', `/v2/repos/${repo}/radius`, { file: 'django/db/__init__.py#connection', include: ['dependents'] });
    assert.equal(radius.status, 200, JSON.stringify(radius.body));
    const direct = (radius.body.data.targets[0].dependents as { file_path: string; depth: number }[]).filter((d) => d.depth === 1).map((d) => d.file_path);
    assert.deepEqual(direct, ['django/db/models/expressions.py']);
  } finally {
    await t.close();
    part.done();
  }
});
