import path from 'node:path';

/**
 * Vite's import queries (`./a.txt?raw`, `./w.ts?worker&inline`, `./logo.svg?url`, `./x.css?inline`, `./m.wasm?init`):
 * they choose how the file is loaded, not which file. The specifier without its query, or as it is.
 */
export function withoutViteQuery(specifier: string): string {
  const at = specifier.indexOf('?');
  if (at <= 0) return specifier;
  const words = specifier.slice(at + 1).split('&').map((w) => w.split('=')[0]);
  return words.every((w) => VITE_QUERIES.has(w)) ? specifier.slice(0, at) : specifier;
}

const VITE_QUERIES = new Set(['raw', 'url', 'inline', 'no-inline', 'worker', 'sharedworker', 'init']);

/**
 * The files a bundler imports that the compiler knows no module for, by extension: components, stylesheets and the
 * assets Vite knows (images, media, fonts, text). The compiler probes `X.svg` as `X.svg.ts`, and the resolver answers
 * for the file (resolver.ts PROBED_MODULE), through a relative path or a `paths` alias (`$lib/logo.svg`).
 */
export const BUNDLED_EXTENSIONS = [
  'vue', 'svelte', 'astro',
  'css', 'scss', 'sass', 'less', 'styl', 'stylus', 'pcss', 'postcss', 'sss',
  'apng', 'png', 'jpe?g', 'jfif', 'pjpeg', 'pjp', 'gif', 'svg', 'ico', 'webp', 'avif', 'cur', 'jxl', 'bmp',
  'mp4', 'webm', 'ogg', 'mp3', 'wav', 'flac', 'aac', 'opus', 'mov', 'm4a', 'vtt',
  'woff2?', 'eot', 'ttf', 'otf', 'webmanifest', 'pdf', 'txt', 'wasm',
];

const VITE_CONFIGS = ['vite.config.ts', 'vite.config.js', 'vite.config.mts', 'vite.config.mjs', 'vite.config.cts', 'vite.config.cjs'];

/**
 * A root-absolute import in a Vite project (`import viteLogo from '/vite.svg'`): the file in the project's `public/`
 * folder, else under the project's folder, as Vite serves it. The project is the nearest folder above the importing
 * file (within the repository) holding a vite.config.*; its `root` and `publicDir` options are not read. Null when no
 * such project holds the importing file.
 */
export function viteRootPath(specifier: string, dir: string, repoRoot: string, isFile: (p: string) => boolean): string | null {
  if (!specifier.startsWith('/') || specifier.startsWith('//')) return null;
  for (let d = dir; d === repoRoot || d.startsWith(repoRoot + path.sep); d = path.dirname(d)) {
    if (VITE_CONFIGS.some((name) => isFile(path.join(d, name)))) {
      const inPublic = path.join(d, 'public', specifier.slice(1));
      return isFile(inPublic) ? inPublic : path.join(d, specifier.slice(1));
    }
    if (d === repoRoot) break;
  }
  return null;
}
