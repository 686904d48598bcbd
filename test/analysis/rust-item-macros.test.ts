import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage, within } from '../helpers/real-code';

/**
 * tokio 1.24.2 (Debian's librust-tokio-dev) writes much of its code inside item macros (`cfg_rt! { … }`,
 * `cfg_coop! { … }`, `pin_project! { … }`), whose bodies tree-sitter-rust keeps as unparsed tokens: the items
 * there are symbols and edges like any other, at the file's lines, inside the impl or module around the macro.
 */
const tokio = copyOf(within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*'), 'loupe-rust-macros-');
const getrandom = within(debianPackage('librust-getrandom-dev', '0.2.8-1'), 'usr/share/cargo/registry/getrandom-*');

let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

const analysisOf = (file: string, root = tokio) => analyzeWithTreeSitter('rust', file, fs.readFileSync(path.join(root, file), 'utf8'), root);

/** `kind parent.name first-last` of each symbol of a file. */
async function symbolsOf(file: string, root = tokio): Promise<string[]> {
  return (await analysisOf(file, root)).symbols.map((s) => `${s.kind} ${s.parent ?? ''}.${s.name} ${s.startLine}-${s.endLine}`);
}

/** `line kind specifier [names] -> target` of each import of a file. */
async function importsOf(file: string, root = tokio): Promise<string[]> {
  return (await analysisOf(file, root)).imports.map((i) => `${i.line} ${i.kind} ${i.specifier} [${i.names.join(',')}] -> ${i.targetPath ?? `pkg:${i.packageName}`}`);
}

test('items written inside item macros are symbols, at their lines, with the impl around them', async () => {
  // src/runtime/coop.rs:132 `cfg_coop! { … #[inline] pub(crate) fn poll_proceed(…) … struct RestoreOnPending … impl Budget { fn decrement … } }`.
  const coop = await symbolsOf('src/runtime/coop.rs');
  for (const symbol of ['function .poll_proceed 170-184', 'struct .RestoreOnPending 136-137', 'method RestoreOnPending.made_progress 140-142',
    'method RestoreOnPending.drop 146-155', 'method Budget.decrement 189-200', 'function .stop 123-129']) {
    assert.ok(coop.includes(symbol), `${symbol} in\n${coop.join('\n')}`);
  }
  const pollProceed = (await analysisOf('src/runtime/coop.rs')).symbols.find((s) => s.name === 'poll_proceed')!;
  assert.match(pollProceed.doc ?? '', /^Returns `Poll::Pending` if the current task has exceeded its budget/);
  assert.equal(pollProceed.exported, true);
  assert.match(pollProceed.signature ?? '', /^pub\(crate\) fn poll_proceed\(cx: &mut Context<'_>\) -> Poll<RestoreOnPending>/);
  // A macro inside an impl's body: src/runtime/driver.rs:85 `impl Handle { cfg_io_driver! { pub(crate) fn io(&self) … } }`.
  assert.ok((await symbolsOf('src/runtime/driver.rs')).includes('method Handle.io 86-91'));
  // `pin_project! { pub struct Timeout<T> { … } }` (src/time/timeout.rs:147).
  assert.ok((await symbolsOf('src/time/timeout.rs')).some((s) => /^struct \.Timeout 14[89]-\d+$/.test(s)));
});

test('`use` lines inside nested item macros, inline modules and impls are edges', async () => {
  // Three macros deep: src/runtime/mod.rs:250 `cfg_rt! { … cfg_metrics! { … cfg_net! { pub(crate) use metrics::IoDriverMetrics; } } }`.
  assert.ok((await importsOf('src/runtime/mod.rs')).includes('250 export metrics [IoDriverMetrics] -> src/runtime/metrics/mod.rs'));
  // Inside an inline module: src/net/addr.rs:273 `pub(crate) mod sealed { … cfg_net! { use crate::blocking::JoinHandle; … } }`.
  assert.ok((await importsOf('src/net/addr.rs')).includes('273 use crate::blocking [JoinHandle] -> src/blocking.rs'));
  // Inside a function of an impl: src/runtime/scheduler/current_thread.rs:478 `cfg_unstable! { fn unhandled_panic(&self) { use crate::runtime::UnhandledPanic; … } }`.
  assert.ok((await importsOf('src/runtime/scheduler/current_thread.rs')).includes('478 use crate::runtime [UnhandledPanic] -> src/runtime/mod.rs'));
});

test('the branches of cfg_if! hold items: getrandom 0.2.8 (librust-getrandom-dev)', async () => {
  // src/util_libc.rs:37 `cfg_if! { if #[cfg(target_os = "vxworks")] { … } else if … { unsafe fn get_errno() … } else { unsafe fn get_errno() … } }`.
  const utilLibc = await symbolsOf('src/util_libc.rs', getrandom);
  for (const symbol of ['function .get_errno 43-43', 'function .get_errno 45-45']) assert.ok(utilLibc.includes(symbol), `${symbol} in\n${utilLibc.join('\n')}`);
  // src/error.rs:102 `cfg_if! { if #[cfg(unix)] { fn os_err(…) … } else … { fn os_err(…) … } }`.
  assert.ok((await symbolsOf('src/error.rs', getrandom)).includes('function .os_err 104-114'));
  // src/lib.rs:203 picks the platform's module: `#[path = "linux_android.rs"] mod imp;` beside `mod use_file;`, each read once.
  const lib = await importsOf('src/lib.rs', getrandom);
  assert.ok(lib.includes('211 include linux_android.rs [imp] -> src/linux_android.rs'), lib.join('\n'));
  assert.equal(lib.filter((i) => i === '210 import use_file [] -> src/use_file.rs').length, 1, lib.join('\n'));
});

test('the arms of a macro_rules! definition are no items of the file', async () => {
  // src/macros/cfg.rs defines the cfg_* macros: `macro_rules! cfg_rt { ($($item:item)*) => { … } }` is one symbol.
  const cfg = (await analysisOf('src/macros/cfg.rs')).symbols;
  assert.ok(cfg.length > 0 && cfg.every((s) => s.kind === 'function' && s.parent === null && s.signature?.startsWith('macro_rules!')), JSON.stringify(cfg));
  // src/io/async_read.rs:60 `macro_rules! deref_async_read { () => { fn poll_read(…) … }; }`: the arm's `fn` is a
  // pattern's output, not an item of the file (the impls that invoke the macro, lines 73 and 77, hold it).
  const asyncRead = await symbolsOf('src/io/async_read.rs');
  assert.ok(asyncRead.includes('function .deref_async_read 60-70'), asyncRead.join('\n'));
  assert.ok(!asyncRead.some((s) => { const first = Number(/ (\d+)-/.exec(s)![1]); return first > 60 && first <= 70; }), asyncRead.join('\n'));
});

test('a function written inside an item macro has a symbol radius; the files using it are its dependents', async () => {
  const repo = await indexFolder(t, tokio);
  const radius = async (target: string) => (await t.engine.analysis.radius(repo, { files: [target], dependencies: [], include: ['dependents'], limit: 500 })).targets[0];
  // src/time/sleep.rs:395 calls `crate::runtime::coop::poll_proceed(cx)`; sync/batch_semaphore.rs and runtime/io/registration.rs too.
  const pollProceed = await radius('src/runtime/coop.rs#poll_proceed');
  assert.equal(pollProceed.found, true, pollProceed.reason);
  const direct = (pollProceed.dependents ?? []).filter((d) => d.depth === 1).map((d) => d.file_path);
  for (const file of ['src/time/sleep.rs', 'src/sync/batch_semaphore.rs', 'src/runtime/io/registration.rs']) assert.ok(direct.includes(file), `${file} in ${direct.join(' ')}`);
  // src/net/addr.rs uses src/blocking.rs only inside `cfg_net! { … }` of its inline module.
  const blocking = await radius('src/blocking.rs');
  assert.ok((blocking.dependents ?? []).some((d) => d.file_path === 'src/net/addr.rs'), JSON.stringify(blocking.dependents?.map((d) => d.file_path)));
});
