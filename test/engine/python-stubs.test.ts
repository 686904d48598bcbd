import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeWithTreeSitter } from '../../server/engine/indexer/parse-tree-sitter';
import { debianPackage, debianPinned } from '../helpers/real-code';

/** Werkzeug 2.2.2 (Debian 12's python3-werkzeug) ships py.typed and datastructures.pyi beside datastructures.py. */
const WERKZEUG = ['python3-werkzeug', '2.2.2-3+deb12u1'] as const;

test('a stub beside a module (werkzeug/datastructures.pyi) is a type-only target of each import of the module', async () => {
  const root = path.join(debianPackage(...WERKZEUG), 'usr/lib/python3/dist-packages');
  const files = (fs.readdirSync(path.join(root, 'werkzeug'), { recursive: true }) as string[])
    .filter((f) => /\.pyi?$/.test(f)).map((f) => `werkzeug/${f}`).sort();
  const importersOf = new Map<string, Set<string>>();
  for (const file of files) {
    const analysis = await analyzeWithTreeSitter('python', file, fs.readFileSync(path.join(root, file), 'utf8'), root);
    for (const i of analysis.imports) {
      if (!i.targetPath?.startsWith('werkzeug/datastructures.')) continue;
      const key = `${i.targetPath}${i.typeOnly ? ' (types)' : ''}`;
      if (!importersOf.has(key)) importersOf.set(key, new Set());
      importersOf.get(key)!.add(file);
    }
  }
  const code = [...importersOf.get('werkzeug/datastructures.py') ?? []];
  const stub = [...importersOf.get('werkzeug/datastructures.pyi (types)') ?? []];
  // Fifteen modules import it at run time (Werkzeug 2.2.2); a newer release may import it from more or fewer.
  if (debianPinned(...WERKZEUG)) assert.equal(code.length, 15, code.join(', '));
  assert.ok(code.includes('werkzeug/wrappers/request.py'), code.join(', '));
  assert.deepEqual(stub.sort(), [...new Set([...code, ...importersOf.get('werkzeug/datastructures.py (types)') ?? []])].sort());
  assert.ok(!importersOf.has('werkzeug/datastructures.pyi'), 'no edge to the stub as code that runs');
});

test('a package and its stub never depend on each other: `from . import converters` in attr/__init__.py and __init__.pyi (attrs 22.2.0)', async () => {
  const root = path.join(debianPackage('python3-attr', '22.2.0-1'), 'usr/lib/python3/dist-packages');
  const importsOf = async (file: string) => (await analyzeWithTreeSitter('python', file, fs.readFileSync(path.join(root, file), 'utf8'), root)).imports;
  const own = (await importsOf('attr/__init__.py')).filter((i) => i.targetPath === 'attr/__init__.pyi');
  assert.deepEqual(own, []);
  // Nor the stub on the code it describes: `from . import converters, …` in attr/__init__.pyi is the stub itself.
  const stub = (await importsOf('attr/__init__.pyi')).filter((i) => i.targetPath === 'attr/__init__.py');
  assert.deepEqual(stub, []);
  // The modules beside it still get the stub as a type-only target (`from . import _config` in _make.py).
  const make = (await importsOf('attr/_make.py')).filter((i) => i.targetPath === 'attr/__init__.pyi');
  assert.ok(make.length > 0 && make.every((i) => i.typeOnly), JSON.stringify(make));
});
