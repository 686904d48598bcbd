import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, dependentsOf, indexedRepo, type TestEngine } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

/**
 * `/// <reference types="node" />` puts a package of types in the compiler's program: a dependency of the file,
 * erased at run time. Before, only `/// <reference path>` was read, and a radius of @types/node missed these files.
 */

// undici-types (real code from npm): eight of its declaration files start with `/// <reference types="node" />`.
const UNDICI_TYPES = 'undici-types@6.21.0';
const REPO_ROOT = path.join(__dirname, '..', '..');

/** The files of `dir` holding `/// <reference types="node" />`, read from the files themselves. */
function referencing(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.d.ts') && /^\/\/\/ <reference types="node" \/>/m.test(fs.readFileSync(path.join(dir, f), 'utf8'))).sort();
}

/** What each file's `/// <reference types="node" />` resolves to: `file -> path` or `file -> (package)`. */
function typeReferences(t: TestEngine, repoId: string): string[] {
  return t.engine.filesStore.staleImports(repoId, ['typescript']).filter((i) => i.kind === 'types' && i.specifier === 'node')
    .map((i) => `${i.filePath} -> ${i.targetPath ?? `(${i.packageName})`}`).sort();
}

function addToManifest(dir: string, extra: Record<string, unknown>): void {
  const file = path.join(dir, 'package.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), ...extra }, null, 2));
}

test('a `/// <reference types>` is a dependency on the package the compiler finds, or the manifest declares', async () => {
  const source = npmPackage(UNDICI_TYPES);
  const files = referencing(source);
  assert.equal(files.length, 8, `${UNDICI_TYPES}: ${files.join(', ')}`);
  const resolvingTo = (target: string) => files.map((f) => `${f} -> ${target}`);
  const t = await createTestApp();
  try {
    // Neither installed nor declared: the name's own package, no guess.
    const bare = copyOf(source);
    const bareRepo = await indexedRepo(t, bare);
    assert.deepEqual(typeReferences(t, bareRepo), resolvingTo('(node)'));

    // @types/node declared afterwards: the package.json's change resolves the unchanged files again.
    addToManifest(bare, { devDependencies: { '@types/node': '*' } });
    await t.engine.indexer.updatePaths(t.engine.reposStore.get(bareRepo)!, ['package.json']);
    assert.deepEqual(typeReferences(t, bareRepo), resolvingTo('(@types/node)'));
    // As a user sees it: the files that depend on @types/node directly.
    const radius = await t.call('POST', `/v2/repos/${bareRepo}/radius`, { dependency: '@types/node', include: ['dependents'], limit: 1000 });
    assert.equal(radius.status, 200, JSON.stringify(radius.body));
    const direct = (radius.body.data.targets[0].dependents as { file_path: string; depth: number }[]).filter((d) => d.depth === 1);
    assert.deepEqual(direct.map((d) => d.file_path).sort(), files);

    // Installed and not declared (a copy of the real @types/node: a link out of the folder is not followed):
    // the compiler's answer names the package.
    const installed = copyOf(source);
    fs.cpSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(installed, 'node_modules', '@types', 'node'), { recursive: true });
    assert.deepEqual(typeReferences(t, await indexedRepo(t, installed)), resolvingTo('(@types/node)'));

    // Type roots inside the repository: the directive names a file of it, and the file is a type-only dependent.
    const rooted = copyOf(source);
    fs.mkdirSync(path.join(rooted, 'typings', 'node'), { recursive: true });
    fs.writeFileSync(path.join(rooted, 'typings', 'node', 'index.d.ts'), 'declare module "node:events" { export class EventEmitter {} }\n');
    fs.writeFileSync(path.join(rooted, 'tsconfig.json'), JSON.stringify({ compilerOptions: { typeRoots: ['./typings'], noEmit: true } }));
    const rootedRepo = await indexedRepo(t, rooted);
    assert.deepEqual(typeReferences(t, rootedRepo), resolvingTo('typings/node/index.d.ts'));
    const dependents = await dependentsOf(t, rootedRepo, 'typings/node/index.d.ts');
    assert.deepEqual(dependents.filter((d) => d.startsWith('1 ')).map((d) => d.slice(2)).sort(), files);
  } finally {
    await t.close();
  }
});
