import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import type { ParsedSymbol } from '../../server/engine/types';
import { debianPackage, within } from '../helpers/real-code';

// bytes 1.2.1, anyhow 1.0.69 and tokio 1.24.2 as Debian ships them (librust-*-dev), read for the parents of methods.
const crate = (pkg: string, version: string, dir: string) => within(debianPackage(pkg, version), `usr/share/cargo/registry/${dir}-*`);
const BYTES = crate('librust-bytes-dev', '1.2.1-1', 'bytes');
const ANYHOW = crate('librust-anyhow-dev', '1.0.69-1', 'anyhow');
const TOKIO = crate('librust-tokio-dev', '1.24.2-1', 'tokio');

const symbolsOf = async (root: string, file: string): Promise<ParsedSymbol[]> =>
  (await analyzeWithTreeSitter('rust', file, fs.readFileSync(path.join(root, file), 'utf8'), root)).symbols;
const show = (s: ParsedSymbol) => `${s.startLine} ${s.kind} ${s.parent ?? ''}.${s.name}`;
const at = (symbols: ParsedSymbol[], ...lines: number[]) => symbols.filter((s) => lines.includes(s.startLine)).map(show);

test('Rust: the methods of an impl for a reference, slice, primitive, tuple or qualified generic type have it for parent', async () => {
  // bytes src/buf/buf_impl.rs:1021 `impl Buf for &[u8] { fn remaining(&self) … fn chunk … fn advance … }`: named `[u8]`
  // as rustdoc shows the type (a slice, on the slice's page); the `&` is left out as for `&'a T`.
  assert.deepEqual(at(await symbolsOf(BYTES, 'src/buf/buf_impl.rs'), 1022, 1027, 1032, 1040),
    ['1022 method [u8].remaining', '1027 method [u8].chunk', '1032 method [u8].advance', '1040 method Cursor.remaining']);
  // bytes src/bytes.rs: `impl<'a> IntoIterator for &'a Bytes` (612), `impl PartialEq<Bytes> for str` (685), `… for &str` (757).
  assert.deepEqual(at(await symbolsOf(BYTES, 'src/bytes.rs'), 616, 662, 686, 746, 758),
    ['616 method Bytes.into_iter', '662 method [u8].eq', '686 method str.eq', '746 method [u8].eq', '758 method str.eq']);
  // anyhow src/error.rs:956 `impl From<Error> for Box<dyn StdError + Send + Sync + 'static>`: Box, as `Vec<T>` is Vec;
  // src/ensure.rs:29 `impl<A, B> NotBothDebug for &(A, B)`: the tuple as written.
  assert.deepEqual(at(await symbolsOf(ANYHOW, 'src/error.rs'), 957, 969), ['957 method Box.from', '969 method Box.from']);
  assert.deepEqual(at(await symbolsOf(ANYHOW, 'src/ensure.rs'), 19, 30), ['19 method (A, B).__dispatch_ensure', '30 method (A, B).__dispatch_ensure']);
  // tokio src/process/unix/mod.rs:171 `impl<'a> io::Read for &'a Pipe`; src/io/async_read.rs:108 `… for io::Cursor<T>`.
  assert.deepEqual(at(await symbolsOf(TOKIO, 'src/process/unix/mod.rs'), 172, 178), ['172 method Pipe.read', '178 method Pipe.write']);
  assert.deepEqual(at(await symbolsOf(TOKIO, 'src/io/async_read.rs'), 95, 109), ['95 method [u8].poll_read', '109 method Cursor.poll_read']);
});

test('Rust: every fn written in a top-level impl block of bytes, anyhow and tokio is a method with a parent', async () => {
  const loose: string[] = [];
  let count = 0;
  for (const root of [BYTES, ANYHOW, TOKIO]) {
    const walk = async (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) { await walk(rel); continue; }
        if (!rel.endsWith('.rs')) continue;
        // From the text: `impl… {` at the start of a line up to the `}` closing it, and the `fn`s one level in
        // (not those commented out: tokio's sync/task/atomic_waker.rs:149 `/* … fn register … */`).
        const lines = fs.readFileSync(path.join(root, rel), 'utf8').replace(/\/\*[^]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).split('\n');
        const fns: [number, string][] = [];
        for (let i = 0, inImpl = false; i < lines.length; i++) {
          if (/^impl\b.*\{\s*$/.test(lines[i])) inImpl = true;
          else if (lines[i] === '}') inImpl = false;
          const m = inImpl ? /^ {4}(?:pub(?:\([\w ]+\))? )?(?:const )?(?:async )?(?:unsafe )?fn (\w+)/.exec(lines[i]) : null;
          if (m) fns.push([i + 1, m[1]]);
        }
        if (!fns.length) continue;
        const symbols = await symbolsOf(root, rel);
        for (const [line, name] of fns) {
          count++;
          if (!symbols.some((s) => s.name === name && s.kind === 'method' && s.parent && s.startLine <= line && s.endLine >= line)) loose.push(`${path.basename(root)}/${rel}:${line} ${name}`);
        }
      }
    };
    await walk('src');
  }
  assert.ok(count > 2000, `${count} fns in impls`);
  // Before: 73 of the 2292 were functions without a parent, in impls for `&[u8]`, `&'a Pipe`, `str`, `(IpAddr, u16)`, `io::Cursor<T>`.
  assert.deepEqual(loose, []);
});

test('Rust: an impl of a trait object is named by its trait (rustdoc lists `impl dyn Error` on the trait\'s page)', async () => {
  // No crate at hand writes one; std's `impl dyn Error + Send { pub fn downcast… }` is the case.
  const text = 'trait Shape {}\nimpl dyn Shape + Send {\n    pub fn area(&self) -> f64 { 0.0 }\n}\nimpl Shape for fn(u8) -> u8 {\n    fn g() {}\n}\n';
  const symbols = (await analyzeWithTreeSitter('rust', 'src/lib.rs', text, '/nonexistent')).symbols;
  assert.deepEqual(symbols.map(show), ['1 trait .Shape', '3 method Shape.area', '6 method fn(u8) -> u8.g']);
});
