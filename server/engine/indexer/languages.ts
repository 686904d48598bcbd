/**
 * Maps file names to languages. Languages with a parser get symbols and imports; the rest are text. By name alone
 * a `.h` file is C++ (whose grammar parses both); where its text is known it is C or C++ (detectLanguageOf).
 */
const BY_EXTENSION: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  py: 'python', pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  cs: 'csharp',
  c: 'c', h: 'cpp', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', 'c++': 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp', 'h++': 'cpp',
  // Template and inline definitions a header includes (glm's detail/*.inl, Boost's .ipp, libstdc++'s .tcc), module interfaces.
  inl: 'cpp', ipp: 'cpp', tpp: 'cpp', tcc: 'cpp', txx: 'cpp', ixx: 'cpp', cppm: 'cpp',
  rb: 'ruby',
  php: 'php',
  kt: 'kotlin', swift: 'swift', scala: 'scala', lua: 'lua', dart: 'dart',
  sh: 'shell', bash: 'shell', zsh: 'shell',
  css: 'css', scss: 'scss', less: 'less', html: 'html', vue: 'vue', svelte: 'svelte', astro: 'astro',
  md: 'markdown', mdx: 'markdown', rst: 'text', txt: 'text',
  json: 'json', jsonc: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml', xml: 'xml', ini: 'ini',
  sql: 'sql', graphql: 'graphql', proto: 'protobuf',
};

const BY_NAME: Record<string, string> = {
  Dockerfile: 'dockerfile', Makefile: 'makefile', makefile: 'makefile', GNUmakefile: 'makefile', Gemfile: 'ruby', Rakefile: 'ruby',
};

export function detectLanguage(fileName: string): string | null {
  const named = BY_NAME[fileName];
  if (named) return named;
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0 && !fileName.startsWith('.')) return null;
  return BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

/**
 * The language of a file whose text is at hand: as by its name, except that a `.h` header (which C and C++ share)
 * is C unless its code (comments, strings and C23 `[[attributes]]` aside) has something only C++ has: a class, a
 * namespace, a template, a `::`, an access label, a C++ keyword, or a standard header without `.h`.
 */
export function detectLanguageOf(fileName: string, text: string): string | null {
  const language = detectLanguage(fileName);
  if (!/\.h$/i.test(fileName)) return language;
  return CPP_ONLY.test(text.replace(NOT_CODE, ' ')) ? 'cpp' : 'c';
}

const NOT_CODE = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\[\[[\s\S]*?\]\]/g;
const CPP_ONLY = new RegExp([
  String.raw`\bclass\s+\w+\s*(?:final\s*)?[{;:]`, String.raw`\bnamespace\s*\w*\s*[{=]`, String.raw`\busing\s+namespace\b`,
  String.raw`\btemplate\s*<`, String.raw`::\s*~?\w`, String.raw`^\s*(?:public|private|protected)\s*:`,
  String.raw`\b(?:nullptr|static_cast|dynamic_cast|reinterpret_cast|const_cast|typename|virtual|noexcept)\b`,
  String.raw`^\s*#\s*include\s*<\w+>`,
].join('|'), 'm');

/**
 * Interpreters a `#!` line names that we parse (shell is not: a shell script stays text), by the command's
 * name: `ruby`, `ruby3.1`, `python3`, `python3.11`, `node`.
 */
const BY_INTERPRETER: [RegExp, string][] = [
  [/^j?ruby[\d.]*$/, 'ruby'],
  [/^python[\d.]*$/, 'python'],
  [/^node(js)?$/, 'javascript'],
];

/**
 * The language a `#!` line at the start of `text` names (`#!/usr/bin/env ruby`, `#!/usr/bin/python3 -u`,
 * `#!/usr/bin/env -S node --no-warnings`), or null.
 */
export function shebangLanguage(text: string): string | null {
  if (!text.startsWith('#!')) return null;
  const words = text.slice(2, text.indexOf('\n') < 0 ? 256 : Math.min(256, text.indexOf('\n'))).trim().split(/\s+/);
  let command = words[0]?.split('/').pop() ?? '';
  // env's own options and VAR=value settings come before the command it runs.
  if (command === 'env') command = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) ?? '';
  return BY_INTERPRETER.find(([pattern]) => pattern.test(command))?.[1] ?? null;
}

/**
 * A file's language: by its name (a `.h` header by its code: detectLanguageOf), else, for a name without an
 * extension or with one no language has (an executable such as `bin/thor`, pytest's `bin/py.test`, numpy's
 * `bin/f2py3.11`), by the interpreter its `#!` line names.
 */
export function languageOf(fileName: string, text: string): string | null {
  return detectLanguageOf(fileName, text) ?? shebangLanguage(text) ?? headerWithoutExtension(fileName, text);
}

/**
 * A C++ header named without an extension (Eigen's `Eigen/Dense`, Qt's `QString`, the standard library's own; C's
 * end in `.h`): a name with no dot whose code, comments aside, opens with an `#include "…"`/`<…>`, an `#ifndef NAME`
 * guard or `#pragma once`. A comment such as `# include this` is no directive.
 */
function headerWithoutExtension(fileName: string, text: string): string | null {
  if (fileName.includes('.')) return null;
  const code = text.slice(0, 64 * 1024).replace(COMMENTS, ' ').trimStart();
  return HEADER_OPENING.test(code) ? 'cpp' : null;
}

const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;
const HEADER_OPENING = /^#[ \t]*(?:include[ \t]*["<][^"<>\n]+[">]|pragma[ \t]+once\b|ifndef[ \t]+[A-Za-z_]\w*[ \t]*\r?\n[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*)/;

export const isScriptLanguage = (language: string | null) => language === 'typescript' || language === 'javascript';

/** Languages whose imports the TypeScript compiler's resolution answers from the specifier: scripts, and Vue and Svelte components. */
export const resolvedAsScripts = (language: string | null) => isScriptLanguage(language) || isComponentLanguage(language);

/** Vue, Svelte and Astro components: code in `<script>` blocks (and Astro's `---` frontmatter), parse-component.ts. */
export const isComponentLanguage = (language: string | null) => language === 'vue' || language === 'svelte' || language === 'astro';

/** Languages whose code is source (not data or prose): used by analysis to tell code from everything else. */
export const CODE_LANGUAGES = new Set([
  'typescript', 'javascript', 'python', 'go', 'rust', 'java', 'csharp', 'c', 'cpp', 'ruby', 'php', 'kotlin', 'swift',
  'scala', 'lua', 'dart', 'shell', 'vue', 'svelte', 'astro',
]);
