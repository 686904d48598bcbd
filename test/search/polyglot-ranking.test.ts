import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestEngine, type TestEngine } from '../helpers/engine';
import { hybridSearch, indexCorpora } from '../helpers/search-corpora';
import { copyOf, debianPackage, within } from '../helpers/real-code';
import { fileRole } from '../../server/engine/search/file-role';
import { symbolNamed, writtenAsName } from '../../server/engine/search/hybrid';
import type { SearchRequest } from '../../server/engine/search/types';

/**
 * Questions in words on real Ruby and Go code nobody here wrote (sinatra 3.0.5, cobra 1.6.1 from Debian), searched
 * hybrid with their vectors: a query's last word is not a name "under another qualifier" unless the query is written
 * as a name (search/hybrid.ts, writtenAsName).
 */
let t: TestEngine;
const repo = { sinatra: '', cobra: '' };

before(async () => {
  t = createTestEngine();
  const folders = {
    sinatra: copyOf(within(debianPackage('ruby-sinatra', '3.0.5-3+deb12u1'), 'usr/share/rubygems-integration/all/gems/sinatra-*')),
    cobra: copyOf(path.join(debianPackage('golang-github-spf13-cobra-dev', '1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra')),
  };
  Object.assign(repo, await indexCorpora(t, folders));
});
after(async () => { await t?.close(); });

const search = (where: keyof typeof repo, query: string, more: Partial<SearchRequest> = {}) => hybridSearch(t, repo[where], query, more);

test('sinatra: "render a template" finds the Templates module in base.rb first, not the files defining a `template` of their own', async () => {
  // Before: "renderatemplate" ends with `template`, so ShowExceptions#template and Base.template were taken as the
  // name asked for under another qualifier and doubled: show_exceptions.rb came first.
  assert.equal((await search('sinatra', 'render a template'))[0].filePath, 'lib/sinatra/base.rb');
  assert.equal((await search('sinatra', 'how are templates rendered'))[0].filePath, 'lib/sinatra/base.rb');
});

test('cobra: "help command" is not answered first by the Command type its last word names', async () => {
  // "helpcommand" ends with `Command`: taken as that name under another qualifier, the Command struct's chunk (no word
  // of help) came first with cobra indexed alone; here, beside sinatra, it held before the fix too (a guard).
  const code = await search('cobra', 'help command', { scope: 'code' });
  assert.ok(!code[0].snippet?.text.includes('type Command struct'), `first hit ${code[0].filePath}:${code[0].startLine} is the Command type`);
  assert.ok((await search('cobra', 'help command')).slice(0, 3).some((h) => h.filePath === 'command.go'));
});

test('a name under another qualifier: written as a name, or with the words before it ending the owner\'s name', () => {
  assert.equal(writtenAsName('Flask.dispatch_request'), true);
  assert.equal(writtenAsName('Engine ServeHTTP'), true);
  assert.equal(writtenAsName('render a template'), false);
  assert.equal(writtenAsName('How is the help command generated?'), false);
  assert.equal(symbolNamed('flaskdispatchrequest', 'dispatch_request', 'View', true), 1);
  assert.equal(symbolNamed('renderatemplate', 'template', 'ShowExceptions', false), 0);
  assert.equal(symbolNamed('helpcommand', 'Command', null, false), 0);
  // DefaultJSONProvider.dumps for "json provider dumps": the words before `dumps` end its owner's name.
  assert.equal(symbolNamed('jsonproviderdumps', 'dumps', 'DefaultJSONProvider', false), 1);
});

test('Lua keeps its test suite in testes/: a test file, ranked below lstring.c for "how are short strings interned"', () => {
  // Lua 5.4's sources (lua/lua) are in no Debian or npm package (liblua5.4-dev has the public headers only): the path
  // alone. Before, testes/strings.lua came first for that question, above lstring.h, lobject.h and lstring.c.
  assert.equal(fileRole('testes/strings.lua'), 'test');
  assert.equal(fileRole('lstring.c'), null);
});
