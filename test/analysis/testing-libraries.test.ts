import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTestPath } from '../../server/engine/analysis/entry-points';
import { testingLibraries } from '../../server/engine/analysis/testing-libraries';
import { fileRole } from '../../server/engine/search/file-role';
import { blueprintOf, createTestApp, indexedRepo } from '../helpers/engine';
import { debianPackage, npmPackage } from '../helpers/real-code';

/**
 * A test/ or testing/ folder of Python (or Go) code in which no file is named as the runner finds tests is a library
 * for writing tests (Django's django/test/, numpy's numpy/testing/): source, not tests. Real test suites, named by
 * their runner's convention or in a language whose runner takes any file, stay tests.
 */
const DJANGO = ['python3-django', '3:3.2.25-0+deb12u7'] as const;
const dist = (name: string, version: string) => path.join(debianPackage(name, version), 'usr/lib/python3/dist-packages');

function walk(root: string, dir = ''): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    return e.isDirectory() ? (e.name === '__pycache__' ? [] : walk(root, rel)) : [rel];
  });
}

/** The paths whose role the repository's testing libraries change, and the paths that have the test role after. */
function roles(root: string) {
  const paths = walk(root);
  const libraries = testingLibraries(paths);
  return {
    libraries,
    changed: paths.filter((p) => fileRole(p) !== fileRole(p, false, libraries)).sort(),
    tests: paths.filter((p) => fileRole(p, false, libraries) === 'test'),
    testsBefore: paths.filter((p) => fileRole(p) === 'test'),
  };
}

test('django/test/ (TestCase, Client, override_settings) is Django\'s testing library: source, not tests', () => {
  const django = roles(path.join(dist(...DJANGO), 'django'));
  assert.deepEqual([...django.libraries.folders], ['test/']);
  assert.deepEqual(django.changed, ['test/__init__.py', 'test/client.py', 'test/html.py', 'test/runner.py', 'test/selenium.py',
    'test/signals.py', 'test/testcases.py', 'test/utils.py']);
  assert.deepEqual(django.tests, []);
  assert.equal(isTestPath('test/client.py', django.libraries), false);
  // The same folder, with the site folder opened (django/test/).
  assert.deepEqual([...roles(dist(...DJANGO)).libraries.folders], ['django/test/']);
});

test('numpy/testing/ is a library; its own tests/ and every other tests/ suite of numpy stay tests', () => {
  const numpy = roles(path.join(dist('python3-numpy', '1:1.24.2-1+deb12u1'), 'numpy'));
  assert.deepEqual([...numpy.libraries.folders], ['testing/']);
  assert.ok(numpy.changed.length > 5 && numpy.changed.every((p) => p.startsWith('testing/') && !p.startsWith('testing/tests/')), numpy.changed.join(', '));
  assert.ok(numpy.changed.includes('testing/_private/utils.py'), numpy.changed.join(', '));
  for (const p of ['testing/tests/test_utils.py', 'core/tests/test_multiarray.py', 'core/tests/__init__.py', 'conftest.py', 'core/tests/data/umath-validation-set-README.txt']) {
    assert.ok(numpy.tests.includes(p), p);
  }
  assert.equal(numpy.tests.length, numpy.testsBefore.length - numpy.changed.length);
});

test('real test suites keep the test role: networkx\'s tests/, Go\'s _test.go beside grpc\'s test helpers, zod\'s JavaScript tests', () => {
  const suites = [
    dist('python3-networkx', '2.8.8-1'),
    path.join(debianPackage('golang-google-grpc-dev', '1.33.3-2'), 'usr/share/gocode/src'),
    npmPackage('zod@4.1.12'),
  ];
  for (const root of suites) {
    const r = roles(root);
    assert.ok(r.testsBefore.length > 100, `${root}: ${r.testsBefore.length}`);
    assert.deepEqual(r.changed, [], root);
  }
});

