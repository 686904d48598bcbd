import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FileParser } from '../../server/engine/indexer/parse-file';
import { componentScript } from '../../server/engine/indexer/parse-component';
import { createTestApp, dependentsOf, indexedRepo, tempDir } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

// Vue, Svelte and Astro single-file components hold their code in `<script>` blocks (Astro: its frontmatter too). They were indexed as text only: no
// imports, no symbols, and `import App from './App.vue'` resolved to nothing (the compiler knows no `.vue` module),
// so a component's blast radius was empty and so was that of a composable only components import. The same held
// for a stylesheet a module imports (`import './App.css'`).

async function parsed(root: string, relPath: string) {
  const stat = fs.statSync(path.join(root, relPath));
  const r = await new FileParser(root, { maxFileBytes: 1 << 20 }).parse({ relPath, size: stat.size, mtimeMs: stat.mtimeMs });
  assert.equal(r.kind, 'parsed');
  return r.file;
}

test('a component\'s scripts keep their lines; everything else is blanked', () => {
  const text = '<template>\n  <p>{{ x }}</p>\n</template>\n<script setup lang="ts">\nimport x from "./x";\n</script>\n<style>p { color: red }</style>\n';
  const script = componentScript(text);
  assert.equal(script.length, text.length);
  assert.deepEqual(script.split('\n').map((l) => l.trim()), ['', '', '', '', 'import x from "./x";', '', '', '']);
  // Astro: the frontmatter the file opens with, and its `<script>` tags.
  const astro = '---\nimport Icon from "./Icon.astro";\n---\n<Icon />\n<script>\nconsole.log(1);\n</script>\n';
  assert.deepEqual(componentScript(astro).split('\n').map((l) => l.trim()), ['', 'import Icon from "./Icon.astro";', '', '', '', 'console.log(1);', '', '']);
});

test('primevue 4.3.3: a Vue component imports the components beside it, and is a symbol named by its file', async () => {
  const root = npmPackage('primevue@4.3.3');
  const button = await parsed(root, 'button/Button.vue');
  assert.equal(button.language, 'vue');
  const targets = button.imports.map((i) => `${i.line} ${i.specifier} ${i.targetPath ?? `(${i.packageName})`}`);
  assert.ok(targets.includes('25 ./BaseButton.vue button/BaseButton.vue'), JSON.stringify(targets));
  assert.ok(targets.includes('24 vue (vue)'), JSON.stringify(targets));
  assert.deepEqual(button.symbols.filter((s) => s.parent === null).map((s) => `${s.kind} ${s.name} ${s.startLine}-${s.endLine}`), [`class Button 1-${button.lines}`]);
});

test('flowbite-svelte 0.48.4: a Svelte component imports another, and its script\'s declarations are symbols', async () => {
  const root = npmPackage('flowbite-svelte@0.48.4');
  const checkbox = await parsed(root, 'dist/forms/CheckboxButton.svelte');
  assert.equal(checkbox.language, 'svelte');
  assert.ok(checkbox.imports.some((i) => i.specifier === '../buttons/Button.svelte' && i.targetPath === 'dist/buttons/Button.svelte'), JSON.stringify(checkbox.imports));
  const names = checkbox.symbols.map((s) => s.name);
  assert.deepEqual(names.slice(0, 1), ['CheckboxButton']);
  assert.ok(names.includes('onChange'), JSON.stringify(names));
});

test('@astrojs/starlight 0.30.0: an Astro component\'s frontmatter imports and declares; `<Icon />` in its markup uses Icon.astro', async () => {
  const root = copyOf(npmPackage('@astrojs/starlight@0.30.0'), 'loupe-starlight-');
  const search = await parsed(root, 'components/Search.astro');
  assert.equal(search.language, 'astro');
  const targets = search.imports.map((i) => `${i.line} ${i.specifier} ${i.targetPath ?? `(${i.packageName})`}`);
  assert.ok(targets.includes('3 ../user-components/Icon.astro user-components/Icon.astro'), JSON.stringify(targets));
  assert.ok(targets.includes('5 ../props props.ts'), JSON.stringify(targets));
  assert.ok(search.symbols.some((s) => s.name === 'pagefindTranslations' && s.startLine === 7), JSON.stringify(search.symbols));
  const t = await createTestApp();
  try {
    const r = await t.call('POST', `/v2/repos/${await indexedRepo(t, root)}/radius`, { file: 'user-components/Icon.astro#Icon', include: ['dependents'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const direct = (r.body.data.targets[0].dependents as { file_path: string; depth: number }[]).filter((d) => d.depth === 1).map((d) => d.file_path);
    assert.ok(direct.includes('components/Search.astro'), JSON.stringify(direct));
  } finally {
    await t.close();
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
});

test('create-vite 9.3.0 (Vue, Svelte and React templates): the blast radius of a component or a stylesheet reaches main.ts', async () => {
  const t = await createTestApp();
  const folders = ['template-vue-ts', 'template-svelte-ts', 'template-react-ts'].map((f) => copyOf(path.join(npmPackage('create-vite@9.3.0'), f), 'loupe-components-'));
  try {
    const dependents = async (folder: string, file: string) => dependentsOf(t, await indexedRepo(t, folder), file);
    assert.deepEqual(await dependents(folders[0], 'src/components/HelloWorld.vue'), ['1 src/App.vue', '2 src/main.ts']);
    // `<HelloWorld />` in App.vue's template is its only use of the import.
    assert.deepEqual(await dependents(folders[0], 'src/components/HelloWorld.vue#HelloWorld'), ['1 src/App.vue', '2 src/main.ts']);
    assert.deepEqual(await dependents(folders[1], 'src/lib/Counter.svelte'), ['1 src/App.svelte', '2 src/main.ts']);
    // `import './App.css'`: the compiler knows no module for a stylesheet; a bundler loads the file.
    assert.deepEqual(await dependents(folders[2], 'src/App.css'), ['1 src/App.tsx', '2 src/main.tsx']);
  } finally {
    await t.close();
    for (const f of folders) fs.rmSync(path.dirname(f), { recursive: true, force: true });
  }
});

test('a composable used in a template (`{{ formatDate(d) }}`) and in a script counts both components as users', async () => {
  // Hand-made: the smallest layout with a use in the template alone and one in the script alone.
  const root = tempDir('loupe-vue-');
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), text); };
  write('src/format.ts', 'export function formatDate(d: Date): string { return d.toISOString(); }\nexport const unused = 1;\n');
  write('src/InTemplate.vue', '<template>\n  <time>{{ formatDate(when) }}</time>\n</template>\n<script setup lang="ts">\nimport { formatDate, unused } from \'./format\';\ndefineProps<{ when: Date }>();\n</script>\n');
  write('src/InScript.svelte', '<script lang="ts">\n  import { formatDate } from \'./format\';\n  export let when: Date;\n  const text = formatDate(when);\n</script>\n<time>{text}</time>\n');
  const t = await createTestApp();
  try {
    const repo = await indexedRepo(t, root);
    const users = async (target: string) => {
      const r = await t.call('POST', `/v2/repos/${repo}/radius`, { file: target, include: ['dependents'] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.data.targets[0].dependents as { file_path: string }[]).map((d) => d.file_path).sort();
    };
    assert.deepEqual(await users('src/format.ts#formatDate'), ['src/InScript.svelte', 'src/InTemplate.vue']);
    assert.deepEqual(await users('src/format.ts#unused'), []);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
