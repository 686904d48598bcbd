import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FileParser } from '../../server/engine/indexer/parse-file';
import { createTestApp, createTestEngine, indexFolder, indexedRepo } from '../helpers/engine';
import { svProject, withKitOutDir } from '../helpers/sv-project';

// A fresh clone of a SvelteKit app has no `.svelte-kit/` (git-ignored, written by `svelte-kit sync`), yet its
// tsconfig.json extends `./.svelte-kit/tsconfig.json`: `$lib/…` resolved to nothing, src/lib looked unused, and
// `$app/…` was an unknown package `$app`. The resolver now stands in what sync would write (sveltekit-config.ts).

/** What `svelte-kit sync` writes for these projects (kit's write_tsconfig.js: no `kit.alias`, `src/lib` present). */
const SYNCED = JSON.stringify({
  compilerOptions: {
    paths: { $lib: ['../src/lib'], '$lib/*': ['../src/lib/*'] }, rootDirs: ['..', './types'], verbatimModuleSyntax: true, isolatedModules: true,
    lib: ['esnext', 'DOM', 'DOM.Iterable'], moduleResolution: 'bundler', module: 'esnext', noEmit: true, target: 'esnext',
  },
}, null, '\t');

async function importsOf(root: string) {
  const parser = new FileParser(root, { maxFileBytes: 1 << 20 });
  const out: string[] = [];
  for (const rel of (fs.readdirSync(path.join(root, 'src'), { recursive: true }) as string[]).sort()) {
    if (!/\.(ts|svelte)$/.test(rel)) continue;
    const relPath = `src/${rel}`;
    const stat = fs.statSync(path.join(root, relPath));
    const r = await parser.parse({ relPath, size: stat.size, mtimeMs: stat.mtimeMs });
    assert.equal(r.kind, 'parsed');
    if (r.kind === 'parsed') for (const i of r.file.imports) out.push(`${relPath} ${i.specifier} → ${i.targetPath ?? `(${i.packageName})`}`);
  }
  return out;
}

