import ts from 'typescript';
import path from 'node:path';

/**
 * SvelteKit's generated tsconfig.json (`.svelte-kit/tsconfig.json`, written by `svelte-kit sync`), for a fresh clone
 * that has none: the app's tsconfig.json extends it, and without it `$lib/…` and the `kit.alias` entries resolve to
 * nothing. What sync would write is rebuilt from the kit options read statically (the config is not run) from
 * svelte.config.js (`kit: { … }`) and from vite.config.ts (`sveltekit({ … })`): `$lib` → `kit.files.lib` (default
 * `src/lib`, when that folder exists) and each `kit.alias` entry, with the module options sync sets. The output
 * folder is `.svelte-kit` beside the config, or the `kit.outDir` a config in a folder above names (`build/kit`);
 * `root` bounds that search (the repository's folder).
 */
export function generatedKitConfig(file: string, root: string, isFile: (p: string) => boolean, isDir: (p: string) => boolean, read: (p: string) => string): string | null {
  const outDir = path.dirname(file);
  if (path.basename(file) !== 'tsconfig.json' || isFile(file)) return null;
  const found = kitProject(outDir, root, isFile, read);
  if (!found) return null;
  const { project, options } = found;
  const alias = { ...options.alias };
  const lib = path.resolve(project, options.lib ?? 'src/lib');
  if (isDir(lib)) alias.$lib = lib;
  const fromOutDir = (p: string) => path.relative(outDir, path.resolve(project, p)).split(path.sep).join('/');
  const paths: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(alias)) {
    const target = fromOutDir(value.endsWith('/*') ? value.slice(0, -2) : value);
    if (key.endsWith('/*')) {
      paths[key] = [`${target}/*`];
      continue;
    }
    paths[key] = [target];
    if (!/\.\w+$/.test(value) && !(`${key}/*` in alias)) paths[`${key}/*`] = [`${target}/*`];
  }
  return JSON.stringify({
    compilerOptions: {
      paths, rootDirs: [fromOutDir('.'), './types'], verbatimModuleSyntax: true, isolatedModules: true,
      lib: ['esnext', 'DOM', 'DOM.Iterable'], moduleResolution: 'bundler', module: 'esnext', noEmit: true, target: 'esnext',
    },
  });
}

/** The app whose output folder is `outDir`, with its kit options: `.svelte-kit`'s parent, or the folder whose config's `kit.outDir` is it. */
function kitProject(outDir: string, root: string, isFile: (p: string) => boolean, read: (p: string) => string): { project: string; options: KitOptions } | null {
  const optionsOf = (project: string) => {
    const options: KitOptions = { alias: {} };
    for (const name of CONFIG_FILES) {
      const candidate = path.join(project, name);
      if (isFile(candidate)) readKitOptions(candidate, read(candidate), options);
    }
    return options;
  };
  if (path.basename(outDir) === '.svelte-kit') return { project: path.dirname(outDir), options: optionsOf(path.dirname(outDir)) };
  const top = path.resolve(root);
  for (let project = path.dirname(outDir); project.startsWith(top); project = path.dirname(project)) {
    const options = optionsOf(project);
    if (options.outDir !== undefined && path.resolve(project, options.outDir) === outDir) return { project, options };
    if (project === top) break; // also where the repository is the file system's root
  }
  return null;
}

/** Where the kit options are written: svelte.config.js, or (SvelteKit ≥ 2.5x) the `sveltekit()` plugin's argument in vite.config.ts. */
const CONFIG_FILES = ['svelte.config.js', 'svelte.config.mjs', 'svelte.config.cjs', 'svelte.config.ts',
  'vite.config.ts', 'vite.config.js', 'vite.config.mts', 'vite.config.mjs', 'vite.config.cts', 'vite.config.cjs'];

interface KitOptions {
  alias: Record<string, string>;
  lib?: string;
  outDir?: string;
}

/** The `alias`, `files.lib` and `outDir` of every `kit: { … }` object and `sveltekit({ … })` argument in a config's text. */
function readKitOptions(file: string, text: string, into: KitOptions): void {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && nameOf(node.name) === 'kit' && ts.isObjectLiteralExpression(node.initializer)) readKit(node.initializer, into);
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'sveltekit') {
      const arg = node.arguments[0];
      if (arg && ts.isObjectLiteralExpression(arg)) readKit(arg, into);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

function readKit(kit: ts.ObjectLiteralExpression, into: KitOptions): void {
  for (const property of kit.properties) {
    if (!ts.isPropertyAssignment(property)) continue;
    const name = nameOf(property.name);
    if (name === 'outDir' && ts.isStringLiteralLike(property.initializer)) into.outDir = property.initializer.text;
    if (!ts.isObjectLiteralExpression(property.initializer)) continue;
    for (const entry of property.initializer.properties) {
      if (!ts.isPropertyAssignment(entry) || !ts.isStringLiteralLike(entry.initializer)) continue;
      const key = nameOf(entry.name);
      if (name === 'alias' && key) into.alias[key] = entry.initializer.text;
      if (name === 'files' && key === 'lib') into.lib = entry.initializer.text;
    }
  }
}

function nameOf(name: ts.PropertyName): string | null {
  return ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name) ? name.text : null;
}

/**
 * Modules SvelteKit provides (`$app/navigation`, `$env/static/private`, `$service-worker`, a route's generated
 * `./$types`): no file of the repository, and no unresolved local import either, but the framework package's.
 */
export function isKitModule(specifier: string): boolean {
  return /^(\$app|\$env)\//.test(specifier) || specifier === '$service-worker' || /^\.\/\$types(\.js)?$/.test(specifier);
}
