import { isTestPath } from '../analysis/entry-points';
import type { QueryTerms } from './query';

/**
 * Files that are rarely what a search means unless it says so: tests (and their data and helpers),
 * benchmarks, examples, generated code and configuration. Ranked below source (hybrid.ts) unless the
 * query names the role (`test`, `benchmark`, `example`, …) or a path or type filter narrows the search.
 */
export const FILE_ROLES = ['test', 'benchmark', 'example', 'generated', 'config'] as const;
export type FileRole = typeof FILE_ROLES[number];

const BENCHMARK = /(^|\/)(bench|benchmarks?|perf)\/|[._-]bench(mark)?s?(_test)?\.[a-z]+$|(^|\/)benchmarks?_test\.go$/i;
const TEST_EXTRA = /(^|\/)(testdata|test-data|fixtures?|__fixtures__|__mocks__|mocks?|testing)\/|(^|\/)(test_?helpers?|conftest)\.[a-z]+$|\.stories\.[cm]?[jt]sx?$/i;
const EXAMPLE = /(^|\/)(examples?|demos?|samples?|_examples)\/|(^|\/)example_test\.go$/i;
const GENERATED = /\.pb\.go$|_pb2(_grpc)?\.pyi?$|\.pb\.(cc|h)$|\.g\.dart$|\.generated\.[a-z]+$|\.gen\.[a-z]+$|_gen\.go$|(^|\/)(generated|__generated__)\/|\.min\.(js|css)$|(^|\/)(dist|vendor)\//i;
const CONFIG = /\.(json|jsonc|json5|ya?ml|toml|ini|cfg|conf|lock|sum)$|(^|\/)go\.mod$|(^|\/)[^/]+\.config\.[cm]?[jt]s$|(^|\/)\.[^/]+rc(\.[a-z]+)?$|(^|\/)(Makefile|Dockerfile|setup\.py)$/i;

/**
 * The role of a repository path, or null for ordinary source. `generated`: the file has a generator's banner
 * (files.generated), whatever its name (Payload's payload-types.ts, react-native-windows' codegen/*.g.h).
 */
export function fileRole(path: string, generated = false): FileRole | null {
  if (BENCHMARK.test(path)) return 'benchmark';
  if (EXAMPLE.test(path)) return 'example';
  if (isTestPath(path) || TEST_EXTRA.test(path)) return 'test';
  if (generated || GENERATED.test(path)) return 'generated';
  if (CONFIG.test(path)) return 'config';
  return null;
}

const ASKS: Record<FileRole, RegExp> = {
  test: /^(tests?|testing|spec|specs|mocks?|fixtures?|testdata|assert\w*|unittest)$/,
  benchmark: /^(bench|benchmarks?|benchmarking|perf|performance)$/,
  example: /^(examples?|demos?|samples?|usage)$/,
  generated: /^(generated|generate|protobuf|proto|pb|codegen|minified|vendor(ed)?)$/,
  config: /^(config|configs|configuration|settings|tsconfig|json|yaml|yml|toml|ini|package|manifest|lockfile|dependencies)$/,
};

/** The roles a query asks for by name (its words, identifier sub-words included). */
export function rolesAsked(terms: QueryTerms): Set<FileRole> {
  const out = new Set<FileRole>();
  for (const w of terms.words) for (const [role, re] of Object.entries(ASKS) as [FileRole, RegExp][]) if (re.test(w)) out.add(role);
  return out;
}
