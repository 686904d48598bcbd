/**
 * Turns search hits into the grounding every model answers from: the files, the symbols in them
 * that bear on the question (with signatures and line ranges), a short excerpt of each, and the
 * edges between them (who imports whom, which function calls which). Generative models get it in
 * their prompt; the built-in model composes its answer from it directly.
 */
import { LoupeError } from '../errors';
import type { ImporterRow, ResearchStore } from '../store/research-store';
import type { Async } from '../store/surface';
import type { SymbolKind } from '../types';
import { splitIdentifier } from '../util/words';
import { bodyTraits, countCallers, isBenchPath, isDeclarationPath, moduleKey, rankLeads, readQuestion, refersBack, type CallerSource, type LeadInput } from './lead';
import { isTestPath } from '../analysis/entry-points';

export interface ResearchHit {
  repoId: string;
  repoName: string;
  filePath: string;
  startLine?: number | null;
  endLine?: number | null;
  score: number;
  /** A function hit of the search: the symbol it names (`Parent.name` for a method). */
  name?: string;
  /** A test file, as the search judged it with the repository's testing libraries; by its path alone when not given. */
  test?: boolean;
}

export interface GroundingSymbol {
  name: string;
  kind: SymbolKind;
  parent: string | null;
  startLine: number;
  endLine: number;
  signature: string | null;
  doc: string | null;
  exported: boolean;
  /** How many of the question's words the symbol's name, signature or doc contain. */
  relevance: number;
}

export interface GroundingFile {
  repoId: string;
  repoName: string;
  path: string;
  language: string | null;
  lines: number;
  description: string | null;
  excerpt: { startLine: number; endLine: number; text: string } | null;
  symbols: GroundingSymbol[];
}

export interface GroundingEdge {
  kind: 'imports' | 'calls';
  fromPath: string;
  fromSymbol: string | null;
  /** The line of the import statement, or where the caller starts. */
  fromLine: number;
  toPath: string;
  toSymbol: string | null;
  toLine: number | null;
}

/** A definition the answer leads with, or points to next. */
export interface GroundingPlace {
  repoId: string;
  repoName: string;
  path: string;
  symbol: GroundingSymbol;
}

export interface GroundingContext {
  question: string;
  /** Best first. */
  files: GroundingFile[];
  edges: GroundingEdge[];
  /** The most likely place: the definition that best answers the question (lead.ts), when one names any of its words. */
  lead?: GroundingPlace | null;
  /** The next most likely definitions, other names than the lead's, best first (at most 4). */
  related?: GroundingPlace[];
}

export interface GroundingLimits {
  maxFiles: number;
  maxSymbolsPerFile: number;
  maxExcerptLines: number;
  maxEdges: number;
  maxImporters: number;
}

export const DEFAULT_GROUNDING_LIMITS: GroundingLimits = { maxFiles: 8, maxSymbolsPerFile: 6, maxExcerptLines: 24, maxEdges: 24, maxImporters: 12 };

const STOPWORDS = new Set(('the and for are but not you all any can her was one our out has how what when where which who why does do is it in of on to a an be by '
  + 'this that with from into use used using get set there their they them then than its also code file files function functions work works find show me '
  + 'should would could about like make made way').split(' '));

/** The question's content words, lower-cased, identifiers split into sub-words as the index does. */
export function questionWords(question: string): Set<string> {
  const words = new Set<string>();
  for (const token of question.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? []) {
    for (const w of [token.toLowerCase(), ...splitIdentifier(token)]) {
      const stem = w.replace(/(ies|es|s)$/, (m) => (m === 'ies' ? 'y' : '')); // "shapes" finds "shape"
      if (w.length >= 3 && !STOPWORDS.has(w)) words.add(w).add(stem);
    }
  }
  return words;
}

function relevance(words: Set<string>, s: { name: string; signature: string | null; doc: string | null }): number {
  const nameWords = new Set([s.name.toLowerCase(), ...splitIdentifier(s.name)]);
  const text = `${s.signature ?? ''} ${s.doc ?? ''}`.toLowerCase();
  let score = 0;
  for (const w of words) {
    if (nameWords.has(w)) score += 2;
    else if (w.length >= 4 && text.includes(w)) score += 1;
  }
  return score;
}

