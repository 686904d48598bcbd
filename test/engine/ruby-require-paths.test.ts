import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter, resetTreeSitterResolution } from '../../server/engine/indexer/parse-tree-sitter';
import { tempDir } from '../helpers/engine';

/**
 * A gem's load path is the `require_paths` its .gemspec assigns (RubyGems' default lib/ without one), in the
 * forms gemspecs write them: `%w[lib ext]`, a list of literals, and a list with an element built at run time,
 * which is left out. concurrent-ruby's `["lib/concurrent-ruby".freeze]` on real code: resolution-config.test.ts.
 */
async function requireTarget(gemspec: string | null, files: Record<string, string>, from: string): Promise<string | null> {
  const root = tempDir('loupe-require-paths-');
  try {
    for (const [rel, text] of Object.entries({ ...files, ...(gemspec === null ? {} : { 'x.gemspec': gemspec }) })) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    resetTreeSitterResolution(root);
    const analysis = await analyzeWithTreeSitter('ruby', from, files[from], root);
    return analysis.imports.find((i) => i.kind === 'require')?.targetPath ?? null;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const gem = { 'lib/x.rb': "require 'x/native'\n", 'ext/x/native.rb': 'module X; end\n', 'vendor/x/native.rb': 'module X; end\n' };

test('%w[lib ext] puts ext/ on the load path', async () => {
  assert.equal(await requireTarget("Gem::Specification.new do |s|\n  s.require_paths = %w[lib ext]\nend\n", gem, 'lib/x.rb'), 'ext/x/native.rb');
});

test('a list of literals, with an element built at run time left out', async () => {
  assert.equal(await requireTarget('Gem::Specification.new do |spec|\n  spec.require_paths = ["lib/#{spec.name}", \'vendor\'.freeze]\nend\n', gem, 'lib/x.rb'), 'vendor/x/native.rb');
});

test('without a gemspec, or one that does not say, lib/ alone', async () => {
  assert.equal(await requireTarget(null, gem, 'lib/x.rb'), null);
  assert.equal(await requireTarget('Gem::Specification.new { |s| s.name = "x" }\n', gem, 'lib/x.rb'), null);
});
