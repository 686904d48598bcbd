import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CRATES, crateDir, goldenFile, loupeTree, rustcTree, type RustcTree } from '../../bench/rust-modules';

/**
 * A Rust crate's module tree (the files its `mod x;` declarations place in it, through `#[path]`, x.rs or
 * x/mod.rs, and tokio's `cfg_rt! { mod x; }` macros) against rustc's, on crates from Debian that no rule was
 * written against. rustc's answer, united over features and cfgs (bench/oracles/rust-modules.py), is the committed
 * golden file; where rustc is installed the golden file is checked against it first. Every file rustc places in a
 * crate must be in Loupe's tree; the files Loupe adds are the ones behind a cfg no configuration turned on, listed.
 */
const EXPECTED_EXTRA: Record<string, string[]> = {
  // cfg(all(feature = "unicode-perl", not(feature = "unicode-gencat"))): every feature on never gives it.
  'regex-syntax': ['src/unicode_tables/perl_decimal.rs', 'src/unicode_tables/perl_space.rs'],
  // cfg_feature! { #![not(any(feature = "http1", feature = "http2"))] mod server_stub; }
  hyper: ['src/server/server_stub.rs'],
  // tokio_no_atomic_u64 (named only inside a cfg_attr) and cfg(miri).
  tokio: ['src/loom/std/atomic_u64_as_mutex.rs', 'src/loom/std/atomic_u64_static_const_new.rs', 'src/loom/std/atomic_u64_static_once_cell.rs', 'src/runtime/tests/task.rs'],
};

const rustc = ['/usr/bin/rustc', path.join(os.homedir(), '.cargo', 'bin', 'rustc')].find((p) => fs.existsSync(p));

for (const name of Object.keys(EXPECTED_EXTRA)) {
  test(`${name}: every file rustc places in the crate is in Loupe's module tree, and only the cfg'd-out files beside them`, { timeout: 10 * 60_000 }, async (t) => {
    const { dir, pinned } = crateDir(name);
    const golden = JSON.parse(fs.readFileSync(goldenFile(name), 'utf8')) as RustcTree;
    let oracle = golden;
    if (rustc) {
      const live = rustcTree(dir, CRATES[name].root, rustc);
      if (pinned) assert.deepEqual(live, golden, `${goldenFile(name)} is not what rustc says now: node --import tsx bench/rust-modules.ts --golden ${name}`);
      oracle = live;
    } else if (!pinned) {
      t.diagnostic(`${name}: the pinned Debian version is gone from the archive and no rustc is installed; the golden tree is compared where its files still exist`);
      oracle = { ...golden, files: golden.files.filter((f) => fs.existsSync(path.join(dir, f))) };
    }
    assert.ok(oracle.files.length >= 25, `${oracle.files.length} files`);
    const ours = await loupeTree(dir, CRATES[name].root);
    assert.deepEqual(oracle.files.filter((f) => !ours.files.has(f)), [], 'files rustc places in the crate and Loupe does not');
    if (pinned) assert.deepEqual([...ours.files].filter((f) => !oracle.files.includes(f)).sort(), EXPECTED_EXTRA[name]);
  });
}
