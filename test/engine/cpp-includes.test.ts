import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { detectLanguageOf } from '../../server/engine/indexer/languages';
import { debianPackage, debianPinned } from '../helpers/real-code';

// C/C++ includes without a compilation database, against the file the compiler opens (g++ -E -H). CI has no
// g++: its answers were recorded with g++ 12.2.
const JSON3 = ['nlohmann-json3-dev', '3.11.2-2'] as const;

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
