import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { detectLanguageOf } from '../../server/engine/indexer/languages';
import { copyOf, debianPackage, debianPinned } from '../helpers/real-code';

// C/C++ includes without a compilation database, against the file the compiler opens (g++ -E -H). CI has no
// g++: its answers for googletest were recorded with g++ 12.2 in test/golden/includes/googletest-gxx.txt.
const GTEST = ['googletest', '1.12.1-0.2'] as const;
const JSON3 = ['nlohmann-json3-dev', '3.11.2-2'] as const;
const gtestRoot = () => path.join(debianPackage(...GTEST), 'usr/src/googletest');

interface Include { file: string; specifier: string; target: string | null; packageName: string | null }

async function includesOf(root: string): Promise<Include[]> {
  const out: Include[] = [];
  const walk = async (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(file);
      else if (/\.(h|hpp|cc|c)$/.test(e.name)) {
        const text = fs.readFileSync(path.join(root, file), 'utf8');
        const analysis = await analyzeWithTreeSitter(detectLanguageOf(e.name, text)!, file, text, root);
        for (const i of analysis.imports) out.push({ file, specifier: i.specifier, target: i.targetPath, packageName: i.packageName });
      }
    }
  };
  await walk('');
  return out;
}

const key = (i: { file: string; specifier: string }) => `${i.file} include ${i.specifier}`;

test('C++ without compile_commands.json: googletest\'s includes are the files g++ opens, googlemock\'s "gtest/gtest.h" in the sibling googletest/include', async () => {
  const root = gtestRoot();
  const oracle = new Map(fs.readFileSync(path.join(__dirname, '..', 'golden', 'includes', 'googletest-gxx.txt'), 'utf8')
    .split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(' -> ') as [string, string]));
  // g++ finds it through googlemock's -Igoogletest (the sibling project's root, not an include/ folder): not guessed.
  const missed = 'googlemock/test/gmock-internal-utils_test.cc include src/gtest-internal-inl.h';
  const includes = await includesOf(root);
  const pinned = debianPinned(...GTEST);
  const wrong: string[] = [];
  for (const i of includes) {
    // A newer release than the pin is held to the lines it still has; the pinned one to every line.
    if (!pinned && !oracle.has(key(i))) continue;
    const expected = key(i) === missed ? null : oracle.get(key(i)) ?? null;
    if (i.target !== expected) wrong.push(`${key(i)} -> ${i.target} (g++: ${oracle.get(key(i)) ?? 'outside'})`);
  }
  assert.deepEqual(wrong, []);
  const seen = new Set(includes.map(key));
  if (pinned) assert.deepEqual([...oracle.keys()].filter((k) => !seen.has(k)), []);
  const sibling = includes.filter((i) => i.file.startsWith('googlemock/') && i.target?.startsWith('googletest/include/'));
  assert.ok(sibling.length >= 30, `${sibling.length} googlemock includes of googletest/include`);
  assert.ok(sibling.some((i) => key(i) === 'googlemock/src/gmock_main.cc include gtest/gtest.h'));
});

test('C++: a path two include/ folders hold is left unresolved (googletest vendored twice), a project\'s own include/ still first', async () => {
  const root = copyOf(gtestRoot(), 'loupe-cpp-');
  fs.cpSync(path.join(root, 'googletest/include'), path.join(root, 'third_party/googletest/include'), { recursive: true });
  const includes = await includesOf(root);
  const of = (file: string, specifier: string) => includes.find((i) => i.file === file && i.specifier === specifier);
  assert.deepEqual(of('googlemock/src/gmock_main.cc', 'gtest/gtest.h'), { file: 'googlemock/src/gmock_main.cc', specifier: 'gtest/gtest.h', target: null, packageName: null });
  assert.equal(of('googletest/src/gtest.cc', 'gtest/gtest.h')?.target, 'googletest/include/gtest/gtest.h');
  assert.equal(of('googlemock/src/gmock_main.cc', 'gmock/gmock.h')?.target, 'googlemock/include/gmock/gmock.h');
});

test('C: a <name.h> without a folder is the toolchain\'s, even when one include/ folder of the repository has it', async (t) => {
  // Tiny fixture: no packaged project both vendors a libc header in an include/ folder and includes it elsewhere.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-c-inc-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [file, text] of Object.entries({
    'compat/include/stdio.h': '',
    'compat/include/compat/strl.h': '',
    'app/main.c': '#include <stdio.h>\n#include <compat/strl.h>\n',
  })) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  const includes = await includesOf(root);
  assert.deepEqual(includes.filter((i) => i.file === 'app/main.c').map((i) => `${i.specifier} -> ${i.target ?? `package ${i.packageName}`}`),
    ['<stdio.h> -> package stdio.h', '<compat/strl.h> -> compat/include/compat/strl.h']);
});

test('C++: nlohmann-json indexed at its include root: every <nlohmann/…> is the file from that root (as g++ -I usr/include opens it)', async () => {
  const root = path.join(debianPackage(...JSON3), 'usr/include');
  const includes = await includesOf(root);
  const own = includes.filter((i) => i.specifier.startsWith('<nlohmann/'));
  if (debianPinned(...JSON3)) assert.equal(own.length, 149);
  else assert.ok(own.length > 100, `${own.length} includes of nlohmann/`);
  // g++ -E -H -I usr/include opened nlohmann/<path> for each of the 149 (checked line by line with g++ 12.2).
  assert.deepEqual(own.filter((i) => i.target !== i.specifier.slice(1, -1)).map(key), []);
  // The standard library stays a package.
  const vector = includes.find((i) => i.specifier === '<vector>');
  assert.deepEqual([vector?.target, vector?.packageName], [null, 'vector']);
});
