import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { debianPackage } from '../helpers/real-code';

// Lua's public headers (liblua5.4-dev): every API function is declared behind an export macro, its name in
// parentheses so a function-like macro of the same name is not expanded: `LUA_API int (lua_gettop) (lua_State *L);`.
const LUA = path.join(debianPackage('liblua5.4-dev', '5.4.4-3+deb12u1'), 'usr/include/lua5.4');

const symbolsOf = async (root: string, file: string) =>
  (await analyzeWithTreeSitter('c', file, fs.readFileSync(path.join(root, file), 'utf8'), root)).symbols;

test('C: a function declared behind an export macro is named by its own identifier, not by its return type (lua.h, lauxlib.h, lualib.h)', async () => {
  for (const file of ['lua.h', 'lauxlib.h', 'lualib.h']) {
    const text = fs.readFileSync(path.join(LUA, file), 'utf8');
    // What the header declares, read from its text: `LUA_API <type> [*](name) (`.
    const declared = [...text.matchAll(/^LUA(?:LIB|MOD)?_API\b[^;(]*\((\w+)\)\s*\(/gm)].map((m) => m[1]).sort();
    assert.ok(declared.length >= 10, `${file}: ${declared.length} declarations`);
    const symbols = await symbolsOf(LUA, file);
    const functions = symbols.filter((s) => s.kind === 'function' && declared.includes(s.name));
    assert.deepEqual(functions.map((s) => s.name).sort(), declared, file);
    // C has no classes: a return type is never a function's parent.
    assert.deepEqual(symbols.filter((s) => s.parent && ['function', 'method', 'variable'].includes(s.kind)).map((s) => `${s.kind} ${s.parent}.${s.name}`), [], file);
  }
  const lua = await symbolsOf(LUA, 'lua.h');
  for (const name of ['lua_gettop', 'lua_version', 'lua_newstate', 'lua_typename', 'lua_touserdata']) {
    assert.deepEqual(lua.filter((s) => s.name === name).map((s) => `${s.kind} ${s.parent ?? ''}`), ['function '], name);
  }
});

test('C: an export macro before an unparenthesized name and pointers to functions (lua\'s ldo.h and lua.c lines)', async (t) => {
  // liblua5.4-dev ships only the public headers; these lines are from lua 5.4's internal ldo.h and lua.c.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-c-decl-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'ldo.h'), [
    'LUAI_FUNC l_noret luaD_throw (lua_State *L, int errcode);',
    'LUAI_FUNC int luaD_rawrunprotected (lua_State *L, Pfunc f, void *ud);',
    'static char *(*l_getenv)(const char *name);',
    'void (*signal(int sig, void (*func)(int)))(int);',
    '',
  ].join('\n'));
  const symbols = (await symbolsOf(root, 'ldo.h')).map((s) => `${s.kind} ${s.parent ? `${s.parent}.` : ''}${s.name}`);
  assert.deepEqual(symbols, ['function luaD_throw', 'function luaD_rawrunprotected', 'variable l_getenv', 'function signal']);
});

test('C++: qualified definitions keep their class', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-cpp-decl-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'foo.cpp'), [
    'int ns::Foo::bar() { return 0; }',
    'std::string& Foo::name() const { static std::string s; return s; }',
    'template <typename T> T Vec<T>::length() const { return 0; }',
    'int ns::Foo::count = 0;',
    '',
  ].join('\n'));
  const symbols = (await analyzeWithTreeSitter('cpp', 'foo.cpp', fs.readFileSync(path.join(root, 'foo.cpp'), 'utf8'), root)).symbols;
  assert.deepEqual(symbols.map((s) => `${s.kind} ${s.parent}.${s.name}`), ['method Foo.bar', 'method Foo.name', 'method Vec.length', 'variable Foo.count']);
});

test('C: a struct\'s fields are properties, `const char *name` included (a pointer to constant text, itself a field); a const array is a constant (lua.h, lauxlib.h)', async () => {
  const lua = await symbolsOf(LUA, 'lua.h');
  // struct lua_Debug { int event; const char *name; const char *namewhat; const char *what; const char *source; size_t srclen; …
  const debug = lua.filter((s) => s.parent === 'lua_Debug');
  assert.deepEqual(debug.slice(0, 6).map((s) => `${s.kind} ${s.name}`), ['property event', 'property name', 'property namewhat', 'property what', 'property source', 'property srclen']);
  assert.deepEqual(debug.filter((s) => s.kind !== 'property').map((s) => s.name), []);
  // extern const char lua_ident[];
  assert.deepEqual(lua.filter((s) => s.name === 'lua_ident').map((s) => s.kind), ['constant']);
  // typedef struct luaL_Reg { const char *name; lua_CFunction func; } luaL_Reg;
  // (one struct, the typedef's: not a second struct luaL_Reg inside it)
  const lauxlib = await symbolsOf(LUA, 'lauxlib.h');
  assert.deepEqual(lauxlib.filter((s) => s.name === 'luaL_Reg' || s.parent === 'luaL_Reg').map((s) => `${s.kind} ${s.parent ? `${s.parent}.` : ''}${s.name}`),
    ['struct luaL_Reg', 'property luaL_Reg.name', 'property luaL_Reg.func']);
});
