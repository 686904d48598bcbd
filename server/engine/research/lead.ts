/**
 * The most likely place: which definition among the search's top files answers the question. A
 * developer reading an answer wants the function that does the thing asked about first, not a type
 * or a constant that merely mentions the words. Candidates are the definitions of the top hit files
 * (and the search's function hits); each is scored by how much of the question its own name says
 * (light stems, so "verified" meets `verify` and "parameters" `param`; initials, so "server-sent
 * events" meets `SSE`), what its file's path says, its doc comment, what kind of definition it is,
 * and how high the search ranked it (the best rank of any copy: builds and declaration). What its
 * body says counts too (bodyTraits: stubs, registering decorators, deprecated code, getters and
 * setters step back), how many definitions call it (countCallers) and how many files import it. Declarations (`.d.ts`),
 * tests, benchmarks and generated files (a generator's banner: react-native-windows' codegen specs beside the modules
 * that implement them) step back unless the question asks for them.
 */
import { stem, STOP_WORDS } from '../embed/terms';
import { isTestPath } from '../analysis/entry-points';
import type { SymbolKind } from '../types';
import { splitIdentifier } from '../util/words';

/** Words a question is made of that say nothing about the code's subject. */
const QUESTION_NOISE = new Set(('happen happens happening done handled handle handles handling way ways place places part parts '
  + 'look implemented implement implementation logic defined define definition does did work working '
  + 'called call calls where which what who whom whose how why when').split(' '));

/** Stop words for full-text search that still say what a question is about. */
const KEPT = new Set(['find', 'show']);

export interface QuestionWords {
  /** Content words, lower-cased (identifiers split into sub-words). */
  words: string[];
  /** Their light stems, same order. */
  stems: string[];
  /** Whether the question asks about tests or benchmarks. */
  wantsTests: boolean;
  /** Whether it asks about type declarations. */
  wantsTypes: boolean;
  /** Whether it asks about generated code. */
  wantsGenerated: boolean;
}