const CALLABLE: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'constant', 'variable', 'class']);
/** Symbols longer than this are containers (class bodies, object literals). */
const CONTAINER_LINES = 150;
/** `var x = require('…')`, `import …`: bindings of imports, not definitions. */
const isImportBinding = (signature: string | null) => !!signature && (/=\s*require\s*\(/.test(signature) || /^\s*import\b/.test(signature));

const FUNCTION_KINDS: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'class']);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The previous answer's subject, for a follow-up: the place its first line named. */
export interface GroundingSubject {
  repoId: string;
  repoName: string;
  path: string;
  name: string;
  startLine: number;
}

/**
 * The grounding, read through the index's async surface (`core.reads.research`: SQLite's store, or the
 * team server's PostgreSQL one). The composition below is synchronous over what has been read
 * (`GroundingReads`): a pass that needs a row not read yet notes it and stops at the next phase's end;
 * the noted rows are then read together (one `Promise.all`, never an await per row) and the pass runs
 * again. The last pass has read everything from memory, so the answer is the one the synchronous store
 * gave. The hits' files (with their symbols and imports) are read before the first pass; the lead, once
 * chosen from rows all read, is kept; the edges need a few more rounds.
 */
export async function buildGroundingContext(
  store: Async<ResearchStore>, question: string, hits: ResearchHit[], limits: GroundingLimits = DEFAULT_GROUNDING_LIMITS, subject: GroundingSubject | null = null,
  /** Identifiers a model named for the question, best first (retrieval-assist.ts): they lead the choice of the first place. */
  hints: string[] = [],
): Promise<GroundingContext> {
  const reads = new GroundingReads(store);
  const keys = new Map<string, ResearchHit>();
  for (const h of hits) keys.set(`${h.repoId}\0${h.filePath}`, h);
  if (subject) keys.set(`${subject.repoId}\0${subject.path}`, { repoId: subject.repoId, repoName: subject.repoName, filePath: subject.path, score: 0 });
  for (const h of keys.values()) reads.file(h.repoId, h.filePath);
  // Passes that only gather what to read (no call matching, the lead ranked once its rows are in), then the one that composes.
  for (let round = 0; reads.missing; round++) {
    if (round > 50) throw new LoupeError('INTERNAL', 'grounding: the index kept answering rows not read before');
    await reads.fill();
    composeGrounding(reads, question, hits, limits, subject, hints);
  }
  reads.gathering = false;
  const context = composeGrounding(reads, question, hits, limits, subject, hints);
  if (!context || reads.missing) throw new LoupeError('INTERNAL', 'grounding: a row was missing after every read was done');
  return context;
}

