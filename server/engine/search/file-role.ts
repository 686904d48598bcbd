import { isTestPath } from '../analysis/entry-points';
import { NO_TESTING_LIBRARIES, type TestingLibraries } from '../analysis/testing-libraries';
import type { QueryTerms } from './query';

/**
 * Files that are rarely what a search means unless it says so: tests (and their data and helpers),
 * benchmarks, examples, generated code, translations and configuration. Ranked below source (hybrid.ts) unless
 * the query names the role (`test`, `benchmark`, `example`, …) or a path or type filter narrows the search.
 */
export const FILE_ROLES = ['test', 'benchmark', 'example', 'generated', 'translation', 'config'] as const;
export type FileRole = typeof FILE_ROLES[number];

const BENCHMARK = /(^|\/)(bench|benchmarks?|perf)\/|[._-]bench(mark)?s?(_test)?\.[a-z]+$|(^|\/)benchmarks?_test\.go$/i;
const TEST_EXTRA = /(^|\/)(testdata|test-data|testes|fixtures?|__fixtures__|__mocks__|mocks?)\/|(^|\/)(test_?helpers?|conftest)\.[a-z]+$|\.stories\.[cm]?[jt]sx?$/i;
const EXAMPLE = /(^|\/)(examples?|demos?|samples?|_examples)\/|(^|\/)example_test\.go$/i;
const GENERATED = /\.pb\.go$|_pb2(_grpc)?\.pyi?$|\.pb\.(cc|h)$|\.g\.dart$|\.generated\.[a-z]+$|\.gen\.[a-z]+$|_gen\.go$|(^|\/)(generated|__generated__)\/|\.min\.(js|css)$|(^|\/)(dist|vendor)\//i;
/** ISO 639-1 language codes: the names locale files go by (`en.ts`, `pt-BR.json`, `zh_TW.js`, Payload's `zhTw.ts`). */
const LANGUAGES = new Set(('aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz '
  + 'ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka '
  + 'kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr '
  + 'nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk '
  + 'tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu').split(' '));
/** A locale's name: a language, then a region or script (`en`, `pt-BR`, `zh_Hant_TW`, `es-419`, `zhTw`). */
const LOCALE = /^([a-z]{2})(?:[-_][A-Za-z0-9]{2,8})*(?:[A-Z][a-z]+)*$/;
/** Folders that hold one file (or one folder) per locale. */
const LOCALE_FOLDER = /^(locales?|i18n|l10n|translations?|lang|langs|languages|messages|nls)$/i;
/** A `messages/` folder holds code as often as strings: there only data files count (next-intl's `messages/en.json`, not `messages/id.go`). */
const DATA_FILE = /\.(json|ya?ml|toml|properties|xml|ini)$/i;
/** Translation formats by their extension (gettext, XLIFF, Flutter's ARB, Fluent), Java's `messages_fr.properties`, Apple's `fr.lproj/`. */
const TRANSLATION_FILE = /\.(po|pot|xlf|xliff|arb|ftl)$|_[a-z]{2}(_[A-Z]{2})?\.properties$|(^|\/)[a-z]{2}([-_][A-Za-z]+)?\.lproj\//;

const isLocale = (name: string) => LANGUAGES.has(LOCALE.exec(name)?.[1] ?? '');

/**
 * A translation: a locale's strings (or rules), by format, or as a file named for a locale or inside a folder
 * named for one, under a locales/i18n/translations/… folder (`languages/en.ts`, `locales/pt-BR/common.json`,
 * date-fns' `locale/fr/_lib/formatDistance.js`). They hold the product's vocabulary in prose, once per language,
 * so a question about a feature found each language's copy before the code (Payload: all five of the first five
 * for "restore a previous version"; date-fns: five locales' `formatRelative.js` before its own).
 */
function isTranslation(path: string): boolean {
  if (TRANSLATION_FILE.test(path)) return true;
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  const data = DATA_FILE.test(base);
  parts[parts.length - 1] = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  const folder = parts.findIndex((p, i) => i < parts.length - 1 && LOCALE_FOLDER.test(p) && (data || p.toLowerCase() !== 'messages'));
  return folder >= 0 && parts.slice(folder + 1).some(isLocale);
}

const CONFIG = /\.(json|jsonc|json5|ya?ml|toml|ini|cfg|conf|lock|sum)$|(^|\/)go\.mod$|(^|\/)[^/]+\.config\.[cm]?[jt]s$|(^|\/)\.[^/]+rc(\.[a-z]+)?$|(^|\/)(Makefile|Dockerfile|setup\.py)$/i;

/** A `testing/` folder (numpy.testing): tests' helpers, unless it is a testing library (testing-libraries.ts). */
const TESTING = /(^|\/)testing\//i;

/**
 * The role of a repository path, or null for ordinary source. `generated`: the file has a generator's banner
 * (files.generated), whatever its name (Payload's payload-types.ts, react-native-windows' codegen/*.g.h).
 * `libraries`: the repository's test folders that are libraries for writing tests (django/test/), source here.
 */
export function fileRole(path: string, generated = false, libraries: TestingLibraries = NO_TESTING_LIBRARIES): FileRole | null {
  if (BENCHMARK.test(path)) return 'benchmark';
  if (EXAMPLE.test(path)) return 'example';
  if (isTestPath(path, libraries) || TEST_EXTRA.test(path) || (TESTING.test(path) && !libraries.holds(path))) return 'test';
  if (generated || GENERATED.test(path)) return 'generated';
  if (isTranslation(path)) return 'translation';
  if (CONFIG.test(path)) return 'config';
  return null;
}

const ASKS: Record<FileRole, RegExp> = {
  test: /^(tests?|testing|spec|specs|mocks?|fixtures?|testdata|assert\w*|unittest)$/,
  benchmark: /^(bench|benchmarks?|benchmarking|perf|performance)$/,
  example: /^(examples?|demos?|samples?|usage)$/,
  generated: /^(generated|generate|protobuf|proto|pb|codegen|minified|vendor(ed)?)$/,
  translation: /^(translations?|translat(e|es|ed|ing|or|ors)|i18n|l10n|locales?|locali[sz](e|ed|ation)|internationali[sz]ation|languages?)$/,
  config: /^(config|configs|configuration|settings|tsconfig|json|yaml|yml|toml|ini|package|manifest|lockfile|dependencies)$/,
};

/**
 * A file beside the project's own code: an example's or a benchmark's (`tests` too: a test's). Listings that show
 * the project (blueprint entry points, coverage gaps, which manifest's declaration of a dependency counts) put these last.
 */
export function isBesideProject(path: string, tests = false): boolean {
  const role = fileRole(path);
  return role === 'example' || role === 'benchmark' || (tests && role === 'test');
}

/** The roles a query asks for by name (its words, identifier sub-words included). */
export function rolesAsked(terms: QueryTerms): Set<FileRole> {
  const out = new Set<FileRole>();
  for (const w of terms.words) for (const [role, re] of Object.entries(ASKS) as [FileRole, RegExp][]) if (re.test(w)) out.add(role);
  return out;
}
