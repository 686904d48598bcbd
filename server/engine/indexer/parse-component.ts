import type { ParsedSymbol } from '../types';
import { analyzeScript, type ScriptAnalysis } from './parse-typescript';
import type { ModuleResolver } from './resolver';

/**
 * Single-file components: Vue (`.vue`), Svelte (`.svelte`) and Astro (`.astro`), whose code is in their `<script>`
 * blocks and, for Astro, the `---` fenced frontmatter the file opens with.
 */
export const COMPONENT_FILE = /\.(vue|svelte|astro)$/i;

const FRONTMATTER = /^(\s*---[^\S\n]*\r?\n)([\s\S]*?)(?=\r?\n---[^\S\n]*(?:\r?\n|$))/;

const SCRIPT_BLOCK = /(<script\b[^>]*>)([\s\S]*?)<\/script\s*>/gi;

/**
 * The component's script blocks in place (`<script>` and `<script setup>`, Svelte's `<script module>`, Astro's
 * frontmatter), every other character blanked and every line kept, so that a script parser's lines are the file's.
 */
export function componentScript(text: string): string {
  return componentParts(text).script;
}

/** `componentScript`, and the rest (the template, styles, the script tags) with the scripts blanked instead. */
export function componentParts(text: string): { script: string; template: string } {
  let script = '';
  let template = '';
  let from = 0;
  const frontmatter = FRONTMATTER.exec(text);
  if (frontmatter) {
    const start = frontmatter[1].length;
    script = blank(frontmatter[1]) + frontmatter[2];
    template = frontmatter[1] + blank(frontmatter[2]);
    from = start + frontmatter[2].length;
  }
  const frontmatterEnd = from;
  for (const match of text.slice(from).matchAll(SCRIPT_BLOCK)) {
    const start = frontmatterEnd + match.index + match[1].length;
    const outside = text.slice(from, start);
    script += blank(outside) + match[2];
    template += outside + blank(match[2]);
    from = start + match[2].length;
  }
  return { script: script + blank(text.slice(from)), template: template + text.slice(from) };
}

const blank = (s: string) => s.replace(/[^\r\n]/g, ' ');

/** The component's imports and declarations, from its scripts; the component itself is a symbol named by its file. */
export function analyzeComponent(relPath: string, text: string, resolver: ModuleResolver): ScriptAnalysis {
  const analysis = analyzeScript(relPath, componentScript(text), resolver);
  const name = relPath.slice(relPath.lastIndexOf('/') + 1).replace(COMPONENT_FILE, '');
  const lines = text.split('\n').length;
  const component: ParsedSymbol = {
    name, kind: 'class', parent: null, exported: true, startLine: 1, endLine: text.endsWith('\n') ? lines - 1 : lines, signature: `<${name}>`, doc: null,
  };
  // What a script exports besides the component (`<script module>`, a plain `<script>` beside `<script setup>`) stays.
  const symbols = analysis.symbols.filter((s) => !(s.name === 'default' && s.parent === null));
  return { ...analysis, symbols: [component, ...symbols] };
}
