import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ModuleResolver } from '../../server/engine/indexer/resolver';
import { tempDir } from '../helpers/engine';

/**
 * TypeScript/JavaScript import resolution reads nothing outside the repository, as the other languages'
 * resolution does (tree-sitter/repo-files.ts): not a tsconfig.json that `extends` a file outside it, not a
 * node_modules folder above it (the compiler's walk up), not a folder a symbolic link inside points out to.
 * Every file-system call the resolver makes is recorded and must name a path inside the repository.
 */
test('resolving imports reads nothing outside the repository: no extends out of it, no node_modules above it, no link out', () => {
  const top = tempDir('loupe-resolve-inside-');
  const root = path.join(top, 'repo');
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(top, rel)), { recursive: true }); fs.writeFileSync(path.join(top, rel), text); };
  // Beside and above the repository: a base config with paths, a package in a node_modules above it, a folder.
  write('outside/base.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@o': ['./o.ts'] } } }));
  write('outside/o.ts', 'export {};\n');
  write('outside/lib/index.ts', 'export {};\n');
  write('node_modules/above/package.json', JSON.stringify({ name: 'above', types: './index.ts' }));
  write('node_modules/above/index.ts', 'export {};\n');
  // The repository: its tsconfig.json extends the base outside; a link inside points out.
  write('repo/tsconfig.json', JSON.stringify({ extends: '../outside/base.json', compilerOptions: { moduleResolution: 'node10' } }));
  write('repo/src/main.ts', 'export {};\n');
  write('repo/src/local.ts', 'export {};\n');
  fs.symlinkSync(path.join(top, 'outside/lib'), path.join(root, 'linkout'), 'dir');

  const touched: string[] = [];
  const spied = ['readdirSync', 'readFileSync', 'statSync', 'lstatSync', 'existsSync', 'opendirSync'] as const;
  const originals = spied.map((name) => fs[name]);
  const realpathNative = fs.realpathSync.native;
  const realpath = fs.realpathSync;
  try {
    spied.forEach((name, i) => {
      (fs as unknown as Record<string, unknown>)[name] = (p: fs.PathLike, ...rest: unknown[]) => { touched.push(String(p)); return (originals[i] as (...a: unknown[]) => unknown)(p, ...rest); };
    });
    const spyRealpath = Object.assign((p: fs.PathLike, ...rest: unknown[]) => { touched.push(String(p)); return (realpath as (...a: unknown[]) => unknown)(p, ...rest); }, {
      native: (p: fs.PathLike, ...rest: unknown[]) => { touched.push(String(p)); return (realpathNative as (...a: unknown[]) => unknown)(p, ...rest); },
    });
    (fs as unknown as Record<string, unknown>).realpathSync = spyRealpath;

    const resolver = new ModuleResolver(root);
    const answer = (specifier: string) => resolver.resolve('src/main.ts', specifier);
    assert.deepEqual(answer('./local'), { targetPath: 'src/local.ts', packageName: null }, 'resolution works inside');
    assert.deepEqual(answer('@o'), { targetPath: null, packageName: '@o' }, 'paths from a config outside are not read');
    assert.deepEqual(answer('above'), { targetPath: null, packageName: 'above' }, 'a node_modules above the repository is not read');
    assert.deepEqual(answer('../linkout'), { targetPath: null, packageName: null }, 'a link out of the repository is not followed');
    assert.deepEqual(answer('../linkout/index'), { targetPath: null, packageName: null }, 'nor a path through it');
  } finally {
    spied.forEach((name, i) => { (fs as unknown as Record<string, unknown>)[name] = originals[i]; });
    (fs as unknown as Record<string, unknown>).realpathSync = realpath;
  }
  const realRoot = fs.realpathSync(root);
  const outside = touched.filter((p) => {
    const rel = path.relative(p.startsWith(realRoot) ? realRoot : root, path.resolve(p));
    return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  });
  assert.ok(touched.length > 0, 'the spies saw the resolver\'s reads');
  assert.deepEqual([...new Set(outside)], [], 'paths outside the repository were read');
});