export function readQuestion(question: string): QuestionWords {
  const words: string[] = [];
  const add = (w: string) => {
    if (w.length < 2 || (STOP_WORDS.has(w) && !KEPT.has(w)) || QUESTION_NOISE.has(w) || words.includes(w)) return;
    words.push(w);
  };
  const tokens = question.match(/[A-Za-z_$#][A-Za-z0-9_$]*/g) ?? [];
  const plain: string[] = [];
  for (const token of tokens) {
    const parts = splitIdentifier(token);
    if (parts.length > 1) add(token.toLowerCase().replace(/^[_#$]+/, ''));
    for (const p of parts) add(p);
    if (parts.length === 1) plain.push(parts[0]);
  }
  // Initials of two or three words in a row that are not stop words: "server-sent events" → sse.
  const content = question.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3 && !STOP_WORDS.has(w));
  for (let n = 2; n <= 3; n++) {
    for (let i = 0; i + n <= content.length; i++) {
      const initials = content.slice(i, i + n).map((w) => w[0]).join('');
      if (!words.includes(initials)) words.push(`\u0000${initials}`); // marked: matches a whole name word only
    }
  }
  const all = question.toLowerCase();
  return {
    words,
    stems: words.map((w) => (w.startsWith('\u0000') ? w : stem(w))),
    wantsTests: /\b(tests?|testing|spec|specs|unit|benchmarks?|bench|fixtures?)\b/.test(all),
    wantsTypes: /\b(types?|interfaces?|typings?|declarations?|declared|d\.ts)\b/.test(all),
    wantsGenerated: /\b(generated|generate|codegen|protobuf|proto|pb)\b/.test(all),
  };
}

/**
 * How well a question word (a stem) meets a word of code (a stem): 1 when equal or one is a prefix of
 * the other (4+ letters), or the code word is a 3-letter abbreviation of it (`env`, `req`); 0.75
 * when the code word is a compound ending in it (`pyfile`, `dotenv`); else 0.
 */
function meets(q: string, code: string): number {
  if (q.startsWith('\u0000')) return q.slice(1) === code ? 1 : 0;
  if (q === code) return 1;
  if (code.length === 3 && q.length > 4 && q.startsWith(code)) return 1;
  const [short, long] = q.length <= code.length ? [q, code] : [code, q];
  if (short.length >= 4 && long.startsWith(short)) return 1;
  if (q.length >= 3 && code.length >= q.length + 2 && code.endsWith(q)) return 0.75;
  return 0;
}

const codeStems = (words: string[]) => words.map((w) => stem(w));

/** Path segments that say where, not what. */
const PATH_NOISE = new Set(['dist', 'cjs', 'esm', 'src', 'lib', 'index', 'mod', 'main', 'build', 'out', 'types', 'package', 'packages', 'usr', 'site', 'dist-packages', 'js', 'ts', 'py']);

/** Whether a follow-up points back at the previous answer's subject ("where is it called?"). */
export function refersBack(question: string): boolean {
  if (/\b(it|its|it's|this|that|these|those|they|them|their|there|same|above|previous|earlier)\b/i.test(question)) return true;
  // "and the callers?": nothing of its own to search for.
  return readQuestion(question).words.filter((w) => !w.startsWith('\u0000')).length === 0;
}

export const isBenchPath = (p: string): boolean => /(^|\/)(bench|benchmarks?|perf)\/|\.bench\.[cm]?[jt]sx?$|_bench\.(go|py)$/i.test(p);
export const isDeclarationPath = (p: string): boolean => /\.d\.[cm]?ts$/.test(p);

export interface LeadInput {
  path: string;
  /** 0 for the search's best file. */
  fileRank: number;
  symbol: {
    name: string; kind: SymbolKind; parent: string | null; startLine: number; endLine: number;
    signature: string | null; doc: string | null; exported: boolean;
  };
  /** Its rank among the search's function hits, when it is one. */
  hitRank?: number;
  /** Its file was written by a tool (files.generated: a generator's banner). */
  generated?: boolean;
  /** Its file is a test (the search's judgement, testing libraries aside); by its path alone when not given. */
  test?: boolean;
  /** Its rank among the identifiers a model named for the question (retrieval-assist.ts), when it is one. */
  hintRank?: number;
  /** What its body says about it, when it was read. */
  body?: BodyTraits;
  /** How many other definitions of the files considered call it (by its name): what the code itself relies on. */
  callers?: number;
  /** How many other files import it by name (a method: its class) or import its whole file. */
  importers?: number;
}

export interface ScoredLead<T extends LeadInput = LeadInput> { candidate: T; score: number; nameHits: number }

const KIND_WEIGHT: Partial<Record<SymbolKind, number>> = { function: 1.5, method: 1.5, class: -0.5, constant: 0, variable: 0 };
const CONTAINER_LINES = 150;
/** How many classes of one file define a method before each is a variant (see LeadFeatures.variant). */
const VARIANTS = 3;

/** Names of exception types: the place a question asks about is rarely the error it throws. */
const ERROR_NAME = /(error|exception|invalid|mismatch|failed|failure|not(found|allowed|supported))$/i;
const TYPE_ALIAS = /=\s*(t\.|typing\.|te\.)?(TypeVar|Union|Optional|Callable|Dict|List|Tuple|Type|Mapping|Sequence|Iterable|Literal|NewType)\b\s*[[(]/;
const ASKS_REGISTERING = /\b(regist\w*|decorat\w*|add\w*|attach\w*|hook\w*|subscrib\w*|listen\w*)\b/i;
const ASKS_ERRORS = /\b(errors?|exceptions?|throws?|thrown|raises?|raised|invalid|fail\w*)\b/i;

/** Every candidate scored, best first; those that share no word with the question are left out. */
/** What a candidate's score is made of (see rankLeads). */
export interface LeadFeatures {
  /** Question words its name says, each weighted by how rare it is among the candidates' names. */
  inName: number;
  nameHits: number;
  /** Question words its path or its class say (at most 2). */
  inPath: number;
  /** Question words its signature or doc comment say (at most 3). */
  inText: number;
  /**
   * Share of the question's words only its code says (a function's body, when it was read), when its name says none:
   * what it does stands in for what it is called (axios' `Axios._request` runs the interceptors its name does not mention).
   */
  inBody: number;
  /** Share of its name's words the question says. */
  covered: number;
  /** Share of the question's words its name, path, class, signature or doc say. */
  matched: number;
  /** function/method 1.5 (a constant holding a function too), class -0.5, constant 0, type -2. */
  kind: number;
  fileRank: number;
  hitRank: number | null;
  hintRank: number | null;
  container: boolean;
  declaration: boolean;
  stub: boolean;
  /** One of several classes' methods of one name in its file, and the question does not name its class. */
  variant: boolean;
  /** A getter that returns a field: what is asked about happens where the field is filled. */
  accessor: boolean;
  /** A decorator that registers what it is given, when the question does not ask about registering. */
  registrar: boolean;
  deprecated: boolean;
  callers: number;
  importers: number;
  test: boolean;
  /** In a file a tool wrote, when the question does not ask for generated code. */
  generated: boolean;
  error: boolean;
  subject: boolean;
}

export const LEAD_WEIGHTS = {
  name: 2, path: 2, text: 0.5, covered: 2, file: 1.5, hit: 1.5, container: -1, declaration: -4, test: -4, generated: -4, error: -2, noName: -1, subject: 20, hint: 8,
  stub: -4, registrar: -4, deprecated: -3, callers: 1, matched: 3, accessor: -2, variant: -1, importers: 1, body: 2,
};

/** What a question word only a definition's code says counts for, against one its name, path or doc says. */
const BODY_WORD = 0.5;

/** Callers count up to this many (log scale): a definition everything calls is not ten times the answer. */
const MAX_CALLERS = 7;

export function leadScore(f: LeadFeatures, w = LEAD_WEIGHTS): number {
  return w.name * f.inName + w.matched * f.matched + w.path * f.inPath + w.text * f.inText + w.body * f.inBody + w.covered * f.covered + f.kind
    + w.file / (1 + f.fileRank) + (f.hitRank !== null ? w.hit / (1 + f.hitRank) : 0)
    + (f.container ? w.container : 0) + (f.declaration ? w.declaration : 0) + (f.test ? w.test : 0) + (f.generated ? w.generated : 0) + (f.error ? w.error : 0)
    + (f.nameHits ? 0 : w.noName) + (f.subject ? w.subject : 0) + (f.hintRank !== null ? w.hint / (1 + f.hintRank) : 0)
    + (f.variant ? w.variant : 0) + (f.accessor ? w.accessor : 0) + (f.stub ? w.stub : 0) + (f.registrar ? w.registrar : 0) + (f.deprecated ? w.deprecated : 0) + w.callers * (Math.log2(1 + Math.min(f.callers, MAX_CALLERS)) / 3)
    + w.importers * (Math.log2(1 + Math.min(f.importers, MAX_CALLERS)) / 3);
}

export function rankLeads<T extends LeadInput>(q: QuestionWords, candidates: T[], question = '', subject?: (c: T) => boolean): ScoredLead<T>[] {
  return leadFeatures(q, candidates, question, subject).map(({ candidate, features }) => ({ candidate, score: leadScore(features), nameHits: features.nameHits }))
    .sort((a, b) => b.score - a.score || (a.candidate.hitRank ?? Infinity) - (b.candidate.hitRank ?? Infinity)
      || a.candidate.fileRank - b.candidate.fileRank || a.candidate.symbol.startLine - b.candidate.symbol.startLine);
}

/** The features of every candidate that shares a word with the question (or is the follow-up's subject). */
export function leadFeatures<T extends LeadInput>(q: QuestionWords, candidates: T[], question = '', subject?: (c: T) => boolean): { candidate: T; features: LeadFeatures }[] {
  const out: { candidate: T; features: LeadFeatures }[] = [];
  const pathWordsCache = new Map<string, string[]>();
  const names = candidates.map((c) => codeStems(splitIdentifier(c.symbol.name).filter((w) => !STOP_WORDS.has(w) || KEPT.has(w))));
  // How rare each question word is among the candidates' names: a word every name has decides little.
  const idf = q.stems.map((w) => {
    const df = names.filter((n) => n.some((x) => meets(w, x) > 0)).length;
    return Math.log(1 + candidates.length / (1 + df));
  });
  const realIdf = idf.filter((_, k) => !q.stems[k].startsWith('\u0000'));
  const meanIdf = realIdf.length ? realIdf.reduce((a, b) => a + b, 0) / realIdf.length : 1;
  const asksErrors = ASKS_ERRORS.test(question);
  const real = q.stems.filter((w) => !w.startsWith('\u0000'));
  const realWords = real.length;
  // Methods of one name that several classes of a file define (`getQueryString` of four event processors): each is one
  // variant, and the question names none of them unless it names its class.
  const variants = new Map<string, Set<string>>();
  for (const c of candidates) {
    if (c.symbol.kind !== 'method' || !c.symbol.parent) continue;
    const k = `${c.path}\0${c.symbol.name}`;
    variants.set(k, (variants.get(k) ?? new Set()).add(c.symbol.parent));
  }
  candidates.forEach((c, i) => {
    const s = c.symbol;
    const nameWords = names[i];
    if (!nameWords.length) return;
    let context = pathWordsCache.get(c.path);
    if (!context) {
      context = codeStems(c.path.replace(/\.[a-z]+$/i, '').split(/[/._-]+/).filter((w) => w && !PATH_NOISE.has(w.toLowerCase())).flatMap((w) => splitIdentifier(w)));
      pathWordsCache.set(c.path, context);
    }
    // The class a method belongs to says where it is, as the path does.
    if (s.parent) context = [...context, ...codeStems(splitIdentifier(s.parent))];
    const text = `${s.signature ?? ''} ${s.doc ?? ''}`.toLowerCase();
    const textWords = codeStems(text.match(/[a-z][a-z0-9]+/g) ?? []);
    let inName = 0;
    let nameHits = 0;
    let inPath = 0;
    let inText = 0;
    let bodyOnly = 0;
    const bodyWords = c.body?.words ?? [];
    q.stems.forEach((w, k) => {
      const m = Math.max(...nameWords.map((n) => meets(w, n)));
      if (m > 0) { inName += m * (idf[k] / meanIdf); nameHits++; return; }
      if (context!.some((n) => meets(w, n) > 0)) { inPath++; return; }
      if (w.startsWith('\u0000')) return;
      if (textWords.some((n) => meets(w, n) === 1)) inText++;
      else if (bodyWords.some((n) => meets(w, n) === 1)) bodyOnly++;
    });
    const isSubject = !!subject?.(c);
    if (!nameHits && !inPath && !inText && !bodyOnly && !isSubject && c.hintRank === undefined) return;
    const asFunction = (s.kind === 'constant' || s.kind === 'variable') && !!s.signature && /=>|\bfunction\b/.test(s.signature);
    // A type spelled as a variable (Python's `T = t.TypeVar(…)`, `X = t.Callable[…]`) is a type.
    const asType = (s.kind === 'constant' || s.kind === 'variable') && ((!!s.signature && TYPE_ALIAS.test(s.signature)) || !!c.body?.typeAlias);
    out.push({ candidate: c, features: {
      inName, nameHits, inPath: Math.min(inPath, 2), inText: Math.min(inText, 3), inBody: realWords && !nameHits ? bodyOnly / realWords : 0,
      covered: nameWords.filter((n) => q.stems.some((w) => meets(w, n) > 0)).length / nameWords.length,
      kind: asFunction ? 1.5 : asType ? -2 : KIND_WEIGHT[s.kind] ?? -2,
      // A word only the code says is weaker evidence than one its name or doc says, unless nothing else names it.
      matched: realWords ? Math.min(1, (nameHits + inPath + inText + (nameHits ? BODY_WORD : 1) * bodyOnly) / realWords) : 0,
      fileRank: c.fileRank, hitRank: c.hitRank ?? null, hintRank: c.hintRank ?? null,
      container: s.endLine - s.startLine > CONTAINER_LINES,
      declaration: isDeclarationPath(c.path) && !q.wantsTypes,
      variant: s.kind === 'method' && (variants.get(`${c.path}\0${s.name}`)?.size ?? 0) >= VARIANTS
        && !codeStems(splitIdentifier(s.parent ?? '')).some((p) => q.stems.some((w) => meets(w, p) === 1)),
      accessor: !!c.body?.accessor, stub: !!c.body?.stub, registrar: !!c.body?.registrar && !ASKS_REGISTERING.test(question), deprecated: !!c.body?.deprecated && !/\bdeprecat/i.test(question),
      callers: c.callers ?? 0,
      importers: c.importers ?? 0,
      test: ((c.test ?? isTestPath(c.path)) || isBenchPath(c.path)) && !q.wantsTests,
      generated: !!c.generated && !q.wantsGenerated,
      error: ERROR_NAME.test(s.name) && !asksErrors,
      subject: isSubject,
    } });
  });
  return out;
}

/** Folders a package's builds are put in: the same module built twice (ES module, CommonJS, declarations) is one module. */
const BUILD_FOLDERS = new Set(['dist', 'cjs', 'esm', 'es', 'mjs', 'lib', 'build', 'out', 'types', 'umd', 'module', 'commonjs']);

/** One key for a module and its builds: `dist/cjs/utils/url.js`, `dist/utils/url.js` and `dist/types/utils/url.d.ts` are `utils/url`. */
export function moduleKey(path: string): string {
  const parts = path.split('/');
  const base = parts.pop()!.replace(/(\.d)?\.[cm]?[jt]sx?$/, '');
  return [...parts.filter((p) => !BUILD_FOLDERS.has(p)), base].join('/');
}

/** What a definition's body says about it (see bodyTraits). */
export interface BodyTraits {
  /** It only refuses or does nothing: `raise NotImplementedError`, `pass`, `...`, `throw new Error(…)`, `{}`, abstract. A subclass does the work. */
  stub: boolean;
  /** It hands back the function it was given (`return f`): a decorator that registers a callback, not what runs the callbacks. */
  registrar: boolean;
  /** It warns that it is deprecated. */
  deprecated: boolean;
  /** A variable that holds a type (`T = t.TypeVar(…)`, `X = t.Callable[…]`). */
  typeAlias: boolean;
  /** A getter: it returns a field and does nothing else. */
  accessor: boolean;
  /** The light stems of the words its code says (identifiers split into sub-words; comments and docstrings left out): a function's only. */
  words?: string[];
}

/** The body of a function (its lines, the first line first), past its header, docstrings and comments. */
function bodyOf(lines: string[]): string | null {
  let text = lines.join('\n');
  const header = /^\s*(async\s+)?def\b/m.test(text) ? /\)[^\n:]*:[ \t]*(\n|$)/.exec(text) : /\{/.exec(text);
  if (!header) return null;
  text = text.slice(header.index + header[0].length);
  return text.replace(/("""|\'\'\')[\s\S]*?\1/g, '').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)(#|\/\/).*$/gm, '');
}

export function bodyTraits(kind: SymbolKind, signature: string | null, lines: string[]): BodyTraits {
  const none = { stub: false, registrar: false, deprecated: false, typeAlias: false, accessor: false };
  // A type spelled as a variable over several lines (the index keeps only its name as the signature).
  if (kind === 'variable' || kind === 'constant') {
    const typeAlias = TYPE_ALIAS.test(lines.slice(0, 3).join(' '));
    // A constant holding a function (`const headersToObject = (thing) => …`): what its code says.
    const fn = !typeAlias && !!signature && /=>|\bfunction\b/.test(signature);
    return { ...none, typeAlias, ...(fn ? { words: codeWords(lines.join('\n').replace(/^[^=]*=/, '')) } : {}) };
  }
  if (kind !== 'function' && kind !== 'method') return none;
  const body = bodyOf(lines);
  if (body === null) return { ...none, stub: !!signature && /(^|\s)abstract\s/.test(signature) };
  const words = codeWords(body);
  const flat = body.replace(/\s+/g, ' ').replace(/\}\s*;?\s*$/, '').trim();
  const stub = (!!signature && /(^|\s)abstract\s/.test(signature)) || flat === ''
    || /^(pass|\.\.\.|raise NotImplementedError\b.*|throw new \w*Error\([^;]*\);?)$/.test(flat);
  // Parameters of the header (not self/this), and whether the last statement returns one of them.
  const params = (/\(([^)]*)\)/.exec(lines.join(' '))?.[1] ?? '').split(',')
    .map((p) => p.trim().replace(/^[*.]+/, '').split(/[:=\s]/)[0]).filter((p) => p && p !== 'self' && p !== 'cls' && p !== 'this');
  const last = /(?:^|[;\n])\s*return\s+([A-Za-z_$][\w$]*)\s*;?\s*$/.exec(body.replace(/[\s}]*$/, ''));
  // …having stored it (appended, added, assigned into a table) and not changed it: a callback's registration.
  const p = last && params.includes(last[1]) && params.length <= 2 ? last[1].replace(/\$/g, '\\$') : null;
  const registrar = !!p && new RegExp(`\\.(append|add|push|set\\w*|register\\w*)\\(([^()]*,\\s*)?${p}\\)|\\]\\s*=\\s*${p}\\b`).test(body)
    && !new RegExp(`(^|[^\\w$.])${p}\\s*=[^=]`, 'm').test(body);
  // A getter or a setter: one statement that returns or stores a field (`return this.#data?.[target]`), calling nothing.
  const statements = flat.split(/;|\n/).map((x) => x.trim()).filter(Boolean);
  const accessor = statements.length === 1 && flat.length <= 120 && !/[\w$\])]\s*\(/.test(flat)
    && (/^return\s/.test(flat) || /^[\w$#.?()[\]\s]+(\?\?)?=[^=]/.test(flat));
  const deprecated = /\bDeprecationWarning\b|\bis deprecated\b|@deprecated\b/.test(body);
  return { stub, registrar, deprecated, typeAlias: false, accessor, words };
}

/** The light stems of the identifiers of some code, each once, split into sub-words (`requestInterceptorChain`: request, interceptor, chain). */
function codeWords(code: string): string[] {
  const out = new Set<string>();
  const text = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)(#|\/\/).*$/gm, '');
  for (const token of new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? [])) {
    for (const w of splitIdentifier(token)) if (w.length >= 2 && !STOP_WORDS.has(w)) out.add(stem(w));
  }
  return [...out];
}

/** A file the callers are counted over: its path, its lines and its definitions. */
export interface CallerSource {
  path: string;
  lines: string[];
  symbols: { name: string; parent: string | null; kind: SymbolKind; startLine: number; endLine: number }[];
}

const CALL = /(?<![\w$#])(#?[A-Za-z_$][\w$]*)\s*\(/g;
const DEFINES = /\b(def|function|class|fn|func)\s+$/;
const CALLER_KINDS: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'constant', 'variable', 'property']);

/**
 * How many definitions call each name, over some files: a call is the name followed by `(`, and its
 * caller the innermost definition around it (or the module). A module's builds count once (moduleKey),
 * and a definition calling its own name (recursion, a method calling the method it overrides) does not count.
 */
export function countCallers(files: CallerSource[]): Map<string, number> {
  const callers = new Map<string, Set<string>>();
  for (const f of files) {
    const module = moduleKey(f.path);
    const defs = f.symbols.filter((s) => CALLER_KINDS.has(s.kind) && s.endLine > s.startLine).sort((a, b) => a.startLine - b.startLine);
    const defLines = new Set(f.symbols.map((s) => `${s.startLine}\0${s.name}`));
    // The innermost definition around each line: later starts are inner, so they overwrite.
    const owner: ((typeof defs)[number] | undefined)[] = new Array(f.lines.length + 1);
    for (const d of defs) for (let n = d.startLine; n <= Math.min(d.endLine, f.lines.length); n++) owner[n] = d;
    f.lines.forEach((line, i) => {
      const n = i + 1;
      if (!line.includes('(')) return;
      for (const m of line.matchAll(CALL)) {
        const name = m[1];
        if (defLines.has(`${n}\0${name}`) || DEFINES.test(line.slice(0, m.index))) continue;
        const caller = owner[n] ?? null;
        if (caller?.name === name) continue;
        const key = `${module}\0${caller ? `${caller.parent ?? ''}.${caller.name}` : ''}`;
        let set = callers.get(name);
        if (!set) callers.set(name, (set = new Set()));
        set.add(key);
      }
    });
  }
  return new Map([...callers].map(([name, set]) => [name, set.size]));
}