/** One pass of the grounding over what `reads` holds; null when it stopped at a phase's end to read more. */
function composeGrounding(
  store: GroundingReads, question: string, hits: ResearchHit[], limits: GroundingLimits, subject: GroundingSubject | null, hints: string[],
): GroundingContext | null {
  const words = questionWords(question);
  const q = readQuestion(question);
  // Test and benchmark code only when the question asks for it.
  const usable = hits.filter((h) => q.wantsTests || !((h.test ?? isTestPath(h.filePath)) || isBenchPath(h.filePath)));
  const rows = new Map<string, { row: NonNullable<ReturnType<ResearchStore['file']>>; symbols: ReturnType<ResearchStore['symbols']> } | null>();
  const read = (repoId: string, path: string) => {
    const key = `${repoId}\0${path}`;
    if (!rows.has(key)) {
      const row = store.file(repoId, path);
      rows.set(key, row ? { row, symbols: store.symbols(row.id) } : null);
    }
    return rows.get(key)!;
  };

  // A follow-up that points back ("where is it called?") is about the previous answer's subject.
  const back = subject && refersBack(question) ? subject : null;
  if (back && !usable.some((h) => h.repoId === back.repoId && h.filePath === back.path)) {
    usable.unshift({ repoId: back.repoId, repoName: back.repoName, filePath: back.path, startLine: back.startLine, endLine: back.startLine, score: 1 });
  }
  const text = (repoId: string, path: string) => {
    const found = read(repoId, path);
    return found ? store.lines(found.row.id, 1, found.row.lines) : null;
  };
  const importers = (repoId: string, path: string) => store.importersOf(repoId, [path], IMPORTERS_READ);
  // The lead, once a pass chose it from rows all read, stays chosen: the next passes only read the edges.
  const { lead, related } = store.lead ?? chooseLead(q, question, usable, read, back, hints, text, importers, () => store.missing);
  if (store.missing) return null;
  store.lead = { lead, related };
  const seen = new Map<string, ResearchHit>();
  // The lead's file first: the answer starts there.
  const leadHit = lead && usable.find((h) => h.repoId === lead.repoId && h.filePath === lead.path);
  if (leadHit) seen.set(`${leadHit.repoId}\0${leadHit.filePath}`, leadHit);
  for (const hit of usable) {
    const key = `${hit.repoId}\0${hit.filePath}`;
    if (seen.size >= limits.maxFiles) break;
    if (!seen.has(key)) seen.set(key, hit);
  }

  const files: GroundingFile[] = [];
  const edges: GroundingEdge[] = [];
  const edgeKeys = new Set<string>();
  const addEdge = (e: GroundingEdge) => {
    const key = `${e.kind}|${e.fromPath}|${e.fromSymbol}|${e.toPath}|${e.toSymbol}`;
    if (edgeKeys.has(key) || edges.length >= limits.maxEdges) return;
    edgeKeys.add(key);
    edges.push(e);
  };

  // Edges are gathered first and ranked afterwards: the ones touching what answers the question win.
  const candidates: GroundingEdge[] = [];
  const collect = (e: GroundingEdge) => { candidates.push(e); };

  for (const hit of seen.values()) {
    const found = read(hit.repoId, hit.filePath);
    if (!found) continue; // removed since the search ran
    const { row, symbols: all } = found;
    const isLead = (x: { name: string; startLine: number }) => !!lead && lead.repoId === row.repoId && lead.path === row.path
      && lead.symbol.name === x.name && lead.symbol.startLine === x.startLine;
    const inHit = (s: { startLine: number; endLine: number }) =>
      hit.startLine != null && hit.endLine != null && s.startLine <= hit.endLine && s.endLine >= hit.startLine;
    const scored = all.filter((s) => !isImportBinding(s.signature)).map((s) => ({
      ...s,
      // Containers (a 700-line class object) match every word; what they contain says more.
      relevance: relevance(words, s) + (inHit(s) ? 1 : 0) - (s.endLine - s.startLine > CONTAINER_LINES ? 1 : 0) + (isLead(s) ? 10 : 0),
    }));
    let chosen = scored.filter((s) => s.relevance > 0);
    if (!chosen.length) chosen = scored.filter((s) => s.exported && s.parent === null);
    chosen = chosen.sort((a, b) => b.relevance - a.relevance || Number(inHit(b)) - Number(inHit(a)) || a.startLine - b.startLine)
      .slice(0, limits.maxSymbolsPerFile).sort((a, b) => a.startLine - b.startLine);
    const small = chosen.filter((s) => s.endLine - s.startLine <= CONTAINER_LINES);
    if (small.length) chosen = small; // the members say more than the object that holds them

    // The excerpt: the most relevant symbol short enough to quote, else the hit's own lines.
    const best = [...chosen].filter((s) => s.endLine - s.startLine < limits.maxExcerptLines * 2)
      .sort((a, b) => b.relevance - a.relevance || Number(inHit(b)) - Number(inHit(a)))[0];
    const leadHere = chosen.find(isLead);
    const range = leadHere ? { start: leadHere.startLine, end: leadHere.endLine }
      : best && (best.relevance > 1 || hit.startLine == null)
      ? { start: best.doc ? Math.max(1, best.startLine - 1) : best.startLine, end: best.endLine }
      : hit.startLine != null && hit.endLine != null ? { start: hit.startLine, end: hit.endLine } : { start: 1, end: row.lines };
    const end = Math.min(range.end, range.start + limits.maxExcerptLines - 1, row.lines);
    const text = store.lines(row.id, range.start, end).join('\n');
    files.push({
      repoId: row.repoId, repoName: hit.repoName, path: row.path, language: row.language, lines: row.lines,
      description: row.description, excerpt: text.trim() ? { startLine: range.start, endLine: end, text } : null, symbols: chosen,
    });
    collectEdges(store, row.id, row.path, row.repoId, all, collect);
  }

  // One hop out: who uses the files we found, and through which calls.
  const importerPaths = new Set<string>();
  for (const repoId of new Set(files.map((f) => f.repoId))) {
    const paths = files.filter((f) => f.repoId === repoId).map((f) => f.path);
    const found = new Set(paths);
    const importers = store.importersOf(repoId, paths, limits.maxImporters * 4)
      .filter((i) => !found.has(i.path) && (q.wantsTests || !(isTestPath(i.path) || isBenchPath(i.path))));
    for (const importer of importers.slice(0, limits.maxImporters)) {
      const row = store.file(repoId, importer.path);
      if (!row) continue;
      importerPaths.add(row.path);
      collectEdges(store, row.id, row.path, repoId, store.symbols(row.id), collect, found);
    }
  }
  if (store.missing) return null;

  const contextPaths = new Set(files.map((f) => f.path));
  const chosenNames = new Set(files.flatMap((f) => f.symbols.map((s) => `${f.path}\0${s.name}`)));
  const rank = (e: GroundingEdge): number => {
    if (e.kind === 'calls') {
      if (chosenNames.has(`${e.fromPath}\0${e.fromSymbol}`) || chosenNames.has(`${e.toPath}\0${e.toSymbol}`)) return 3;
      return e.fromPath !== e.toPath ? 2 : 0;
    }
    // An import says something when it links two found files, or leads into them from outside.
    return contextPaths.has(e.toPath) && (contextPaths.has(e.fromPath) || importerPaths.has(e.fromPath)) ? 1 : -1;
  };
  const ranked = candidates.map((e, i) => ({ e, i, r: rank(e) })).filter((x) => x.r >= 0)
    .sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { e } of ranked) addEdge(e);
  const place = (l: LeadPick): GroundingPlace => ({ repoId: l.repoId, repoName: l.repoName, path: l.path, symbol: { ...l.symbol, relevance: Math.round(l.score * 10) / 10 } });
  return { question, files, edges, lead: lead ? place(lead) : null, related: related.map(place) };
}

