import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { npmPackage, within } from '../helpers/real-code';
import { tempDir } from '../helpers/engine';

/**
 * The compiler's resolution cache keeps every answer with the list of paths it probed (for a watching
 * compiler). A parse worker resolves every import of half a repository through it: on payload those lists
 * were most of each worker's heap. The resolver keeps the answers and lets the lists go.
 */
test('module resolution keeps its answers, not the paths it probed for them', () => {
  // hono's TypeScript sources, imports between them and of packages that are not installed.
  const root = path.join(tempDir('loupe-resolver-'), 'hono');
  fs.cpSync(npmPackage('hono@4.13.19'), root, { recursive: true });
  const resolver = new ModuleResolver(root);
  const from = 'dist/types/hono.d.ts';
  assert.ok(fs.existsSync(within(root, from)));
  const local = resolver.resolve(from, './hono-base');
  assert.equal(local.targetPath, 'dist/types/hono-base.d.ts');
  const missing = resolver.resolve(from, 'left-pad-not-installed');
  assert.deepEqual(missing, { targetPath: null, packageName: 'left-pad-not-installed' });

  // Asked again, from the cache: the same answers, and what the cache holds has no list of probes.
  assert.deepEqual(resolver.resolve(from, './hono-base'), local);
  assert.deepEqual(resolver.resolve(from, 'left-pad-not-installed'), missing);
  const configs = (resolver as unknown as { configs: Map<string, { options: ts.CompilerOptions; cache: ts.ModuleResolutionCache }> }).configs;
  assert.ok(configs.size > 0);
  const directory = path.dirname(within(root, from));
  let entries = 0;
  for (const { cache } of configs.values()) {
    for (const name of ['./hono-base', 'left-pad-not-installed']) {
      const entry = cache.getFromDirectoryCache(name, undefined, directory, undefined) as { failedLookupLocations?: string[]; affectingLocations?: string[] } | undefined;
      if (!entry) continue;
      entries++;
      assert.equal(entry.failedLookupLocations, undefined, `${name}: ${entry.failedLookupLocations?.length} probed paths kept`);
      assert.equal(entry.affectingLocations, undefined, `${name}: affecting locations kept`);
    }
  }
  assert.equal(entries, 2, 'both answers are in the cache');
});