test('a Python test/ folder holding one file named as tests (tests.py, test_*.py, *_test.py) stays tests, the helpers beside it included', () => {
  for (const named of ['tests.py', 'test_client.py', 'client_test.py']) {
    const paths = ['pkg/__init__.py', 'pkg/test/__init__.py', 'pkg/test/helpers.py', `pkg/test/${named}`];
    const libraries = testingLibraries(paths);
    assert.deepEqual([...libraries.folders], [], named);
    assert.equal(isTestPath('pkg/test/helpers.py', libraries), true, named);
  }
  // A test folder of JavaScript: mocha runs ./test/*.js whatever the names.
  assert.deepEqual([...testingLibraries(['test/helpers.py', 'test/server.js']).folders], []);
});

/** A part of Django (`parts` of django/) copied into a fresh folder named django, opened as the repository. */
function djangoPart(parts: string[]): { root: string; done: () => void } {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-django-')), 'django');
  for (const p of parts) fs.cpSync(path.join(dist(...DJANGO), 'django', p), path.join(root, p), { recursive: true });
  return { root, done: () => fs.rmSync(path.dirname(root), { recursive: true, force: true }) };
}

test('search ranks django/test/ as Django\'s source: "make a fake request without a server" finds test/client.py (RequestFactory) first', async () => {
  const part = djangoPart(['__init__.py', 'test', 'conf/__init__.py', 'conf/global_settings.py', 'core/handlers', 'core/signals.py', 'http', 'utils/functional.py', 'db/__init__.py', 'db/utils.py', 'db/transaction.py', 'core/mail']);
  const t = await createTestApp();
  try {
    await indexedRepo(t, part.root);
    const res = await t.call('POST', '/v2/search', { query: 'make a fake request without a server', scope: 'files', limit: 5 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const files = res.body.data.results.map((r: { file_path: string }) => r.file_path);
    assert.equal(files[0], 'test/client.py', files.join(', '));
  } finally {
    await t.close();
    part.done();
  }
});

test('blueprint of Django opened as its own folder: `python -m django` and bin/django-admin.py are entry points, django/test/ no test files', async () => {
  const part = djangoPart(['__init__.py', '__main__.py', 'bin', 'test', 'core/__init__.py', 'core/management/__init__.py', 'core/management/base.py']);
  const t = await createTestApp();
  try {
    const doc: string = (await blueprintOf(t, part.root)).documentation;
    const entries = doc.slice(doc.indexOf('## Entry points'), doc.indexOf('## Central modules'));
    assert.match(entries, /- `__main__\.py` \(conventional entry name\)/);
    assert.match(entries, /- `bin\/django-admin\.py` \(python script\)/);
    assert.doesNotMatch(entries, /test file/);
    assert.doesNotMatch(entries, /core\/management\/base\.py/);
  } finally {
    await t.close();
    part.done();
  }
});

test('coverage gaps and review on a part of Django: django/test/ is source, and its imports do not make Django\'s code "tested"', async () => {
  // Before, test/client.py was a test file, a seed of the reach: every module it imports (http/, core/handlers/)
  // counted as tested though this part of Django holds no test at all.
  const part = djangoPart(['__init__.py', 'test', 'conf/__init__.py', 'conf/global_settings.py', 'core/handlers', 'core/signals.py', 'http', 'utils/functional.py']);
  const t = await createTestApp();
  try {
    const repoId = await indexedRepo(t, part.root);
    const repo = t.engine.reposStore.get(repoId)!;
    const gaps = await t.engine.analysis.coverageGaps(repo, { limit: 1000, offset: 0 });
    assert.equal(gaps.summary.test_files, 0);
    const untested = gaps.untested_files.map((f) => f.file_path);
    assert.ok(untested.includes('http/request.py') && untested.includes('test/client.py'), untested.join(', '));
    const review = await t.engine.analysis.review(repo, { files: ['test/client.py'] });
    assert.ok(review.files[0].reasons.includes('no test reaches it'), review.files[0].reasons.join('; '));
  } finally {
    await t.close();
    part.done();
  }
});
