import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

/**
 * The blueprint's install, build and test commands for JavaScript workspaces. Payload (pnpm, a workspace of
 * 60 packages beside examples with their own installs) was told `npm install` in every package.json's folder and
 * `npm run build`; it is `pnpm install` at the root, the examples apart, and `pnpm run build`. The members here are
 * real packages' package.json files (hono, date-fns and phaser from npm); the workspace roots around them are the
 * shapes pnpm, npm and yarn document.
 */
let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

/** A package.json from npm in a folder, with the file its `main` names. */
function member(root: string, folder: string, pkg: string) {
  const manifest = path.join(npmPackage(pkg), 'package.json');
  const main = path.join(root, folder, (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { main: string }).main);
  fs.mkdirSync(path.dirname(main), { recursive: true });
  fs.copyFileSync(manifest, path.join(root, folder, 'package.json'));
  fs.writeFileSync(main, 'export const x = 1;\n');
}

let doc = '';
let dependencies: { name: string; type: string; manifest: string | null }[] = [];
let untested: string[] = [];
async function buildAndTest(root: string): Promise<Record<string, string>> {
  const repo = await indexFolder(t, root);
  untested = (await t.engine.analysis.coverageGaps(repo, { limit: 100, offset: 0 })).untested_files.map((f) => f.file_path);
  const result = await t.engine.analysis.blueprint(repo, { symbolLimit: 0, conventions: false });
  doc = result.documentation;
  dependencies = result.dependencies;
  const section = doc.split('## Build and test')[1].split('\n## ')[0];
  return Object.fromEntries([...section.matchAll(/^- (install|build|test): (.*)$/gm)].map((m) => [m[1], m[2]]));
}

test('a pnpm workspace installs once at its root with pnpm; a package outside it, and one it excludes, on their own', async () => {
  const root = path.join(tempDir('loupe-pnpm-'), 'cms');
  member(root, 'packages/hono', 'hono@4.13.19');
  member(root, 'packages/date-fns', 'date-fns@4.1.0');
  member(root, 'packages/legacy', 'phaser@3.90.0');
  member(root, 'examples/site', 'hono@4.13.19');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({
    name: 'cms-monorepo', private: true, packageManager: 'pnpm@9.15.0', scripts: { build: 'turbo build', test: 'vitest' },
    // The workspace's own packages, as payload's root and test/ declare theirs; phaser (packages/legacy) needs eventemitter3 to run.
    devDependencies: { hono: 'workspace:*', 'date-fns': 'workspace:*', eventemitter3: '^5.0.1' },
  }, null, 2));
  fs.writeFileSync(path.join(root, 'packages/legacy/src/events.js'), "import EventEmitter from 'eventemitter3';\nexport const events = new EventEmitter();\n");
  fs.writeFileSync(path.join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\n  - '!packages/legacy'\n");
  // The example names its own manager, as payload's templates do.
  const site = JSON.parse(fs.readFileSync(path.join(root, 'examples/site/package.json'), 'utf8'));
  fs.writeFileSync(path.join(root, 'examples/site/package.json'), JSON.stringify({ ...site, packageManager: 'yarn@4.5.0' }, null, 2));
  const commands = await buildAndTest(root);
  assert.equal(commands.install, '`pnpm install`, `cd examples/site && yarn install`, `cd packages/legacy && pnpm install`');
  assert.match(commands.build, /^`pnpm run build`/);
  assert.match(commands.test, /^`pnpm test`/);
  assert.doesNotMatch(`${commands.build} ${commands.test}`, /`npm /);
  // Its own packages are not its dependencies; a runtime dependency of a member is one, whatever the root says.
  assert.deepEqual(dependencies.filter((d) => ['hono', 'date-fns'].includes(d.name)), []);
  assert.deepEqual(dependencies.find((d) => d.name === 'eventemitter3'), { ...dependencies.find((d) => d.name === 'eventemitter3'), type: 'package', manifest: 'packages/legacy/package.json' });
  // Entry points: the workspace's packages before the example.
  const entries = doc.split('## Entry points')[1].split('\n## ')[0].split('\n').filter((l) => l.startsWith('- `'));
  const example = entries.findIndex((l) => l.startsWith('- `examples/'));
  assert.ok(example > 0 && entries.slice(example).every((l) => l.startsWith('- `examples/')), entries.join('\n'));
  // Coverage gaps too: the example's untested file after the packages' (alphabetically it came first).
  const gap = untested.findIndex((p) => p.startsWith('examples/'));
  assert.ok(gap > 0 && untested.slice(gap).every((p) => p.startsWith('examples/')), untested.join(', '));
});

test('npm workspaces (package.json `workspaces`, `{ packages }` too) install once with npm', async () => {
  const root = path.join(tempDir('loupe-npm-ws-'), 'tools');
  member(root, 'libs/hono', 'hono@4.13.19');
  member(root, 'libs/date-fns', 'date-fns@4.1.0');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'tools', private: true, workspaces: { packages: ['libs/*'] }, scripts: { test: 'node --test' } }));
  const commands = await buildAndTest(root);
  assert.equal(commands.install, '`npm install`');
  assert.match(commands.test, /^`npm test`/);
});
