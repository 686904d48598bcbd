import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { languageOf } from '../../server/engine/indexer/languages';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { debianPackage, within } from '../helpers/real-code';

/** Thor 1.2.1 (Debian 12's ruby-thor): its autoloads and its executable, bin/thor. */
const THOR = ['ruby-thor', '1.2.1-2'] as const;
const thorGem = () => within(debianPackage(...THOR), 'usr/share/rubygems-integration/all/gems/thor-*');

async function edgesOf(root: string, file: string): Promise<string[]> {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const analysis = await analyzeWithTreeSitter('ruby', file, text, root);
  return analysis.imports.map((i) => `${i.kind} ${i.specifier} -> ${i.targetPath}`);
}

test('Ruby: a path built from the file\'s own place (File.expand_path("x", __dir__), "../x" from __FILE__, File.join(__dir__, …)) is one beside it', async () => {
  const thor = thorGem();
  // thor/base.rb:12-14 `autoload :Actions, File.expand_path("actions", __dir__)`, and thor/shell.rb:27-29.
  const base = await edgesOf(thor, 'lib/thor/base.rb');
  for (const name of ['actions', 'rake_compat', 'group']) assert.ok(base.includes(`require-relative ${name} -> lib/thor/${name}.rb`), base.join('\n'));
  const shell = await edgesOf(thor, 'lib/thor/shell.rb');
  for (const name of ['basic', 'color', 'html']) assert.ok(shell.includes(`require-relative shell/${name} -> lib/thor/shell/${name}.rb`), shell.join('\n'));
  // File.expand_path(f) of a value (runner.rb) is only known at run time.
  assert.ok(!(await edgesOf(thor, 'lib/thor/runner.rb')).some((e) => e.includes('undefined')));

  // The older spellings, which no Debian Ruby package cached here writes, on a tiny tree; none leaves the root.
  const root = tempDir('loupe-rb-paths-');
  fs.mkdirSync(path.join(root, 'lib/app/parts'), { recursive: true });
  for (const f of ['lib/app/a.rb', 'lib/app/parts/b.rb', 'lib/c.rb']) fs.writeFileSync(path.join(root, f), '');
  fs.writeFileSync(path.join(root, 'lib/app/main.rb'), [
    'require File.expand_path("../a", __FILE__)',
    "require ::File.join(File.dirname(__FILE__), 'parts', 'b')",
    'load File.expand_path("../c.rb", __dir__)',
    'require File.expand_path("../../c", __FILE__)',
    'require File.expand_path("../../../../etc/passwd", __FILE__)',
    'require File.expand_path("a", __FILE__)',
    'require File.join(__dir__, name)',
    '',
  ].join('\n'));
  assert.deepEqual(await edgesOf(root, 'lib/app/main.rb'), [
    'require-relative a -> lib/app/a.rb',
    'require-relative parts/b -> lib/app/parts/b.rb',
    'require-relative ../c.rb -> lib/c.rb',
    'require-relative ../c -> lib/c.rb',
    'require-relative ../../../etc/passwd -> null',
  ]);
});

test('an executable without an extension is parsed by its #! line: bin/thor is Ruby, requires thor/runner, and is an entry point, after a restart and an edit too', async (t) => {
  assert.equal(languageOf('thor', '#!/usr/bin/env ruby\n'), 'ruby');
  assert.equal(languageOf('tool', '#!/usr/bin/python3.11 -u\n'), 'python');
  assert.equal(languageOf('cli', '#!/usr/bin/env -S node --no-warnings\n'), 'javascript');
  assert.equal(languageOf('run', '#!/bin/sh\n'), null, 'shell is not parsed');
  assert.equal(languageOf('notes.txt', '#!/usr/bin/env ruby\n'), 'text', 'an extension decides');
  assert.equal(languageOf('LICENSE', 'MIT\n'), null);

  const root = path.join(tempDir('loupe-thor-'), 'thor');
  fs.cpSync(thorGem(), root, { recursive: true });
  const first = createTestEngine();
  let repo: Awaited<ReturnType<typeof indexFolder>>;
  const check = async (engine: typeof first.engine, when: string) => {
    const file = engine.filesStore.getByPath(repo.id, 'bin/thor');
    assert.equal(file?.language, 'ruby', when);
    const edges = engine.filesStore.imports(file!.id).map((i) => `${i.specifier} -> ${i.targetPath}`);
    assert.ok(edges.includes('thor/runner -> lib/thor/runner.rb'), `${when}: ${edges.join(', ')}`);
    const doc = (await engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false })).documentation;
    const entries = doc.split('## Entry points')[1]?.split('\n## ')[0] ?? '';
    assert.match(entries, /`bin\/thor`/, `${when}: ${entries}`);
  };
  try {
    repo = await indexFolder(first, root);
    await check(first.engine, 'first run');
  } finally {
    await first.close();
  }

  // A restart with nothing changed trusts the stored rows; a watcher's event parses the file again.
  const again = createTestEngine({ dataDir: first.dataDir });
  t.after(() => again.close());
  repo = await indexFolder(again, root);
  await check(again.engine, 'restart');
  fs.appendFileSync(path.join(root, 'bin/thor'), '# edited\n');
  const edit = await again.engine.ops.indexing.applyChanges(repo.id, ['bin/thor']);
  assert.equal(edit.kind === 'updated' && edit.result.changed, 1);
  await check(again.engine, 'edit');
});