export interface LeadCandidate extends LeadInput { repoId: string; repoName: string; symbol: ReturnType<ResearchStore['symbols']>[number] }
interface LeadPick { repoId: string; repoName: string; path: string; symbol: LeadCandidate['symbol']; score: number }

/** How many of the search's files, and of its function hits, the lead is chosen among. */
const LEAD_FILES = 12;
const LEAD_FUNCTION_HITS = 8;
/** Import edges read per candidate file: enough to count, not a whole repository's. */
const IMPORTERS_READ = 500;

/**
 * The most likely place and the next ones (other names, best first), among the definitions of the
 * search's top files and its function hits. Copies of one definition (a package's ES module and
 * CommonJS builds) count once.
 */
function chooseLead(
  q: ReturnType<typeof readQuestion>, question: string, hits: ResearchHit[],
  read: (repoId: string, path: string) => { row: { repoId: string; path: string }; symbols: ReturnType<ResearchStore['symbols']> } | null,
  subject: GroundingSubject | null,
  hints: string[],
  text?: (repoId: string, path: string) => string[] | null,
  importers?: (repoId: string, path: string) => ImporterRow[],
  /** True while rows are still being read: the candidates' reads are made, not their ranking. */
  reading?: () => boolean,
): { lead: LeadPick | null; related: LeadPick[] } {
  const candidates = leadCandidates(hits, read, hints, text, importers, reading);
  if (reading?.()) return { lead: null, related: [] };
  const isSubject = (c: LeadCandidate) => !!subject && c.repoId === subject.repoId && c.path === subject.path
    && c.symbol.startLine === subject.startLine && (c.symbol.parent ? `${c.symbol.parent}.${c.symbol.name}` : c.symbol.name) === subject.name;
  const ranked = rankLeads(q, candidates, question, subject ? isSubject : undefined);
  const picks: LeadPick[] = [];
  const names = new Set<string>();
  // A bundler renames what clashes in its one file (`Axios$1`, `InterceptorManager$1`): still the same definition.
  const unbundled = (n: string) => n.replace(/\$\d+$/, '');
  for (const { candidate: c, score } of ranked) {
    const name = c.symbol.parent ? `${unbundled(c.symbol.parent)}.${unbundled(c.symbol.name)}` : unbundled(c.symbol.name);
    if (names.has(name)) continue;
    names.add(name);
    picks.push({ repoId: c.repoId, repoName: c.repoName, path: c.path, symbol: c.symbol, score });
    if (picks.length >= 5) break;
  }
  return { lead: picks[0] ?? null, related: picks.slice(1) };
}

