import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture } from '../helpers/engine';
import { DEBIAN_DIR } from '../../bench/debian';
import { GOLDEN, readGolden, toGolden } from '../../bench/oracles/golden';
import { compareWithOracle, oracleGraph, PHP_ORACLE_PARTS, type OracleLanguage } from '../../bench/radius-exactness';

/**
 * Radius against each language's own toolchain, on fixtures made for the two bugs this guards (go.mod at the
 * repository root; a flask-like src/ layout whose typing.py, json/ and http/ shadow standard-library names)
 * and on real projects from Debian (gin 1.8.1, flask 2.2.2, requests 2.28.1, docutils 0.19, whose
 * `import docutils.utils.roman` names a module Debian left out, PHP's monolog 2.9.1 and doctrine-dbal 3.6.1,
 * whose classes PHP's own name resolution places, Ruby's net-ssh 7.0.1 and concurrent-ruby 1.1.6, whose gemspec
 * puts lib/concurrent-ruby on the load path, and two Java folders of Bazel 4.2.3 that javac reads together: its
 * JUnit runner, whose tests in javatests/ use classes of java/, and the AWS signing classes it vendors, one naming a
 * type with its package; downloaded once into a cache).
 * The oracle's graph is the committed golden file (bench/oracles/golden.ts writes it); when the oracle itself
 * is at hand (Debian's python3; its php-cli, php-parser, php-composer-class-map-generator and ruby, which .ci/run installs;
 * the Go toolchain once a benchmark unpacked it; a JDK 17) the golden file is checked
 * against it first, so it cannot drift from what the toolchain says. When Debian no longer has a pinned version
 * (a point release replaced it) the newer one is compared with the oracle run live (the Go toolchain is then
 * unpacked), with the same strictness: only the committed golden file is set aside.
 */
const FIXTURES_MADE_HERE = new Set(['go-root-module', 'python-src-layout']);
const goToolchain = fs.existsSync(path.join(DEBIAN_DIR, 'golang-1.19', '.complete'));
const oracleAtHand = (language: OracleLanguage) =>
  language === 'go' ? goToolchain
    : language === 'php' ? PHP_ORACLE_PARTS.every((p) => fs.existsSync(p))
      : language === 'java' ? fs.existsSync('/usr/bin/javac')
        : fs.existsSync(language === 'ruby' ? '/usr/bin/ruby' : '/usr/bin/python3');

for (const [name, c] of Object.entries(GOLDEN)) {
  test(`${name} (${c.language}): every file's radius equals the toolchain's reverse closure`, async (t) => {
    const dir = FIXTURES_MADE_HERE.has(name) ? copyFixture(name) : c.dir();
    if (!c.pinned()) t.diagnostic(`${name}: the pinned Debian version is gone from the archive; comparing the newer one with the oracle run now`);
    const golden = c.pinned() ? readGolden(name) : await oracleGraph(c.language, dir);
    if (c.pinned() && oracleAtHand(c.language)) {
      assert.deepEqual(toGolden(await oracleGraph(c.language, dir)), toGolden(golden),
        `test/fixtures/oracle/${name}.json is not what the oracle says now: node --import tsx bench/oracles/golden.ts ${name}`);
    }
    const r = await compareWithOracle(dir, name, c.language, () => golden);
    assert.ok(r.theirEdges >= 20 && r.files >= 12, JSON.stringify(r));
    assert.deepEqual({ onlyOurs: r.onlyOurs, onlyTheirs: r.onlyTheirs, typeOnly: r.typeOnlyMismatches, radius: r.closureDifferences },
      { onlyOurs: [], onlyTheirs: [], typeOnly: [], radius: [] });
    assert.equal(r.precision, 1);
    assert.equal(r.recall, 1);
  });
}

/**
 * A package folder opened on its own (`dist-packages/flask` as the root, as a developer opens `src/mypkg`): its
 * relative imports (`from .helpers import …`) and absolute self-imports (`from flask.globals import …`) resolve as
 * Python resolves them with the folder above on sys.path. The oracle is the same importlib graph, restricted to
 * the package and re-rooted; before the fix, 1 of Flask's 386 imports resolved this way.
 */
test('flask opened as its own package folder: every edge and radius equals the oracle\'s within it', async () => {
  const dir = path.join(GOLDEN.flask!.dir(), 'flask');
  const whole = GOLDEN.flask!.pinned() ? readGolden('flask') : await oracleGraph('python', GOLDEN.flask!.dir());
  const inside = (f: string) => f.startsWith('flask/');
  const strip = (f: string) => f.slice('flask/'.length);
  const oracle = {
    files: new Set([...whole.files].filter(inside).map(strip)),
    edges: new Map([...whole.edges].filter(([k]) => k.split(' -> ').every(inside))
      .map(([k, typeOnly]) => [k.split(' -> ').map(strip).join(' -> '), typeOnly] as const)),
  };
  const r = await compareWithOracle(dir, 'flask-package-root', 'python', () => oracle);
  assert.ok(r.theirEdges >= 100 && r.files >= 20, JSON.stringify(r));
  assert.deepEqual({ onlyOurs: r.onlyOurs, onlyTheirs: r.onlyTheirs, typeOnly: r.typeOnlyMismatches, radius: r.closureDifferences },
    { onlyOurs: [], onlyTheirs: [], typeOnly: [], radius: [] });
});
