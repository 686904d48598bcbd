import path from 'node:path';
import type { ParsedImport } from '../types';
import { RepoFiles, joinRel } from './tree-sitter/repo-files';

/**
 * Nuxt's auto-imports: in a Nuxt app, components under `components/` are used by name in templates
 * (`<AppHeader />`, `<app-header>`, `<LazyAppHeader>`) and what `composables/` and `utils/` export is called
 * by name (`useSeo(…)`), none of it imported. Nuxt generates the imports into `.nuxt/` (git-ignored, missing in a
 * fresh clone); here they are found the same way from the app's files, so a component's or a composable's users
 * are its dependents. Server code (`server/`) gets `server/utils/`'s exports the same way (Nitro), and both get
 * `shared/utils/`'s and `shared/types/`'s.
 *
 * An app is a folder with a `nuxt.config.*`; its source folder is `app/` when that holds the app's folders (Nuxt 4)
 * and the folder itself otherwise (Nuxt 3).
 */

/** The languages of the files that use what Nuxt auto-imports (and of those that provide it). */
export const NUXT_USER_LANGUAGES: ReadonlySet<string> = new Set(['vue', 'typescript', 'javascript']);

const CONFIG_FILES = ['nuxt.config.ts', 'nuxt.config.js', 'nuxt.config.mjs', 'nuxt.config.mts'];
const APP_FOLDERS = ['components', 'composables', 'pages', 'layouts', 'utils', 'plugins', 'middleware'];
const COMPONENT_FILE = /\.(vue|tsx|jsx)$/;
const SCRIPT_FILE = /\.(ts|js|mts|mjs|tsx|jsx)$/;
const SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules']);

interface NuxtApp {
  /** The folder holding nuxt.config.* ('' for the root). */
  base: string;
  /** The app's source folder (`app` below base, or base). */
  srcDir: string;
}

/** What the files of one scope (the app's, or its server's) may use without importing it: name → file. */
type Registry = Map<string, string>;

/** The Nuxt app a folder belongs to: the nearest folder at or above it with a nuxt.config.*, or null. */
function appAt(files: RepoFiles, relDir: string): NuxtApp | null {
  for (let dir = relDir || '.'; ; dir = path.posix.dirname(dir)) {
    const base = dir === '.' ? '' : dir;
    const app = files.memo(`nuxt-app:${base}`, () => {
      // One listing per folder (most have no config; a stat per name would be four calls and four realpaths).
      if (!files.names(base).some((n) => n.startsWith('nuxt.config.'))) return null;
      if (!files.firstFile(CONFIG_FILES.map((f) => joinRel(base, f)))) return null;
      const app = joinRel(base, 'app');
      const nuxt4 = files.isDir(app) && (files.isFile(joinRel(app!, 'app.vue')) || APP_FOLDERS.some((f) => files.isDir(joinRel(app!, f))));
      return { base, srcDir: nuxt4 ? app! : base };
    });
    if (app) return app;
    if (base === '') return null;
  }
}

/** Whether a folder of the repository is in a Nuxt app (below a folder with a nuxt.config.*). */
export const inNuxtApp = (files: RepoFiles, relDir: string): boolean => appAt(files, relDir) !== null;

/**
 * A component's name as Nuxt gives it: its folders below `components/` then its file name, in PascalCase, a folder
 * name the file name already starts with said once (`app/AppHeader.vue` is AppHeader, `base/foo/Button.vue`
 * BaseFooButton, `form/index.vue` Form); `.client` and `.server` suffixes dropped.
 */
export function nuxtComponentName(relToComponents: string): string {
  const parts = relToComponents.split('/');
  let file = parts.pop()!.replace(/\.[^.]+$/, '').replace(/\.(client|server)$/, '');
  if (file.toLowerCase() === 'index') file = '';
  const words = (s: string) => s.split(/[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  const fileWords = words(file);
  let prefix = parts.flatMap(words);
  // The longest run of folder words that the file name starts with is said once.
  for (let start = 0; start < prefix.length; start++) {
    const tail = prefix.slice(start).map((w) => w.toLowerCase());
    if (tail.every((w, i) => fileWords[i]?.toLowerCase() === w)) { prefix = prefix.slice(0, start); break; }
  }
  return [...prefix, ...fileWords].map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

/** Names a module exports (`export function useX`, `export const x`, `export { a, b as c }`; a default export by its file). */
export function exportedNames(relPath: string, text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:function\s*\*?|const|let|var|class|enum)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]);
  for (const m of text.matchAll(/^\s*export\s*\{([^}]*)\}(?!\s*from)/gm)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()!.trim();
      if (/^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default') names.add(name);
    }
  }
  if (/^\s*export\s+default\b/m.test(text)) {
    const stem = path.posix.basename(relPath).replace(/\.[^.]+$/, '');
    const camel = stem.replace(/[-_.]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
    if (/^[A-Za-z_$][\w$]*$/.test(camel)) names.add(camel);
  }
  return [...names];
}