/** The definitions the lead is chosen among: those of the search's top files and its function hits. */
export function leadCandidates(
  hits: ResearchHit[],
  read: (repoId: string, path: string) => { row: { repoId: string; path: string; generated?: boolean }; symbols: ReturnType<ResearchStore['symbols']> } | null,
  hints: string[] = [],
  /** A file's lines, for what the definitions' bodies say (stubs, callers); without it they are not looked at. */
  text?: (repoId: string, path: string) => string[] | null,
  /** The files importing a file (the import graph), for how many import each definition; without it they are not counted. */
  importers?: (repoId: string, path: string) => ImporterRow[],
  /** True while rows are still being read (grounding's gathering passes): what the bodies say is not worked out yet. */
  reading?: () => boolean,
): LeadCandidate[] {
  const fileRank = new Map<string, number>();
  const hitRank = new Map<string, number>();
  let functions = 0;
  for (const h of hits) {
    const key = `${h.repoId}\0${h.filePath}`;
    if (h.name !== undefined) {
      if (functions < LEAD_FUNCTION_HITS && !hitRank.has(`${key}\0${h.name}\0${h.startLine}`)) hitRank.set(`${key}\0${h.name}\0${h.startLine}`, functions++);
      else continue;
    }
    if (!fileRank.has(key) && (fileRank.size < LEAD_FILES || h.name !== undefined)) fileRank.set(key, fileRank.size);
  }
  const byKey = new Map(hits.map((h) => [`${h.repoId}\0${h.filePath}`, h]));
  const candidates: LeadCandidate[] = [];
  for (const [key, rank] of fileRank) {
    const hit = byKey.get(key)!;
    const found = read(hit.repoId, hit.filePath);
    if (!found) continue;
    for (const s of found.symbols) {
      if (isImportBinding(s.signature)) continue;
      const name = s.parent ? `${s.parent}.${s.name}` : s.name;
      const hint = hints.findIndex((h) => h === name || h === s.name);
      candidates.push({
        repoId: hit.repoId, repoName: hit.repoName, path: hit.filePath, fileRank: rank, symbol: s, generated: found.row.generated, test: hit.test,
        hitRank: hitRank.get(`${key}\0${name}\0${s.startLine}`), hintRank: hint >= 0 ? hint : undefined,
      });
    }
  }
  // Copies of one definition (its ES module and CommonJS builds, its declaration) share the search's best rank of any of them:
  // a declaration the search ranked first speaks for the implementation it declares.
  const copies = new Map<string, { fileRank: number; hitRank: number | undefined }>();
  const copyKey = (c: LeadCandidate) => `${c.repoId}\0${moduleKey(c.path)}\0${c.symbol.parent ?? ''}.${c.symbol.name}`;
  for (const c of candidates) {
    const k = copyKey(c);
    const e = copies.get(k);
    if (!e) copies.set(k, { fileRank: c.fileRank, hitRank: c.hitRank });
    else {
      e.fileRank = Math.min(e.fileRank, c.fileRank);
      if (c.hitRank !== undefined) e.hitRank = Math.min(e.hitRank ?? c.hitRank, c.hitRank);
    }
  }
  for (const c of candidates) {
    const e = copies.get(copyKey(c))!;
    c.fileRank = e.fileRank;
    c.hitRank = e.hitRank;
  }
  if (importers) {
    // How many other files import a definition by name (a method: its class), or its whole file (`import x`, `*`).
    const byFile = new Map<string, ImporterRow[]>();
    for (const c of candidates) {
      const key = `${c.repoId}\0${c.path}`;
      let rows = byFile.get(key);
      if (!rows) byFile.set(key, (rows = isDeclarationPath(c.path) ? [] : importers(c.repoId, c.path).filter((r) => r.path !== c.path && !isTestPath(r.path) && !isBenchPath(r.path))));
      const top = c.symbol.parent ?? c.symbol.name;
      c.importers = new Set(rows.filter((r) => r.names.includes(top) || r.names.includes('*') || r.names.length === 0).map((r) => r.path)).size;
    }
  }
  if (!text) return candidates;
  // What the bodies say: which definitions only refuse (a subclass does the work), and which the code calls.
  const sources: CallerSource[] = [];
  const linesOf = new Map<string, string[]>();
  for (const key of fileRank.keys()) {
    const hit = byKey.get(key)!;
    if (isDeclarationPath(hit.filePath) || (hit.test ?? isTestPath(hit.filePath)) || isBenchPath(hit.filePath)) continue;
    const found = read(hit.repoId, hit.filePath);
    const lines = found && text(hit.repoId, hit.filePath);
    if (!found || !lines) continue;
    linesOf.set(key, lines);
    sources.push({ path: hit.filePath, lines, symbols: found.symbols });
  }
  if (reading?.()) return candidates;
  const callers = countCallers(sources);
  for (const c of candidates) {
    const lines = linesOf.get(`${c.repoId}\0${c.path}`);
    if (lines) c.body = bodyTraits(c.symbol.kind, c.symbol.signature, lines.slice(c.symbol.startLine - 1, c.symbol.endLine));
    c.callers = callers.get(c.symbol.name) ?? 0;
  }
  return candidates;
}

