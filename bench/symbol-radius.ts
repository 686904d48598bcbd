/**
 * The blast radius of one symbol (`file#Name`) per language, through the HTTP app (in-process inject):
 *
 *   node --import tsx bench/symbol-radius.ts [corpus …]     corpora: x-tools sympy flask grpc tokio libxcrypt phaser (default: all)
 *
 * For up to 100 files of the corpus's language spread evenly over it, the first exported top-level function,
 * class or type: radius with dependents and call edges, asked once per file (cold: the importers are read for
 * the first time), then again (warm). Prints the latencies and how many of the symbols have a direct user
 * (before the name reading of name-usages.ts, every non-TypeScript symbol answered 0).
 */
import path from 'node:path';
import { openBenchApp } from './bench-app';
import { corpus } from './corpora';
import { debianCorpus } from './debian';
import { debianPackage, within } from '../test/helpers/real-code';

const CORPORA: Record<string, { language: string; folder: () => string }> = {
  'x-tools': { language: 'go', folder: () => debianCorpus('x-tools') },
  grpc: { language: 'go', folder: () => debianCorpus('grpc') },
  sympy: { language: 'python', folder: () => path.join(debianCorpus('sympy'), 'sympy') },
  flask: { language: 'python', folder: () => path.join(debianCorpus('flask'), 'flask') },
  tokio: { language: 'rust', folder: () => within(debianPackage('librust-tokio-dev', '1.24.2-1'), 'usr/share/cargo/registry/tokio-*') },
  libxcrypt: { language: 'c', folder: () => path.join(debianPackage('libxcrypt-source', '1:4.4.33-2'), 'usr/src/libxcrypt') },
  phaser: { language: 'javascript', folder: () => corpus('phaser') },
};
const SAMPLE = 100;
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0; };

async function measure(name: string) {
  const { language, folder } = CORPORA[name];
  const dir = folder();
  const { engine, app, key, userId, close } = await openBenchApp(dir, 'loupe-symbol-radius-');
  try {
    const repo = engine.repos.registerLocalFolder(userId, dir);
    await engine.queue.idle();
    const files = engine.filesStore;
    const candidates = files.paths(repo.id).map((p) => files.getByPath(repo.id, p)!)
      .filter((f) => f.language === language || (language === 'c' && f.language === 'cpp'))
      .map((f) => ({ path: f.path, symbol: files.symbols(f.id).find((s) => s.parent === null && s.exported && /^(function|class|struct|interface|type|trait)$/.test(s.kind)) }))
      .filter((c) => c.symbol);
    const step = Math.max(1, Math.floor(candidates.length / SAMPLE));
    const sample = candidates.filter((_, i) => i % step === 0).slice(0, SAMPLE);
    const ask = async (target: string) => {
      const t0 = performance.now();
      const res = await app.inject({ method: 'POST', url: `/v2/repos/${repo.id}/radius`, payload: { file: target, include: ['dependents', 'call_edges'] }, headers: { 'x-api-key': key } });
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(`${target}: ${res.statusCode} ${res.body}`);
      return { ms, target: JSON.parse(res.body).data.targets[0] as { direct_dependents: number; call_graph_complete?: boolean } };
    };
    const cold: number[] = [];
    const warm: number[] = [];
    let used = 0;
    let complete = 0;
    for (const c of sample) {
      const first = await ask(`${c.path}#${c.symbol!.name}`);
      cold.push(first.ms);
      if (first.target.direct_dependents > 0) used++;
      if (first.target.call_graph_complete) complete++;
    }
    for (const c of sample) warm.push((await ask(`${c.path}#${c.symbol!.name}`)).ms);
    return { corpus: name, language, files: files.paths(repo.id).length, symbols: sample.length, withUsers: used, completeFirst: complete,
      coldP50: pct(cold, 0.5), coldP90: pct(cold, 0.9), coldMax: Math.max(...cold), warmP50: pct(warm, 0.5), warmP90: pct(warm, 0.9) };
  } finally {
    await close();
  }
}

async function main() {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(CORPORA);
  const rows: string[] = [];
  for (const name of names) {
    const r = await measure(name);
    console.log(JSON.stringify(r));
    const f = (ms: number) => ms.toFixed(1);
    rows.push(`| ${r.corpus} | ${r.language} | ${r.files} | ${r.symbols} | ${r.withUsers} | ${r.completeFirst} | ${f(r.coldP50)} / ${f(r.coldP90)} / ${f(r.coldMax)} | ${f(r.warmP50)} / ${f(r.warmP90)} |`);
  }
  console.log(['| corpus | language | files | symbols asked | with a direct user | complete on the first call | first call p50 / p90 / max (ms) | again p50 / p90 (ms) |',
    '|---|---|---:|---:|---:|---:|---:|---:|', ...rows].join('\n'));
}

void main();
