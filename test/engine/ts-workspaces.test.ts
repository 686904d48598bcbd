import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { findWorkspaces } from '../../server/engine/indexer/workspaces';

/**
 * test/fixtures/ts-workspace is shaped like a real monorepo that was cloned and never installed: a pnpm
 * workspace (globs with a `!` exclusion, packages resolved through `exports`, `types` and `main`), a
 * project found only through the root tsconfig's `references`, an app whose own tsconfig maps a package
 * to a shim, and a nested yarn workspace (`workspaces: { packages }`) of CommonJS files.
 */
let t: TestEngine;
before(() => { t = createTestEngine(); });
after(() => t.close());

type Edge = [from: string, specifier: string, target: string | null];

async function indexedEdges(folder: string): Promise<Edge[]> {
  const repo = await indexFolder(t, folder);
  const out: Edge[] = [];
  const graph = await t.engine.analysis.ctx.graph(repo.id);
  for (const { path: p } of graph.files) {
    const file = t.engine.filesStore.getByPath(repo.id, p)!;
    for (const i of t.engine.filesStore.imports(file.id)) out.push([file.path, i.specifier, i.targetPath]);
  }
  return out.sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));
}

/** Links every workspace package into its workspace's node_modules, as `npm install` (hoisted) does. */
function install(folder: string): void {
  for (const ws of findWorkspaces(folder)) {
    for (const [name, dir] of ws.packages) {
      const link = path.join(ws.dir, 'node_modules', name);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(path.relative(path.dirname(link), dir), link, 'dir');
    }
  }
}

/** The compiler's own answer on the installed folder: the nearest tsconfig, the real file system, symlinks followed. */
function compilerTarget(folder: string, from: string, specifier: string): string | null {
  const file = path.join(folder, from);
  const configFile = ts.findConfigFile(path.dirname(file), ts.sys.fileExists);
  let options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Node10 };
  if (configFile) {
    const read = ts.readConfigFile(configFile, ts.sys.readFile);
    options = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile), undefined, configFile).options;
  }
  const resolved = ts.resolveModuleName(specifier, file, { ...options, allowJs: true, resolveJsonModule: true }, ts.sys).resolvedModule;
  if (!resolved) return null;
  const rel = path.relative(fs.realpathSync(folder), fs.realpathSync(resolved.resolvedFileName));
  return rel.startsWith('..') || rel.split(path.sep).includes('node_modules') ? null : rel.split(path.sep).join('/');
}

test('workspace packages resolve to their sources as the compiler resolves them once installed', async () => {
  const folder = copyFixture('ts-workspace');
  const edges = await indexedEdges(folder);
  assert.deepEqual(edges, [
    ['apps/web/src/main.ts', '@acme/core', 'apps/web/src/core-shim.ts'], // the app's own tsconfig paths win
    ['apps/web/src/main.ts', '@acme/gen', 'tools/gen/src/index.ts'], // a project named only by tsconfig references
    ['apps/web/src/main.ts', '@acme/ui', 'packages/ui/src/index.ts'], // package.json `types`
    ['apps/web/src/main.ts', 'react', null],
    ['packages/core/src/index.ts', './types.js', 'packages/core/src/types.ts'],
    ['packages/core/src/index.ts', './utils/index.js', 'packages/core/src/utils/index.ts'],
    ['packages/ui/src/index.ts', '@acme/core', 'packages/core/src/index.ts'], // `exports` "." with the types condition
    ['packages/ui/src/index.ts', '@acme/core/utils', 'packages/core/src/utils/index.ts'], // an `exports` subpath
    ['packages/ui/src/index.ts', '@acme/legacy', null], // excluded by `!packages/legacy`
    ['yarn-app/libs/report/report.js', 'strings', 'yarn-app/libs/strings/index.js'], // nested yarn workspace, `main`
  ]);

  // The compiler agrees once the workspace is installed (packages symlinked into node_modules).
  install(folder);
  for (const [from, specifier, target] of edges) {
    assert.equal(compilerTarget(folder, from, specifier), target, `${from} → ${specifier}`);
  }
});

test('the radius of a core type crosses packages; an installed workspace gives the same graph', async () => {
  const folder = copyFixture('ts-workspace');
  const repo = await indexFolder(t, folder);
  const dependentsOf = async (repoId: string, file: string) => {
    const graph = await t.engine.analysis.ctx.graph(repoId);
    return graph.dependents([graph.indexOfPath.get(file)!]).map((d) => graph.path(d.file)).sort();
  };
  assert.deepEqual(await dependentsOf(repo.id, 'packages/core/src/types.ts'), [
    'apps/web/src/main.ts', 'packages/core/src/index.ts', 'packages/ui/src/index.ts',
  ]);

  const installed = copyFixture('ts-workspace');
  install(installed);
  const other = await indexFolder(t, installed);
  assert.deepEqual(await dependentsOf(other.id, 'packages/core/src/types.ts'), await dependentsOf(repo.id, 'packages/core/src/types.ts'));
  assert.deepEqual(await indexedEdges(installed), await indexedEdges(folder));
});
