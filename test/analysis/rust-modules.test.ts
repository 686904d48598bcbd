import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
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

test('a `use` inside `#[cfg(test)] mod tests` makes its file a dependent, not the file\'s users', async () => {
  // error.rs, ast/print.rs and hir/translate.rs use `crate::ast::parse::…` in their tests only: they are
  // dependents of parse.rs (their tests may break), one step further from either.rs.
  const parse = await dependents('src/ast/parse.rs');
  for (const file of ['src/error.rs', 'src/ast/print.rs', 'src/hir/translate.rs']) assert.equal(parse[file], 1, `${file} in ${JSON.stringify(parse)}`);
  const either = await dependents('src/either.rs');
  assert.deepEqual(either, { 'src/ast/parse.rs': 1, 'src/error.rs': 2, 'src/ast/print.rs': 2, 'src/hir/translate.rs': 2 });
  // lib.rs re-exports error.rs (`pub use crate::error::{Error, Result}`), but error.rs reaches parse.rs only
  // through its tests: lib.rs and the files using crate::Result (parser.rs, hir/mod.rs) are no dependents.
  for (const file of ['src/lib.rs', 'src/parser.rs', 'src/hir/mod.rs']) assert.ok(!(file in parse), `${file} in ${JSON.stringify(parse)}`);
  // Through their ordinary `use` lines the same files still carry: error.rs's users are error.rs's dependents.
  const error = await dependents('src/error.rs');
  assert.equal(error['src/parser.rs'], 2, JSON.stringify(error)); // use crate::Result → lib.rs → error.rs
});

test('the radius of a symbol used only in tests stops at the files whose tests use it', async () => {
  const result = await t.engine.analysis.radius(repo, { files: ['src/ast/parse.rs#ParserBuilder'], dependencies: [], include: ['dependents'], limit: 100 });
  const deps = Object.fromEntries((result.targets[0].dependents ?? []).map((d) => [d.file_path, d.depth]));
  // `use crate::ast::parse::ParserBuilder` in the tests of ast/print.rs and hir/translate.rs.
  assert.deepEqual(deps, { 'src/ast/print.rs': 1, 'src/hir/translate.rs': 1 });
});

test('a file reached first through its tests is still walked through its ordinary imports', async () => {
  // A crate of four lines a file: a.rs uses t.rs in its tests and b.rs (which uses t.rs) in its code, c.rs uses a.rs.
  const dir = path.join(tempDir('loupe-rust-leaf-'), 'leaf');
  const files: Record<string, string> = {
    'Cargo.toml': '[package]\nname = "leaf"\nversion = "0.1.0"\n',
    'src/lib.rs': 'mod a;\nmod b;\nmod c;\nmod t;\n',
    'src/a.rs': 'use crate::b::b;\npub fn a() { b() }\n#[cfg(test)]\nmod tests {\n    use crate::t::t;\n    #[test]\n    fn x() { t() }\n}\n',
    'src/b.rs': 'use crate::t::t;\npub fn b() { t() }\n',
    'src/c.rs': 'use crate::a::a;\npub fn c() { a() }\n',
    'src/t.rs': 'pub fn t() {}\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  const leaf = await indexFolder(t, dir);
  const result = await t.engine.analysis.radius(leaf, { files: ['src/t.rs'], dependencies: [], include: ['dependents'], limit: 100 });
  const deps = Object.fromEntries((result.targets[0].dependents ?? []).map((d) => [d.file_path, d]));
  assert.deepEqual(Object.fromEntries(Object.entries(deps).map(([f, d]) => [f, d.depth])), { 'src/a.rs': 1, 'src/b.rs': 1, 'src/c.rs': 3 });
  assert.deepEqual(deps['src/c.rs'].via, ['src/c.rs', 'src/a.rs', 'src/b.rs', 'src/t.rs']);
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
