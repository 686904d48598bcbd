import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';

/**
 * The blueprint's top symbols, entry points and commands where imports name nothing (Go packages, C headers)
 * and where a manifest is not the project's (a docs site's Gemfile). On real code from Debian.
 */
let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

const section = (doc: string, title: string) => doc.split(`## ${title}`)[1]?.split('\n## ')[0] ?? '';

test('Go: cobra 1.6.1\'s top symbol is its Command struct, counted from the files that write cobra.Command', async () => {
  const root = copyOf(path.join(debianPackage('golang-github-spf13-cobra-dev', '1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra'), 'loupe-cobra-');
  const repo = await indexFolder(t, root);
  const { symbols } = await t.engine.analysis.blueprint(repo, { symbolLimit: 10, conventions: false });
  assert.deepEqual(symbols.slice(0, 1).map((s) => [s.kind, s.name, s.file_path]), [['struct', 'Command', 'command.go']], JSON.stringify(symbols));
  // doc/ is another package: its files count only where they write cobra.Command (each of its 6 source files does).
  assert.ok(symbols[0].used_by >= 20, JSON.stringify(symbols[0]));
});

test('C: libxcrypt\'s symbols come from the headers its files include; gen-des-tables.c defines main(); a lowercase makefile builds', async () => {
  const root = path.join(tempDir('loupe-xcrypt-'), 'libxcrypt');
  fs.cpSync(path.join(debianPackage('libxcrypt-source', '1:4.4.33-2'), 'usr/src/libxcrypt/lib'), path.join(root, 'lib'), { recursive: true });
  // GNU make reads `makefile` before `Makefile` (lua's is one); libxcrypt has only Makefile.am, so this one is written here.
  fs.writeFileSync(path.join(root, 'makefile'), 'CFLAGS = -O2\n\nall: libcrypt.a\n\nlibcrypt.a: $(patsubst %.c,%.o,$(wildcard lib/*.c))\n\tar rcs $@ $^\n\ntest: all\n\t./run-tests\n');
  const repo = await indexFolder(t, root);
  const { symbols, documentation } = await t.engine.analysis.blueprint(repo, { symbolLimit: 10, conventions: false });
  assert.ok(symbols.length >= 5, JSON.stringify(symbols));
  assert.ok(symbols.every((s) => s.file_path.endsWith('.h') && s.used_by > 1), JSON.stringify(symbols));
  assert.match(section(documentation, 'Entry points'), /`lib\/gen-des-tables\.c` \(defines main\(\)\)/);
  assert.match(section(documentation, 'Build and test'), /- build: `make all`/);
  assert.match(section(documentation, 'Build and test'), /- test: `make test`/);
});

test('PHP: league/commonmark\'s docs/Gemfile (its docs site) gives no Ruby build or test, only its install in docs/', async () => {
  const root = path.join(tempDir('loupe-commonmark-'), 'commonmark');
  fs.cpSync(path.join(debianPackage('php-league-commonmark', '2.3.9-1+deb12u1'), 'usr/share/php/League/CommonMark'), path.join(root, 'src'), { recursive: true });
  // The upstream repository's layout (Debian ships neither file): composer.json at the root, the Jekyll site's Gemfile in docs/.
  fs.writeFileSync(path.join(root, 'composer.json'), JSON.stringify({ name: 'league/commonmark', require: { php: '^7.4 || >=8.0' }, scripts: { test: ['@phpunit'] } }));
  fs.mkdirSync(path.join(root, 'docs'));
  fs.writeFileSync(path.join(root, 'docs/Gemfile'), "source 'https://rubygems.org'\ngem 'jekyll'\ngem 'jekyll-github-metadata'\ngem 'jekyll-redirect-from'\ngem 'faraday-retry'\n");
  const repo = await indexFolder(t, root);
  const commands = section((await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false })).documentation, 'Build and test');
  assert.match(commands, /- install: `composer install`, `cd docs && bundle install`/);
  assert.doesNotMatch(commands, /rake|- build: .*bundle/, commands);
  assert.match(commands, /- test: `composer run test`/);
});