test('sv 0.17.1 demo and minimal apps without .svelte-kit: `$lib/…` is the file, `$app/…` the kit, as after `svelte-kit sync`', async () => {
  for (const template of ['demo', 'minimal']) {
    const fresh = svProject(template);
    const synced = svProject(template);
    try {
      fs.mkdirSync(path.join(synced, '.svelte-kit'));
      fs.writeFileSync(path.join(synced, '.svelte-kit', 'tsconfig.json'), SYNCED);
      const imports = await importsOf(fresh);
      assert.deepEqual(imports, await importsOf(synced), template);
      const lib = imports.filter((i) => i.includes(' $lib/'));
      assert.ok(lib.length > 0, template);
      for (const i of lib) {
        const [, specifier, target] = /^\S+ (\S+) → (\S+)$/.exec(i)!;
        assert.equal(target, specifier.replace('$lib/', 'src/lib/'), i);
        assert.ok(fs.existsSync(path.join(fresh, target)), i);
      }
      for (const i of imports.filter((x) => / \$app\//.test(x))) assert.match(i, /→ \(@sveltejs\/kit\)$/);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
      fs.rmSync(synced, { recursive: true, force: true });
    }
  }
});

test('sv 0.17.1 demo: the blast radius of an asset in src/lib reaches the routes that import it', async () => {
  const root = svProject('demo');
  const t = await createTestApp();
  try {
    const r = await t.call('POST', `/v2/repos/${await indexedRepo(t, root)}/radius`, { file: 'src/lib/images/github.svg', include: ['dependents'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const dependents = (r.body.data.targets[0].dependents as { file_path: string; depth: number }[]).map((d) => `${d.depth} ${d.file_path}`);
    assert.deepEqual(dependents, ['1 src/routes/Header.svelte', '2 src/routes/+layout.svelte']);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('kit.alias and kit.files.lib from svelte.config.js and from vite.config.ts `sveltekit({ … })`, read without running them', async () => {
  // Hand-made: sv's templates set no alias. The paths are the ones sync writes for these options.
  const root = svProject('minimal');
  try {
    const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), text); };
    write('svelte.config.js', "const config = { kit: { alias: { $components: 'src/components', '$utils/*': './src/utils/*', $db: 'src/server/db.ts' } } };\nexport default config;\n");
    write('src/components/Card.svelte', '<p>card</p>\n');
    write('src/utils/format.ts', 'export const format = (s: string) => s;\n');
    write('src/server/db.ts', 'export const db = {};\n');
    write('src/routes/+page.ts', "import Card from '$components/Card.svelte';\nimport { format } from '$utils/format';\nimport { db } from '$db';\nimport { dev } from '$app/environment';\nexport const load = () => ({ Card, format, db, dev });\n");
    let imports = (await importsOf(root)).filter((i) => i.startsWith('src/routes/+page.ts'));
    assert.deepEqual(imports, [
      'src/routes/+page.ts $components/Card.svelte → src/components/Card.svelte',
      'src/routes/+page.ts $utils/format → src/utils/format.ts',
      'src/routes/+page.ts $db → src/server/db.ts',
      'src/routes/+page.ts $app/environment → (@sveltejs/kit)',
    ]);
    // SvelteKit 2's plugin options in vite.config.ts; `files.lib` moves `$lib`.
    fs.rmSync(path.join(root, 'svelte.config.js'));
    const vite = fs.readFileSync(path.join(root, 'vite.config.ts'), 'utf8');
    assert.match(vite, /sveltekit\(\{/);
    fs.writeFileSync(path.join(root, 'vite.config.ts'), vite.replace('sveltekit({', "sveltekit({\n\t\t\tfiles: { lib: 'src/library' },\n\t\t\talias: { $components: 'src/components' },"));
    fs.renameSync(path.join(root, 'src/lib'), path.join(root, 'src/library'));
    imports = (await importsOf(root)).filter((i) => / \$(lib|components)\//.test(i));
    assert.deepEqual(imports, [
      'src/routes/+layout.svelte $lib/assets/favicon.svg → src/library/assets/favicon.svg',
      'src/routes/+page.ts $components/Card.svelte → src/components/Card.svelte',
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('editing svelte.config.js moves the imports of unchanged files that use its alias', async () => {
  const root = svProject('minimal');
  const config = (to: string) => fs.writeFileSync(path.join(root, 'svelte.config.js'), `export default { kit: { alias: { $ui: '${to}' } } };\n`);
  for (const dir of ['src/old', 'src/new']) {
    fs.mkdirSync(path.join(root, dir));
    fs.writeFileSync(path.join(root, dir, 'Button.svelte'), '<button>ok</button>\n');
  }
  fs.writeFileSync(path.join(root, 'src/routes/+page.svelte'), "<script lang=\"ts\">\n  import Button from '$ui/Button.svelte';\n</script>\n<Button />\n");
  config('src/old');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, root);
    const ui = () => t.engine.filesStore.staleImports(repo.id, ['svelte']).filter((i) => i.specifier.startsWith('$ui/')).map((i) => i.targetPath);
    assert.deepEqual(ui(), ['src/old/Button.svelte']);
    config('src/new');
    await t.engine.indexer.updatePaths(repo, ['svelte.config.js']);
    assert.deepEqual(ui(), ['src/new/Button.svelte']);
  } finally {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('kit.outDir: an app whose output folder is elsewhere resolves `$lib/…` as after `svelte-kit sync` there', async () => {
  const fresh = withKitOutDir(svProject('minimal'), 'build/kit');
  const synced = withKitOutDir(svProject('minimal'), 'build/kit');
  try {
    // What sync writes there: the same options, the paths from build/kit.
    fs.mkdirSync(path.join(synced, 'build', 'kit'), { recursive: true });
    fs.writeFileSync(path.join(synced, 'build', 'kit', 'tsconfig.json'), SYNCED.replaceAll('"..', '"../..'));
    const imports = await importsOf(fresh);
    assert.deepEqual(imports, await importsOf(synced));
    assert.deepEqual(imports.filter((i) => i.includes(' $lib/')), ['src/routes/+layout.svelte $lib/assets/favicon.svg → src/lib/assets/favicon.svg']);
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true });
    fs.rmSync(synced, { recursive: true, force: true });
  }
});
