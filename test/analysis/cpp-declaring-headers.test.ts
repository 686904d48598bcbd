import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';

/**
 * A C++ source file's functions are used through the headers that declare them (symbol-users.ts). googletest 1.12.1
 * (Debian googletest): every file opens `namespace testing { namespace internal {`, which names no function.
 */
let t: TestEngine;
let repo: Awaited<ReturnType<typeof indexFolder>>;
before(async () => {
  t = createTestEngine();
  repo = await indexFolder(t, copyOf(path.join(debianPackage('googletest', '1.12.1-0.2'), 'usr/src/googletest'), 'loupe-googletest-'));
});
after(() => t.close());

test('C++: a namespace shared with a header does not make the header declare the source file\'s functions', async () => {
  // gtest-death-test.cc defines GetLastErrnoDescription(); src/gtest-internal-inl.h declares it, and of the files
  // including that header only test/googletest-death-test-test.cc calls it. gtest-port.h and the rest of the
  // headers gtest-death-test.cc includes only share its namespaces: their 100-odd includers are no users.
  const result = await t.engine.analysis.radius(repo, { files: ['googletest/src/gtest-death-test.cc#GetLastErrnoDescription'], dependencies: [], include: ['dependents'], limit: 500 });
  assert.deepEqual((result.targets[0].dependents ?? []).map((d) => d.file_path), ['googletest/test/googletest-death-test-test.cc']);
});
