import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './engine';
import { npmPackage } from './real-code';

/** sv 0.17.1's templates (npm), as `sv create` reads them. */
const SV = () => path.join(npmPackage('sv@0.17.1'), 'dist');

/** A project as `sv create --template <name> --types ts` writes it: the template's files and assets, and shared.json's matching entries. */
export function svProject(template: string): string {
  const root = tempDir(`loupe-sv-${template}-`);
  const write = (rel: string, text: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  const dir = path.join(SV(), 'templates', template);
  for (const f of JSON.parse(fs.readFileSync(path.join(dir, 'files.types=typescript.json'), 'utf8')) as { name: string; contents: string }[]) write(f.name, f.contents);
  const assets = path.join(dir, 'assets');
  for (const rel of fs.readdirSync(assets, { recursive: true }) as string[]) {
    if (fs.statSync(path.join(assets, rel)).isFile()) write(rel.replace(/(^|\/)DOT-/g, '$1.'), fs.readFileSync(path.join(assets, rel)));
  }
  write('package.json', fs.readFileSync(path.join(dir, 'package.json')));
  const conditions = new Set([template, 'typescript']);
  const shared = JSON.parse(fs.readFileSync(path.join(SV(), 'shared.json'), 'utf8')) as { files: { name: string; include: string[]; exclude: string[]; contents: string }[] };
  for (const f of shared.files) {
    if (f.include.every((c) => conditions.has(c)) && !f.exclude.some((c) => conditions.has(c))) write(f.name, f.contents);
  }
  return root;
}

/** The app with `kit.outDir` set in svelte.config.js and its tsconfig.json extending that folder's config, as SvelteKit's docs say. */
export function withKitOutDir(root: string, outDir: string): string {
  fs.writeFileSync(path.join(root, 'svelte.config.js'), `export default { kit: { outDir: '${outDir}' } };\n`);
  const tsconfig = path.join(root, 'tsconfig.json');
  fs.writeFileSync(tsconfig, fs.readFileSync(tsconfig, 'utf8').replace('./.svelte-kit/tsconfig.json', `./${outDir}/tsconfig.json`));
  return root;
}
