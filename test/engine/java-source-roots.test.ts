import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { debianPackage } from '../helpers/real-code';
import { tempDir } from '../helpers/engine';

// bazel's remote worker (bazel-bootstrap-source): a Maven layout, its test in src/test/java in the same package as
// the class it tests in src/main/java, used without an import (`HttpCacheServerHandler.isUriValid(…)`).
const ROOT = path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/tools/remote');
const PKG = 'com/google/devtools/build/remote/worker/http';

async function edgesOf(file: string): Promise<string[]> {
  const { imports } = await analyzeWithTreeSitter('java', file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ROOT);
  return imports.filter((i) => i.targetPath).map((i) => `${i.kind} ${i.specifier} -> ${i.targetPath}`);
}

test('Java: a package spans src/main/java and src/test/java, so a test uses its package\'s classes without an import', async () => {
  assert.deepEqual(await edgesOf(`src/test/java/${PKG}/HttpCacheServerHandlerTest.java`), [
    `reference com.google.devtools.build.remote.worker.http.HttpCacheServerHandler -> src/main/java/${PKG}/HttpCacheServerHandler.java`,
  ]);
  // The main classes still find each other in their own root.
  assert.ok((await edgesOf(`src/main/java/${PKG}/HttpCacheServerInitializer.java`))
    .includes(`reference com.google.devtools.build.remote.worker.http.HttpCacheServerHandler -> src/main/java/${PKG}/HttpCacheServerHandler.java`));
});

test('Java: a qualified annotation (`@ThreadSafety.ThreadSafe`) names its outer type, a same-package class', async () => {
  // Bazel's lib/concurrent: AbstractQueueVisitor uses ThreadSafety only as `@ThreadSafety.ThreadSafe` (javac: the edge).
  const root = path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap');
  const dir = 'src/main/java/com/google/devtools/build/lib/concurrent';
  const file = `${dir}/AbstractQueueVisitor.java`;
  const { imports } = await analyzeWithTreeSitter('java', file, fs.readFileSync(path.join(root, file), 'utf8'), root);
  assert.ok(imports.some((i) => i.kind === 'reference' && i.targetPath === `${dir}/ThreadSafety.java`),
    JSON.stringify(imports.filter((i) => i.targetPath).map((i) => `${i.kind} ${i.specifier} -> ${i.targetPath}`)));
});

test('Java: a package kept in a folder of another name is found by its `package` line, as javac finds it', async () => {
  // Bazel keeps `package com.google.devtools.build.runfiles;` in tools/java/runfiles/, not in a com/google/… folder.
  const root = path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap');
  const edges = async (file: string) => (await analyzeWithTreeSitter('java', file, fs.readFileSync(path.join(root, file), 'utf8'), root))
    .imports.filter((i) => i.targetPath?.startsWith('tools/java/runfiles/')).map((i) => `${i.kind} ${i.specifier} -> ${i.targetPath}`);
  // An import from a test of another folder.
  assert.deepEqual(await edges('src/test/java/com/google/devtools/build/android/dexer/DexBuilderTest.java'),
    ['import com.google.devtools.build.runfiles.Runfiles -> tools/java/runfiles/Runfiles.java']);
  // A class of the same package, used without an import.
  assert.deepEqual(await edges('tools/java/runfiles/Runfiles.java'),
    ['reference com.google.devtools.build.runfiles.Util -> tools/java/runfiles/Util.java']);
});

test('Java: the default package is the file\'s own folder: examples side by side do not link to each other', async () => {
  const root = tempDir('loupe-java-default-');
  for (const example of ['a', 'b']) {
    fs.mkdirSync(path.join(root, 'examples', example), { recursive: true });
    fs.writeFileSync(path.join(root, 'examples', example, 'Util.java'), 'class Util {}\n');
  }
  const code = 'class Main { Util util; }\n';
  fs.writeFileSync(path.join(root, 'examples/a/Main.java'), code);
  fs.mkdirSync(path.join(root, 'examples/c'));
  fs.writeFileSync(path.join(root, 'examples/c/Main.java'), code);
  const targets = async (file: string) => (await analyzeWithTreeSitter('java', file, code, root)).imports.map((i) => i.targetPath);
  assert.deepEqual(await targets('examples/a/Main.java'), ['examples/a/Util.java']);
  assert.deepEqual(await targets('examples/c/Main.java'), []);
});