/** The modules directly in a folder, and each subfolder's index module, whose exports are auto-imported. */
function scannedModules(files: RepoFiles, dir: string): string[] {
  const out = files.list(dir).filter((f) => SCRIPT_FILE.test(f) && !/\.d\.[mc]?ts$/.test(f)).map((f) => joinRel(dir, f)!);
  for (const sub of files.filesBelow(dir, '', SKIP_DIRS)) {
    const rel = sub.slice(dir.length + 1);
    if (/^[^/]+\/index\.(ts|js|mts|mjs)$/.test(rel)) out.push(sub);
  }
  return out;
}

function registryOf(files: RepoFiles, app: NuxtApp, server: boolean): Registry {
  return files.memo(`nuxt-registry:${app.base}:${server}`, () => {
    const registry: Registry = new Map();
    const add = (name: string, file: string) => { if (!registry.has(name)) registry.set(name, file); };
    const addExports = (dir: string) => { for (const file of scannedModules(files, dir)) for (const n of exportedNames(file, files.read(file) ?? '')) add(n, file); };
    // `shared/` (Nuxt 3.14+) is seen by the app and by the server alike.
    addExports(joinRel(app.base, 'shared', 'utils')!);
    addExports(joinRel(app.base, 'shared', 'types')!);
    if (server) {
      addExports(joinRel(app.base, 'server', 'utils')!);
      return registry;
    }
    const components = joinRel(app.srcDir, 'components')!;
    for (const file of files.filesBelow(components, '', SKIP_DIRS)) {
      if (COMPONENT_FILE.test(file)) add(nuxtComponentName(file.slice(components.length + 1)), file);
    }
    for (const folder of ['composables', 'utils']) addExports(joinRel(app.srcDir, folder)!);
    return registry;
  });
}

/**
 * The auto-imported names a file of a Nuxt app uses, as `reference` edges to the files that provide them (one per
 * file, at the first use). `texts` gives the file's script text (a component's scripts in place) and a component's
 * template; names the file imports or declares itself are left to its own imports.
 */
export function nuxtReferences(files: RepoFiles, relPath: string, texts: () => { code: string; template: string }, imports: ParsedImport[]): ParsedImport[] {
  const app = appAt(files, path.posix.dirname(relPath));
  if (!app) return [];
  const inServer = relPath.startsWith(`${joinRel(app.base, 'server')}/`);
  if (!inServer && app.srcDir !== app.base && !relPath.startsWith(`${app.srcDir}/`)) return [];
  const registry = registryOf(files, app, inServer);
  if (!registry.size) return [];
  const { code, template } = texts();
  const imported = new Set(imports.flatMap((i) => (i.targetPath ? [i.targetPath] : [])));
  const found = new Map<string, { name: string; index: number; text: string }>();
  const note = (name: string, index: number, text: string) => {
    const target = registry.get(name);
    if (!target || target === relPath || imported.has(target)) return;
    const seen = found.get(target);
    if (!seen || (seen.text === text && index < seen.index) || (seen.text !== text && text === code)) found.set(target, { name, index, text });
  };
  // Calls and reads of exported names in the scripts and in template expressions; not `x.name`, not a declaration.
  for (const text of [code, templateExpressions(template)]) {
    const declared = new Map<string, boolean>();
    for (const m of text.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)(?![\w$])/g)) {
      if (!registry.has(m[1])) continue;
      if (!declared.has(m[1])) declared.set(m[1], declares(text, m[1]));
      if (!declared.get(m[1])) note(m[1], m.index, text);
    }
  }
  // Components in the template (and in render code: `resolveComponent('X')`).
  for (const m of template.matchAll(/<(?:Lazy|lazy-)?([A-Za-z][\w-]*)/g)) {
    const tag = m[1];
    // `<table>` is the element, never a component named Table; `<my-table>` and `<MyTable>` are components.
    if (/^[a-z]/.test(tag) && !tag.includes('-')) continue;
    const name = tag.includes('-') ? pascal(tag) : tag;
    if (registry.has(name) && COMPONENT_FILE.test(registry.get(name)!)) note(name, m.index, template);
  }
  const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;
  return [...found].map(([targetPath, { name, index, text }]) => ({
    specifier: name, kind: 'reference' as const, typeOnly: false, targetPath, packageName: null, names: [name], line: lineAt(text, index),
  }));
}

const pascal = (tag: string) => tag.split('-').filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** The file declares the name itself (a local function or variable of that name shadows the auto-import). */
function declares(text: string, name: string): boolean {
  return new RegExp(`(?:function\\s*\\*?\\s+|(?:const|let|var|class)\\s+)${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);
}

/**
 * A template's expressions (`{{ … }}`, and the values of bound attributes and directives: `:to="…"`, `@click="…"`,
 * `v-if="…"`, `#item="…"`) in place, the rest blanked: a word of the page's text is not a use.
 */
function templateExpressions(template: string): string {
  const kept = template.replace(/[^\n]/g, ' ').split('');
  const keep = (from: number, text: string) => { for (let i = 0; i < text.length; i++) kept[from + i] = text[i]; };
  for (const m of template.matchAll(/\{\{([\s\S]*?)\}\}/g)) keep(m.index + 2, m[1]);
  for (const m of template.matchAll(/\s(?::|@|#|v-[\w-]+)[\w.:[\]-]*\s*=\s*(["'])([\s\S]*?)\1/g)) keep(m.index + m[0].length - 1 - m[2].length, m[2]);
  return kept.join('');
}
