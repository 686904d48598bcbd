import type { ParsedImport, ParsedSymbol } from '../types';
import { decisionPoints } from '../analysis/references';
import type { DocDepth } from './depth';

/** Everything about one file that depends only on its own content; stored, keyed by the content hash. */
export interface StaticDoc {
  path: string;
  language: string | null;
  lines: number;
  description: string | null;
  exports: { name: string; kind: string; line: number; signature: string | null; doc: string | null }[];
  functions: { name: string; parent: string | null; start: number; end: number; signature: string | null; complexity: number }[];
  imports: { specifier: string; target: string | null; type_only: boolean; names: string[] }[];
  notable: string[];
  risks: string[];
  /** Written by a model provider when one is configured; null for static docs. */
  narrative: string | null;
}

/**
 * A process-running module or API named in the file (Node's child_process and its wrappers, Python's
 * subprocess and os.system, Go's os/exec, Java's ProcessBuilder and Runtime.exec, Bun.spawn, Deno.Command).
 */
const PROCESS_API = /child_process|['"](execa|cross-spawn|shelljs|zx)['"]|\b(import|from)\s+subprocess\b|\bsubprocess\.\w+\s*\(|\bos\.(system|popen|exec[lv]p?e?|spawn[lv]p?e?)\s*\(|['"]os\/exec['"]|\bProcessBuilder\b|getRuntime\(\)\s*\.\s*exec\s*\(|\bBun\.spawn(Sync)?\s*\(|\bDeno\.(run\s*\(|Command\b)/;
/**
 * exec/spawn called on its own (destructured from a process module, or a global): a call on some other
 * object (`this.regexp.exec(path)`, `db.exec(sql)`) and a definition (`function exec(`) are not one.
 */
const PROCESS_CALL = /(?<![\w$.]|function\s+|def\s+)(exec|execSync|execFile|execFileSync|spawn|spawnSync)\s*\(/;

/** Whether the file starts other programs. */
export const runsProcesses = (text: string): boolean => PROCESS_API.test(text) || PROCESS_CALL.test(text);

const RISK_PATTERNS: [{ test(text: string): boolean }, string][] = [
  [/\beval\s*\(|new Function\s*\(/, 'evaluates code at run time (eval / new Function)'],
  [{ test: runsProcesses }, 'runs external processes'],
  [/catch\s*(\([^)]*\))?\s*\{\s*\}/, 'swallows errors in an empty catch block'],
  [/innerHTML\s*=|dangerouslySetInnerHTML/, 'writes raw HTML (injection risk)'],
  [/process\.env|os\.environ|getenv/i, 'reads environment variables (behaviour depends on the environment)'],
];

/** Builds the content-only part of a file's documentation from the index: symbols, imports and text. */
export function buildStaticDoc(
  file: { path: string; language: string | null; lines: number; description: string | null },
  symbols: ParsedSymbol[], imports: ParsedImport[], text: string,
): StaticDoc {
  const lines = text.split('\n');
  const functions = symbols.filter((s) => s.kind === 'function' || s.kind === 'method').map((s) => ({
    name: s.name, parent: s.parent, start: s.startLine, end: s.endLine, signature: s.signature,
    complexity: decisionPoints(lines.slice(s.startLine - 1, s.endLine).join('\n')),
  }));
  const notable: string[] = [];
  for (const f of [...functions].sort((a, b) => b.complexity - a.complexity).slice(0, 3)) {
    if (f.complexity >= 8) notable.push(`\`${f.parent ? `${f.parent}.` : ''}${f.name}\` (lines ${f.start}–${f.end}) has ${f.complexity} decision points: the branchiest logic in the file.`);
  }
  for (const f of functions) {
    if (f.end - f.start + 1 >= 80) notable.push(`\`${f.parent ? `${f.parent}.` : ''}${f.name}\` is long (${f.end - f.start + 1} lines, ${f.start}–${f.end}).`);
  }
  const throws = (text.match(/\bthrow\b/g) ?? []).length;
  if (throws) notable.push(`Throws in ${throws} place${throws === 1 ? '' : 's'}.`);
  const awaits = (text.match(/\bawait\b/g) ?? []).length;
  if (awaits) notable.push(`Asynchronous: ${awaits} \`await\` expression${awaits === 1 ? '' : 's'}.`);
  const risks: string[] = [];
  for (const [pattern, message] of RISK_PATTERNS) if (pattern.test(text)) risks.push(message);
  const markers: string[] = [];
  lines.forEach((l, i) => { if (/\b(TODO|FIXME|HACK|XXX)\b/.test(l) && markers.length < 5) markers.push(`line ${i + 1}: ${l.trim().slice(0, 120)}`); });
  if (markers.length) risks.push(`open markers — ${markers.join('; ')}`);
  const anys = (text.match(/:\s*any\b|as any\b/g) ?? []).length;
  if (anys && /typescript/.test(file.language ?? '')) risks.push(`${anys} use${anys === 1 ? '' : 's'} of \`any\` weaken type checking`);
  if (file.lines > 800) risks.push(`large file (${file.lines} lines): harder to review and change safely`);
  return {
    path: file.path, language: file.language, lines: file.lines, description: file.description,
    // The parser gives the file's leading comment to the first declaration as well; keep it as the file's only.
    exports: symbols.filter((s) => s.exported && s.parent === null).map((s) => ({
      name: s.name, kind: s.kind, line: s.startLine, signature: s.signature,
      doc: s.doc && file.description && s.doc.replace(/\s+/g, ' ').startsWith(file.description) ? null : s.doc,
    })),
    functions,
    imports: imports.map((i) => ({ specifier: i.specifier, target: i.targetPath ?? i.packageName, type_only: i.typeOnly, names: i.names })),
    notable,
    risks,
    narrative: null,
  };
}



export interface LiveFacts {
  /** Files importing this one directly, and all files reaching it. */
  direct: string[];
  total: number;
  tests: string[];
}

/** Renders stored facts plus live graph facts as Markdown at the requested depth. */
export function renderDoc(doc: StaticDoc, live: LiveFacts, depth: DocDepth): string {
  const out: string[] = [`# ${doc.path}`, ''];
  const users = live.direct.length
    ? `Used by ${live.direct.length} file${live.direct.length === 1 ? '' : 's'} directly (${live.total} in all), e.g. ${live.direct.slice(0, 3).map((d) => `\`${d}\``).join(', ')}.`
    : 'No indexed file imports it (an entry point, a script, or unused).';
  out.push(doc.narrative && depth === 'full' ? doc.narrative : [doc.description ?? purposeFromExports(doc), users].filter(Boolean).join(' '), '');
  out.push(`${doc.language ?? 'text'} · ${doc.lines} lines · ${doc.exports.length} export${doc.exports.length === 1 ? '' : 's'} · ${doc.functions.length} function${doc.functions.length === 1 ? '' : 's'}`, '');
  if (doc.exports.length) {
    out.push('## Exports', '');
    for (const e of doc.exports) {
      out.push(`- \`${e.signature ?? e.name}\` (${e.kind}, line ${e.line})`);
      if (depth === 'full' && e.doc) out.push(`  ${e.doc.split('\n')[0]}`);
    }
    out.push('');
  }
  if (depth === 'basic') return out.join('\n');
  if (doc.functions.length) {
    out.push('## Functions', '');
    for (const f of doc.functions.slice(0, 100)) out.push(`- \`${f.parent ? `${f.parent}.` : ''}${f.name}\` — lines ${f.start}–${f.end}`);
    out.push('');
  }
  if (doc.imports.length) {
    out.push('## Imports', '');
    for (const i of doc.imports.slice(0, 60)) out.push(`- \`${i.specifier}\`${i.target && i.target !== i.specifier ? ` → \`${i.target}\`` : ''}${i.type_only ? ' (types only)' : ''}`);
    out.push('');
  }
  out.push('## Dependents', '');
  if (!live.direct.length) out.push('_None in the index._');
  for (const d of live.direct.slice(0, 20)) out.push(`- \`${d}\``);
  if (live.direct.length > 20) out.push(`- … ${live.direct.length - 20} more`);
  out.push('');
  if (depth === 'summary') return out.join('\n');
  out.push('## Notable logic', '');
  out.push(...(doc.notable.length ? doc.notable.map((n) => `- ${n}`) : ['_Straight-line code; nothing stands out._']), '');
  out.push('## Risks', '');
  const risks = [...doc.risks];
  if (live.total >= 20) risks.unshift(`${live.total} files depend on it: a change here has a wide blast radius`);
  if (!live.tests.length) risks.push('no test file reaches it through imports');
  out.push(...(risks.length ? risks.map((r) => `- ${r}`) : ['_None found by static analysis._']), '');
  if (live.tests.length) out.push(`Tests that reach it: ${live.tests.slice(0, 5).map((t) => `\`${t}\``).join(', ')}.`, '');
  return out.join('\n');
}

function purposeFromExports(doc: StaticDoc): string | null {
  const documented = doc.exports.find((e) => e.doc);
  if (documented) return `Provides \`${documented.name}\`: ${documented.doc!.split('\n')[0]}`;
  if (doc.exports.length) return `Provides ${doc.exports.slice(0, 4).map((e) => `\`${e.name}\``).join(', ')}${doc.exports.length > 4 ? ', …' : ''}.`;
  return null;
}
