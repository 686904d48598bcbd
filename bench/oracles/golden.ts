/**
 * Writes the oracles' graphs that `npm test` compares Loupe with (test/fixtures/oracle/<name>.json), so the
 * tests need neither the Go toolchain nor a download of it. Run after changing a fixture, a pinned corpus
 * or an oracle:
 *
 *   node --import tsx bench/oracles/golden.ts [go-root-module python-src-layout gin flask requests docutils monolog doctrine-dbal concurrent-ruby net-ssh junitrunner aws-sdk-auth-lite]
 *
 * The test checks each golden file against its oracle whenever that oracle is at hand (Python always; PHP and Ruby
 * where Debian's php-cli, php-parser and php-composer-class-map-generator, and ruby, are installed, as .ci/run does; Go once
 * bench/radius-exactness.ts or this script has unpacked the toolchain; Java where a JDK 17 is installed, which CI does not).
 */
import fs from 'node:fs';
import path from 'node:path';
import { oracleGraph, type OracleGraph, type OracleLanguage } from '../radius-exactness';
import { debianCorpus, debianCorpusPinned, type DebianCorpus } from '../debian';

export const GOLDEN_DIR = path.join(__dirname, '..', '..', 'test', 'fixtures', 'oracle');
const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures');

/**
 * The corpora with golden graphs: fixtures (folder name) and pinned Debian corpora. `pinned` is false when the
 * archive no longer had the pinned version and a newer one was unpacked: its golden graph is then not its own.
 */
export const GOLDEN: Record<string, { language: OracleLanguage; dir: () => string; pinned: () => boolean }> = {
  'go-root-module': { language: 'go', dir: () => path.join(FIXTURES, 'go-root-module'), pinned: () => true },
  'python-src-layout': { language: 'python', dir: () => path.join(FIXTURES, 'python-src-layout'), pinned: () => true },
  gin: { language: 'go', dir: () => debianCorpus('gin' satisfies DebianCorpus), pinned: () => debianCorpusPinned('gin') },
  flask: { language: 'python', dir: () => debianCorpus('flask'), pinned: () => debianCorpusPinned('flask') },
  requests: { language: 'python', dir: () => debianCorpus('requests'), pinned: () => debianCorpusPinned('requests') },
  docutils: { language: 'python', dir: () => debianCorpus('docutils'), pinned: () => debianCorpusPinned('docutils') },
  monolog: { language: 'php', dir: () => debianCorpus('monolog'), pinned: () => debianCorpusPinned('monolog') },
  'doctrine-dbal': { language: 'php', dir: () => debianCorpus('doctrine-dbal'), pinned: () => debianCorpusPinned('doctrine-dbal') },
  'concurrent-ruby': { language: 'ruby', dir: () => debianCorpus('concurrent-ruby'), pinned: () => debianCorpusPinned('concurrent-ruby') },
  'net-ssh': { language: 'ruby', dir: () => debianCorpus('net-ssh'), pinned: () => debianCorpusPinned('net-ssh') },
  junitrunner: { language: 'java', dir: () => debianCorpus('junitrunner'), pinned: () => debianCorpusPinned('junitrunner') },
  'aws-sdk-auth-lite': { language: 'java', dir: () => debianCorpus('aws-sdk-auth-lite'), pinned: () => debianCorpusPinned('aws-sdk-auth-lite') },
};

/** Files, and edges as [from, to, type-only] indexes into them: small enough to commit. */
interface Golden { files: string[]; edges: [number, number, 0 | 1][] }

export function toGolden(g: OracleGraph): Golden {
  const files = [...g.files].sort();
  const at = new Map(files.map((f, i) => [f, i]));
  const edges = [...g.edges].map(([key, typeOnly]) => {
    const [a, b] = key.split(' -> ');
    return [at.get(a)!, at.get(b)!, typeOnly ? 1 : 0] as [number, number, 0 | 1];
  }).filter(([a, b]) => a !== undefined && b !== undefined).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return { files, edges };
}

export function readGolden(name: string): OracleGraph {
  const g = JSON.parse(fs.readFileSync(path.join(GOLDEN_DIR, `${name}.json`), 'utf8')) as Golden;
  return { files: new Set(g.files), edges: new Map(g.edges.map(([a, b, t]) => [`${g.files[a]} -> ${g.files[b]}`, t === 1])) };
}

if (require.main === module) {
  (async () => {
    const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(GOLDEN);
    fs.mkdirSync(GOLDEN_DIR, { recursive: true });
    for (const name of names) {
      const c = GOLDEN[name];
      const g = toGolden(await oracleGraph(c.language, c.dir()));
      const text = `{"files":${JSON.stringify(g.files)},\n"edges":${JSON.stringify(g.edges)}}\n`;
      fs.writeFileSync(path.join(GOLDEN_DIR, `${name}.json`), text);
      console.log(`${name}: ${g.files.length} files, ${g.edges.length} edges`);
    }
  })().catch((error) => { console.error(error); process.exit(1); });
}
