import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { copyOf, debianPackage, within } from '../helpers/real-code';

/**
 * Rust module paths as rustc resolves them, on regex-syntax 0.6.27 and tokio 1.24.2 (Debian's librust-*-dev):
 * inside an inline `mod name { … }` the path nests (`use super::*` in `mod tests` is the file's own module).
 */
const regexSyntax = copyOf(within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*'), 'loupe-rust-paths-');
const tokio = copyOf(within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*'), 'loupe-rust-paths-');


/** `line kind specifier [names] -> target` of each import of a file, as the indexer stores them. */
async function importsOf(root: string, file: string): Promise<string[]> {
  const analysis = await analyzeWithTreeSitter('rust', file, fs.readFileSync(path.join(root, file), 'utf8'), root);
  return analysis.imports.map((i) => `${i.line} ${i.kind} ${i.specifier} [${i.names.join(',')}] -> ${i.targetPath ?? `pkg:${i.packageName}`}`);
}

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
  assert.ok((await importsOf(tokio, 'src/io/mod.rs')).includes('231 import bsd::poll_aio [] -> src/io/bsd/poll_aio.rs'));
  assert.ok((await importsOf(tokio, 'tests/io_panic.rs')).includes('9 import support::panic [] -> tests/support/panic.rs'));
});

test('a folder named tests inside src/ holds modules of the crate, not crates of their own', async () => {
  // tokio src/runtime/tests/loom_yield.rs is `mod loom_yield;` of src/runtime/tests/mod.rs: `crate::` is tokio.
  const yieldTest = await importsOf(tokio, 'src/runtime/tests/loom_yield.rs');
  assert.ok(yieldTest.includes('1 use crate::runtime::park [park] -> src/runtime/park.rs'), yieldTest.join('\n'));
});