/**
 * The store's reads, each done once per grounding (the edges look up the same imported files for
 * every name they import), answered synchronously from memory. A read not in memory yet answers
 * empty and is noted (`missing`); `fill()` reads every noted one at once.
 */
class GroundingReads implements ResearchStore {
  private readonly cache = new Map<string, unknown>();
  /** The lead and related places, once a pass chose them with nothing missing. */
  lead: { lead: LeadPick | null; related: LeadPick[] } | null = null;
  /** Passes before the last only gather what to read: call matching (the costly part) waits for the last one. */
  gathering = true;
  private noted = new Map<string, () => Promise<unknown>>();

  constructor(private readonly store: Async<ResearchStore>) {}

  /** Whether this pass asked for a row not read yet. */
  get missing(): boolean {
    return this.noted.size > 0;
  }

  async fill(): Promise<void> {
    const noted = [...this.noted];
    this.noted = new Map();
    const values = await Promise.all(noted.map(([, read]) => read()));
    noted.forEach(([key], i) => this.cache.set(key, values[i]));
  }

  private get<T>(key: string, read: () => Promise<T>, empty: T): T {
    if (this.cache.has(key)) return this.cache.get(key) as T;
    if (!this.noted.has(key)) this.noted.set(key, read);
    return empty;
  }

  /** A file's row; its symbols and imports are read with it (grounding reads them of nearly every file it reads). */
  file(repoId: string, path: string) {
    return this.get(`f\0${repoId}\0${path}`, async () => {
      const row = await this.store.file(repoId, path);
      if (row && !this.cache.has(`s\0${row.id}`)) {
        const [symbols, imports] = await Promise.all([this.store.symbols(row.id), this.store.localImports(row.id)]);
        this.cache.set(`s\0${row.id}`, symbols);
        this.cache.set(`i\0${row.id}`, imports);
      }
      return row;
    }, undefined);
  }

  symbols(fileId: number) {
    return this.get(`s\0${fileId}`, () => this.store.symbols(fileId), []);
  }

  localImports(fileId: number) {
    return this.get(`i\0${fileId}`, () => this.store.localImports(fileId), []);
  }

  importersOf(repoId: string, paths: string[], limit: number) {
    return this.get(`m\0${repoId}\0${limit}\0${paths.join('\0')}`, () => this.store.importersOf(repoId, paths, limit), []);
  }

