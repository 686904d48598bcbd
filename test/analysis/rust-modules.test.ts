import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage, within } from '../helpers/real-code';

/**
 * Rust's module tree on regex-syntax 0.6.27 (librust-regex-syntax-dev): `mod either;` in lib.rs declares a
 * private module, it does not make every file that uses `crate::Result` depend on it; and the tests Rust
 * keeps inside source files (`#[cfg(test)] mod tests { #[test] fn … }`) are tests.
 */
let t: TestEngine;
let repo: Awaited<ReturnType<typeof indexFolder>>;
before(async () => {
  t = createTestEngine();
  repo = await indexFolder(t, copyOf(within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*'), 'loupe-regex-syntax-'));
});
after(() => t.close());

const dependents = async (file: string) => {
  const result = await t.engine.analysis.radius(repo, { files: [file], dependencies: [], include: ['dependents'], limit: 100 });
  return Object.fromEntries((result.targets[0].dependents ?? []).map((d) => [d.file_path, d.depth]));
};

test('a private `mod x;` does not make the declaring file\'s importers dependents of x', async () => {
  // Only ast/parse.rs names Either (`use crate::either::Either`): lib.rs, which declares it, is no dependent.
  const either = await dependents('src/either.rs');
  assert.deepEqual(Object.keys(either).filter((f) => either[f] === 1), ['src/ast/parse.rs'], JSON.stringify(either));
  // A table only unicode.rs uses (`use crate::unicode_tables::perl_word::PERL_WORD`): not unicode_tables/mod.rs
  // and lib.rs, which declare it, nor through them every file of the crate.
  const perlWord = await dependents('src/unicode_tables/perl_word.rs');
  assert.deepEqual(Object.keys(perlWord).filter((f) => perlWord[f] === 1), ['src/unicode.rs'], JSON.stringify(perlWord));
  assert.ok(!('src/unicode_tables/mod.rs' in perlWord), JSON.stringify(perlWord));
});

test('`pub use` re-exports of lib.rs still carry: error.rs reaches the files using crate::Result', async () => {
  const error = await dependents('src/error.rs');
  assert.equal(error['src/lib.rs'], 1, JSON.stringify(error)); // pub use crate::error::{Error, Result}
});

test('tests inside Rust source files count: coverage gaps see them', async () => {
  const gaps = await t.engine.analysis.coverageGaps(repo, { limit: 100, offset: 0 });
  const untested = gaps.untested_files.map((f) => f.file_path);
  // src/ast/parse.rs, src/hir/mod.rs, src/unicode.rs, … hold `#[cfg(test)] mod tests` with `#[test]` fns.
  for (const tested of ['src/ast/parse.rs', 'src/hir/mod.rs', 'src/unicode.rs', 'src/lib.rs', 'src/error.rs']) {
    assert.ok(!untested.includes(tested), `${tested} in ${untested.join(', ')}`);
  }
  assert.equal(gaps.summary.test_files, 11, JSON.stringify([gaps.summary, untested]));
  assert.ok(gaps.summary.untested_files < gaps.summary.source_files, JSON.stringify(gaps.summary));
});
