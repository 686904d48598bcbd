import { dirOf, joinRel, type RepoFiles } from './repo-files';

/**
 * Go's package-level names across the files of one package (a folder): what each file declares at top level
 * (functions, types, vars, consts) and the methods it declares, read from the text of the folder's files. A
 * file that uses such a name declared in a sibling depends on it (`go.ts` references; ARCHITECTURE "What an
 * edge is"). Membership is the import graph's (analysis/go-packages.ts): non-test files whose package clause
 * is the folder's package, whatever their build constraints.
 */
export interface GoPackageNames {
  /** Non-test files of the package. */
  members: Set<string>;
  /** Package-level name → files declaring it. */
  top: Map<string, string[]>;
  /** Method name → files declaring a method of that name. */
  methods: Map<string, string[]>;
}

/** The package of a folder whose files declare `units`: the clause most declare; a tie goes to the folder's name, then to the first alphabetically. */
export function majorityPackage(dir: string, units: (string | null)[]): string | null {
  const counts = new Map<string, number>();
  for (const u of units) if (u) counts.set(u, (counts.get(u) ?? 0) + 1);
  const base = dir.slice(dir.lastIndexOf('/') + 1);
  let best: string | null = null;
  for (const [name, n] of counts) {
    const bestN = best === null ? -1 : counts.get(best)!;
    if (n > bestN || (n === bestN && (name === base || (best !== base && name < best!)))) best = name;
  }
  return best;
}

/** Go text with comments, strings, raw strings and runes blanked (line breaks kept). */
function blankLiterals(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|`[^`]*`|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** The package clause and the top-level declarations of a gofmt-formatted Go file, from a light scan of its text. */
export function goDeclarations(text: string): { unit: string | null; top: string[]; methods: string[] } {
  const code = blankLiterals(text);
  const unit = /^package\s+(\w+)/m.exec(code)?.[1] ?? null;
  const top: string[] = [];
  const methods: string[] = [];
  let block: string | null = null;
  for (const line of code.split('\n')) {
    if (block) {
      if (/^\)/.test(line)) { block = null; continue; }
      // A spec of the block is indented once: `\tA, B = 1, 2`, `\tName Type`.
      const m = /^\t(\w+(?:\s*,\s*\w+)*)/.exec(line);
      if (m) top.push(...(block === 'type' ? [m[1].split(',')[0]] : m[1].split(',')).map((s) => s.trim()));
      continue;
    }
    let m = /^func\s*\([^)]*\)\s*(\w+)/.exec(line);
    if (m) { methods.push(m[1]); continue; }
    if ((m = /^func\s+(\w+)/.exec(line))) { top.push(m[1]); continue; }
    if ((m = /^(var|const|type)\s*\(/.exec(line))) { block = m[1]; continue; }
    if ((m = /^(var|const)\s+(\w+(?:\s*,\s*\w+)*)/.exec(line))) { top.push(...m[2].split(',').map((s) => s.trim())); continue; }
    if ((m = /^type\s+(\w+)/.exec(line))) top.push(m[1]);
  }
  return { unit, top: top.filter((n) => n !== '_'), methods };
}

/** The package-level names of the package in the folder of `fromPath` (cached until the files are reset). */
export function packageNames(fromPath: string, files: RepoFiles): GoPackageNames {
  const dir = dirOf(fromPath);
  return files.memo(`go-names:${dir}`, () => {
    const parsed = files.list(dir).filter((n) => n.endsWith('.go') && !n.endsWith('_test.go'))
      .map((n) => ({ file: joinRel(dir, n)!, ...goDeclarations(files.read(joinRel(dir, n)!) ?? '') }));
    const name = majorityPackage(dir, parsed.map((p) => p.unit));
    const out: GoPackageNames = { members: new Set(), top: new Map(), methods: new Map() };
    for (const p of parsed) {
      if (p.unit !== name) continue;
      out.members.add(p.file);
      for (const [map, names] of [[out.top, p.top], [out.methods, p.methods]] as const) {
        for (const n of new Set(names)) (map.get(n) ?? map.set(n, []).get(n)!).push(p.file);
      }
    }
    return out;
  });
}
