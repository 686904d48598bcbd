import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage, within } from '../helpers/real-code';

/**
 * Rust module paths as rustc resolves them, on regex-syntax 0.6.27 and tokio 1.24.2 (Debian's librust-*-dev):
 * inside an inline `mod name { … }` the path nests (`use super::*` in `mod tests` is the file's own module),
 * and a path written outside a `use` line (`crate::error::Formatter::from(self)`) is an edge like a `use`.
 */
const regexSyntax = copyOf(within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*'), 'loupe-rust-paths-');
const tokio = copyOf(within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*'), 'loupe-rust-paths-');

let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

/** `line kind specifier [names] -> target` of each import of a file, as the indexer stores them. */
async function importsOf(root: string, file: string): Promise<string[]> {
  const analysis = await analyzeWithTreeSitter('rust', file, fs.readFileSync(path.join(root, file), 'utf8'), root);
  return analysis.imports.map((i) => `${i.line} ${i.kind} ${i.specifier} [${i.names.join(',')}] -> ${i.targetPath ?? `pkg:${i.packageName}`}`);
}

const dependents = async (repo: Awaited<ReturnType<typeof indexFolder>>, target: string) => {
  const result = await t.engine.analysis.radius(repo, { files: [target], dependencies: [], include: ['dependents'], limit: 500 });
  return Object.fromEntries((result.targets[0].dependents ?? []).map((d) => [d.file_path, d.depth]));
};

test('`use super::…` inside `#[cfg(test)] mod tests` is the file\'s own module, not its parent', async () => {
  // src/hir/mod.rs:1526 `mod tests { use super::*; … }`: super is hir itself (no edge), not lib.rs.
  const hir = await importsOf(regexSyntax, 'src/hir/mod.rs');
  assert.ok(hir.includes('1526 test-use self [*] -> src/hir/mod.rs'), hir.join('\n'));
  assert.ok(!hir.some((i) => i.endsWith('-> src/lib.rs')), hir.join('\n'));
  // src/ast/parse.rs:2302 `use super::{Parser, ParserBuilder, ParserI, Primitive};` names parse.rs's own types.
  const parse = await importsOf(regexSyntax, 'src/ast/parse.rs');
  assert.ok(parse.includes('2302 test-use self [Parser,ParserBuilder,ParserI,Primitive] -> src/ast/parse.rs'), parse.join('\n'));
});

test('inline modules nest the path of `use` lines outside tests too', async () => {
  // tokio src/loom/std/mod.rs:12 `pub(crate) mod cell { pub(crate) use super::unsafe_cell::UnsafeCell; }`: super
  // is loom::std, whose `mod unsafe_cell;` is src/loom/std/unsafe_cell.rs (not loom/mod.rs).
  const std = await importsOf(tokio, 'src/loom/std/mod.rs');
  assert.ok(std.includes('13 export self::unsafe_cell [UnsafeCell] -> src/loom/std/unsafe_cell.rs'), std.join('\n'));
  // Inside a macro's tokens too: src/sync/mod.rs `cfg_sync! { pub mod futures { pub use super::notify::Notified; } }`.
  const sync = await importsOf(tokio, 'src/sync/mod.rs');
  assert.ok(sync.includes('441 export self::notify [Notified] -> src/sync/notify.rs'), sync.join('\n'));
  // `mod b;` inside `mod a { … }` is a/b.rs: src/io/mod.rs:231 `cfg_aio! { pub mod bsd { mod poll_aio; … } }`,
  // tests/io_panic.rs:9 `mod support { pub mod panic; }`.
  const io = await importsOf(tokio, 'src/io/mod.rs');
  assert.ok(io.includes('231 import bsd::poll_aio [] -> src/io/bsd/poll_aio.rs'), io.join('\n'));
  // …and `pub use poll_aio::{Aio, AioEvent, AioSource};` beside it names that module.
  assert.ok(io.includes('233 export self::bsd::poll_aio [Aio,AioEvent,AioSource] -> src/io/bsd/poll_aio.rs'), io.join('\n'));
  assert.ok((await importsOf(tokio, 'tests/io_panic.rs')).includes('9 import support::panic [] -> tests/support/panic.rs'));
});

test('a folder named tests inside src/ holds modules of the crate, not crates of their own', async () => {
  // tokio src/runtime/tests/loom_yield.rs is `mod loom_yield;` of src/runtime/tests/mod.rs: `crate::` is tokio.
  const yieldTest = await importsOf(tokio, 'src/runtime/tests/loom_yield.rs');
  assert.ok(yieldTest.includes('1 use crate::runtime::park [park] -> src/runtime/park.rs'), yieldTest.join('\n'));
  assert.ok(yieldTest.includes('18 test-use crate::task [yield_now] -> src/task/mod.rs'), yieldTest.join('\n'));
});

test('paths outside `use` lines are edges: expressions, types, `impl` headers, macro bodies, test code', async () => {
  // src/ast/mod.rs:224 `crate::error::Formatter::from(self).fmt(f)`; src/lib.rs:252 `unicode::is_word_character(c)`
  // (lib.rs declares `mod unicode;`).
  assert.ok((await importsOf(regexSyntax, 'src/ast/mod.rs')).includes('224 reference crate::error [Formatter] -> src/error.rs'));
  assert.ok((await importsOf(regexSyntax, 'src/lib.rs')).includes('252 reference unicode [is_word_character] -> src/unicode.rs'));
  // tokio src/sync/semaphore.rs:129 `super::batch_semaphore::Semaphore::MAX_PERMITS`; src/time/sleep.rs:395
  // `crate::runtime::coop::poll_proceed(cx)` in an expression.
  assert.ok((await importsOf(tokio, 'src/sync/semaphore.rs')).includes('129 reference super::batch_semaphore [Semaphore] -> src/sync/batch_semaphore.rs'));
  const sleep = await importsOf(tokio, 'src/time/sleep.rs');
  assert.ok(sleep.some((i) => /^\d+ reference crate::runtime::coop \[.*poll_proceed.*\] -> src\/runtime\/coop\.rs$/.test(i)), sleep.join('\n'));
  // A type inside a macro's tokens: src/runtime/driver.rs:87 `cfg_io_driver! { pub(crate) fn io(&self) -> &crate::runtime::io::Handle`;
  // an impl header: src/io/stdio_common.rs:28 `impl<W> crate::io::AsyncWrite for SplitByUtf8BoundaryIfWindows<W>`.
  assert.ok((await importsOf(tokio, 'src/runtime/driver.rs')).includes('87 reference crate::runtime::io [Handle,Driver] -> src/runtime/io/mod.rs'));
  assert.ok((await importsOf(tokio, 'src/io/stdio_common.rs')).includes('28 reference crate::io [AsyncWrite] -> src/io/mod.rs'));
  // Written in test code: kind test-use (tokio src/sync/tests/notify.rs:73 `crate::sync::watch::channel(())` in a #[test]).
  const notify = await importsOf(tokio, 'src/sync/tests/notify.rs');
  assert.ok(notify.some((i) => /^\d+ test-use crate::sync::watch \[channel\] -> src\/sync\/watch\.rs$/.test(i)), notify.join('\n'));
});

test('paths that name no module of the crate make no edge', async () => {
  // tests/rt_handle_block_on.rs:140 `fs::read_to_string` is std's fs (`use std::fs`), not the test crate tests/fs.rs.
  assert.ok(!(await importsOf(tokio, 'tests/rt_handle_block_on.rs')).some((i) => i.endsWith('-> tests/fs.rs')));
  // src/runtime/tests/mod.rs:14 `impl task::Schedule` inside `mod noop_scheduler`, which imports crate::runtime::task:
  // not the file's own `mod task;` (src/runtime/tests/task.rs).
  assert.ok(!(await importsOf(tokio, 'src/runtime/tests/mod.rs')).some((i) => /^\d+ (reference|test-use) task \[/.test(i)));
  // `$crate::select_priv_declare_output_enum!(…)`: a macro, at the crate root only by #[macro_export].
  assert.ok(!(await importsOf(tokio, 'src/macros/select.rs')).some((i) => i.endsWith('-> src/lib.rs')));
});

test('symbol radius counts the files that name a symbol by its path', async () => {
  // regex-syntax: ast/mod.rs and hir/mod.rs use error.rs's Formatter only as `crate::error::Formatter::from`
  // (before, they reached it only by mistake: their tests' `use super::*` was taken for lib.rs, which re-exports error.rs).
  const repo = await indexFolder(t, regexSyntax);
  const formatter = await dependents(repo, 'src/error.rs#Formatter');
  for (const file of ['src/ast/mod.rs', 'src/hir/mod.rs']) assert.equal(formatter[file], 1, `${file} in ${JSON.stringify(formatter)}`);
  // tokio: these call `crate::runtime::coop::budget(…)` with no `use` of coop (runtime/park.rs:283,
  // runtime/context.rs:339, runtime/scheduler/current_thread.rs:285, task/local.rs:616).
  const tokioRepo = await indexFolder(t, tokio);
  const budget = await dependents(tokioRepo, 'src/runtime/coop.rs#budget');
  for (const file of ['src/runtime/park.rs', 'src/runtime/context.rs', 'src/runtime/scheduler/current_thread.rs', 'src/task/local.rs']) {
    assert.equal(budget[file], 1, `${file} in ${JSON.stringify(budget)}`);
  }
});