  lines(fileId: number, start: number, end: number) {
    return this.get(`l\0${fileId}\0${start}\0${end}`, () => this.store.lines(fileId, start, end), []);
  }

  symbolNames(): string[] {
    throw new LoupeError('INTERNAL', 'grounding does not read the symbol names');
  }
}

/**
 * Edges out of one file: its imports of other repository files, and the calls its functions make
 * to what it imports or to its own functions (a call is the name followed by `(`, or passed on as a
 * value, inside the caller's line range). `onlyTargets` keeps just the edges into those paths.
 */
function collectEdges(
  store: GroundingReads, fileId: number, path: string, repoId: string, symbols: { name: string; kind: SymbolKind; startLine: number; endLine: number; parent: string | null }[],
  add: (e: GroundingEdge) => void, onlyTargets?: Set<string>,
): void {
  const imports = store.localImports(fileId).filter((i) => !onlyTargets || onlyTargets.has(i.targetPath!));
  const callers = symbols.filter((s) => s.kind === 'function' || s.kind === 'method' || (s.kind === 'constant' && s.endLine > s.startLine));
  // One read of the file, sliced per function: a file may hold hundreds of them.
  const last = callers.reduce((m, s) => Math.max(m, s.endLine), 0);
  const text = last ? store.lines(fileId, 1, last) : [];
  const targets: { name: string; toPath: string; toLine: number | null; callable: boolean }[] = [];
  for (const imp of imports) {
    add({ kind: 'imports', fromPath: path, fromSymbol: null, fromLine: imp.line, toPath: imp.targetPath!, toSymbol: null, toLine: null });
    for (const name of imp.names) {
      if (name === '*' || name === 'default') continue;
      targets.push({ name, ...locate(store, repoId, imp.targetPath!, name) });
    }
  }
  if (!onlyTargets) {
    for (const s of symbols) if (s.parent === null && CALLABLE.has(s.kind)) targets.push({ name: s.name, toPath: path, toLine: s.startLine, callable: FUNCTION_KINDS.has(s.kind) });
  }
  // A gathering pass only learns what to read: its edges are thrown away.
  if (store.gathering) return;
  const bodies = new Map(callers.map((s) => [s, text.slice(s.startLine - 1, s.endLine).join('\n')]));
  for (const [caller, body] of bodies) {
    // Skip the caller's own declaration line so a function does not "call" itself by being declared.
    const rest = body.split('\n').slice(1).join('\n');
    for (const t of targets) {
      if (t.name === caller.name && t.toPath === path) continue;
      const name = escapeRe(t.name);
      // A call, or a function handed on as a value (`shapes.map(area)`); constants only count when called.
      const pattern = t.callable ? `(?<![\\w$.])${name}\\s*\\(|[(,]\\s*${name}\\s*[),]` : `(?<![\\w$.])${name}\\s*\\(`;
      if (new RegExp(pattern).test(rest)) {
        add({ kind: 'calls', fromPath: path, fromSymbol: caller.name, fromLine: caller.startLine, toPath: t.toPath, toSymbol: t.name, toLine: t.toLine });
      }
    }
  }
}

/** Where `name` is defined: in the imported file, or one re-export further (barrel files). */
function locate(store: GroundingReads, repoId: string, targetPath: string, name: string): { toPath: string; toLine: number | null; callable: boolean } {
  const row = store.file(repoId, targetPath);
  if (!row) return { toPath: targetPath, toLine: null, callable: false };
  const own = store.symbols(row.id).find((s) => s.name === name && s.parent === null);
  if (own) return { toPath: targetPath, toLine: own.startLine, callable: FUNCTION_KINDS.has(own.kind) };
  for (const re of store.localImports(row.id)) {
    if ((re.kind !== 'export' && re.kind !== 'export-all') || !(re.names.includes(name) || re.names.includes('*'))) continue;
    const next = store.file(repoId, re.targetPath!);
    const sym = next && store.symbols(next.id).find((s) => s.name === name && s.parent === null);
    if (sym) return { toPath: re.targetPath!, toLine: sym.startLine, callable: FUNCTION_KINDS.has(sym.kind) };
  }
  return { toPath: targetPath, toLine: null, callable: false };
}
