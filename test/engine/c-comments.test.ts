import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { cleanComment } from '../../server/engine/indexer/tree-sitter/source';
import { debianPackage } from '../helpers/real-code';

/**
 * Lua 5.4's headers (Debian liblua5.4-dev) write block comments with `** ` at each line, and open each file with
 * `$Id: lauxlib.h $ / Auxiliary functions for building Lua libraries / See Copyright Notice in lua.h`. Before, docs
 * kept the stars ("** Pseudo-indices") and no header had a description (the comment names the copyright).
 */
test('C: `** ` comment lines and the words before a copyright line (lua 5.4 headers)', async () => {
  const root = path.join(debianPackage('liblua5.4-dev', '5.4.4-3+deb12u1'), 'usr/include/lua5.4');
  const parse = async (file: string) => analyzeWithTreeSitter('c', file, fs.readFileSync(path.join(root, file), 'utf8'), root);
  const lauxlib = await parse('lauxlib.h');
  assert.equal(lauxlib.description, 'Auxiliary functions for building Lua libraries');
  assert.equal((await parse('luaconf.h')).description, 'Configuration file for Lua');
  const lua = await parse('lua.h');
  assert.match(lua.symbols.find((s) => s.name === 'LUA_REGISTRYINDEX')!.doc!, /^Pseudo-indices\n\(-LUAI_MAXSTACK/);
  assert.ok(!lua.symbols.some((s) => s.doc?.includes('** ')), 'no doc keeps the stars');
  // Markdown bold at a line's start is text, not a comment marker; a bare name above a license is no description.
  assert.equal(cleanComment('/**\n * **Note:** keep this\n */'), '**Note:** keep this');
  const banner = await analyzeWithTreeSitter('c', 'x.c', '/*\n** libfoo\n** Copyright (C) 2020 Someone\n*/\nint x;\n', root);
  assert.equal(banner.description, null);
});
