import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FileParser } from '../../server/engine/indexer/parse-file';
import { createTestApp, dependentsOf, indexedRepo } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

// What Vite imports besides modules: `import reactLogo from './assets/react.svg'` resolved to nothing (the compiler
// knows no `.svg` module), so did `./w.ts?worker` and `./a.txt?raw` (the query is Vite's), and `/vite.svg` (the
// project's public/ folder) was a path from the file system's root. An asset's importers were not its dependents.

const template = (name: string) => copyOf(path.join(npmPackage('create-vite@9.3.0'), name), 'loupe-vite-');

async function importsOf(root: string, relPath: string) {
  const stat = fs.statSync(path.join(root, relPath));
  const r = await new FileParser(root, { maxFileBytes: 1 << 20 }).parse({ relPath, size: stat.size, mtimeMs: stat.mtimeMs });
  assert.equal(r.kind, 'parsed');
  return r.kind === 'parsed' ? r.file.imports.map((i) => `${i.specifier} → ${i.targetPath ?? `(${i.packageName})`}`) : [];
}

test('create-vite 9.3.0 react-ts: asset imports, Vite\'s query suffixes and root-absolute paths name the files', async () => {
  const root = template('template-react-ts');
  try {
    assert.deepEqual(await importsOf(root, 'src/App.tsx'), [
      'react → (react)', './assets/hero.png → src/assets/hero.png', './assets/react.svg → src/assets/react.svg',
      './assets/vite.svg → src/assets/vite.svg', './App.css → src/App.css',
    ]);
    // Hand-made: the template's files import none of these forms; they name its own files.
    fs.writeFileSync(path.join(root, 'src/worker.ts'), 'self.onmessage = () => self.postMessage(1);\n');
    fs.writeFileSync(path.join(root, 'src/notes.txt'), 'notes\n');
    fs.writeFileSync(path.join(root, 'src/extras.ts'), [
      "import favicon from '/favicon.svg'", "import main from '/src/main.tsx'", "import logoText from './assets/react.svg?raw'",
      "import heroUrl from './assets/hero.png?url'", "import appCss from './App.css?inline'", "import W from './worker.ts?worker'",
      "import Inline from './worker.ts?worker&inline'", "import notes from './notes.txt?raw'", "import missing from '/nowhere.svg'",
      'export { favicon, main, logoText, heroUrl, appCss, W, Inline, notes, missing }', '',
    ].join('\n'));
    assert.deepEqual(await importsOf(root, 'src/extras.ts'), [
      '/favicon.svg → public/favicon.svg', '/src/main.tsx → src/main.tsx', './assets/react.svg?raw → src/assets/react.svg',
      './assets/hero.png?url → src/assets/hero.png', './App.css?inline → src/App.css', './worker.ts?worker → src/worker.ts',
      './worker.ts?worker&inline → src/worker.ts', './notes.txt?raw → src/notes.txt', '/nowhere.svg → (null)',
    ]);
    // Without a vite.config.*, `/x` is a path from the file system's root, as the compiler reads it.
    fs.rmSync(path.join(root, 'vite.config.ts'));
    assert.ok((await importsOf(root, 'src/extras.ts')).includes('/favicon.svg → (null)'));
  } finally {
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});

test('create-vite 9.3.0 (React and Svelte templates): the blast radius of an SVG asset reaches main', async () => {
  const t = await createTestApp();
  const folders = ['template-react-ts', 'template-svelte-ts'].map(template);
  try {
    const dependents = async (folder: string, file: string) => dependentsOf(t, await indexedRepo(t, folder), file);
    assert.deepEqual(await dependents(folders[0], 'src/assets/react.svg'), ['1 src/App.tsx', '2 src/main.tsx']);
    assert.deepEqual(await dependents(folders[1], 'src/assets/svelte.svg'), ['1 src/App.svelte', '2 src/main.ts']);
  } finally {
    await t.close();
    for (const f of folders) fs.rmSync(path.dirname(f), { recursive: true, force: true });
  }
});
