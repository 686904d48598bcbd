/**
 * `npm run package && node --import tsx bench/lsp-startup.ts [--runs 3] [--before other/dist/server.js] [--write]`:
 * start-up of the language server alone (dist/server.js over stdio, as VS Code forks it, with Node's compile
 * cache) on hono's npm package: spawn → initialize answered → first CodeLens with "dependents" on
 * dist/context.js → index run finished; cold (empty data dir), then warm (the same data dir, a new process).
 * With --before, another build's server alternates with this one, so both see the same load. The editor's
 * own part (window, extension host) is bench/editor-startup.ts; this one isolates the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { SERVER_JS, startLspClient } from '../test/helpers/lsp-client';
import { honoWorkspace, HONO } from '../test/e2e/harness/real-project';

type Lens = { command: { title: string } };
interface Start { init: number; lens: number; ready: number }

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function once(serverJs: string, folder: string, dataDir: string, key: string): Promise<Start> {
  const env = { ...process.env, NODE_COMPILE_CACHE: path.join(os.tmpdir(), `loupe-bench-compile-cache-${path.basename(path.dirname(path.dirname(serverJs)))}`) };
  const t0 = performance.now();
  const lsp = await startLspClient(folder, dataDir, key, { sidecar: { enabled: true, port: 0 } }, env, serverJs);
  const init = performance.now() - t0;
  try {
    const uri = lsp.uri('dist/context.js');
    const text = fs.readFileSync(path.join(folder, 'dist/context.js'), 'utf8');
    await lsp.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'javascript', version: 1, text } });
    let lens = NaN;
    while (Number.isNaN(lens)) {
      const found = (await lsp.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as Lens[];
      if (found.some((l) => /dependents/.test(l.command.title))) lens = performance.now() - t0;
      else if (performance.now() - t0 > 300_000) throw new Error(`no lens in 300 s:\n${lsp.logs.join('\n')}`);
      else await new Promise((r) => setTimeout(r, 50));
    }
    await lsp.ready(300_000);
    return { init, lens, ready: performance.now() - t0 };
  } finally {
    await lsp.stop();
  }
}

void (async () => {
  const runs = Number(arg('--runs', '3'));
  const before = arg('--before', '');
  const builds = [...(before ? [{ name: 'before', serverJs: path.resolve(before) }] : []), { name: 'after', serverJs: SERVER_JS }];
  const results = new Map(builds.map((b) => [b.name, [] as { cold: Start; warm: Start }[]]));
  const loads: number[] = [];
  // One start of each build first fills Node's compile cache, as the extension's earlier starts would have.
  for (const b of builds) {
    const folder = honoWorkspace();
    await once(b.serverJs, folder, fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-lsp-startup-')), randomUUID()).catch(() => {});
  }
  for (let i = 0; i < runs; i++) {
    for (const b of builds) {
      loads.push(os.loadavg()[0]);
      const folder = honoWorkspace();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-lsp-startup-'));
      const key = randomUUID();
      try {
        const cold = await once(b.serverJs, folder, dataDir, key);
        const warm = await once(b.serverJs, folder, dataDir, key);
        results.get(b.name)!.push({ cold, warm });
        process.stderr.write(`${b.name} run ${i + 1} (load ${os.loadavg()[0].toFixed(1)}): cold init ${cold.init.toFixed(0)} lens ${cold.lens.toFixed(0)} ready ${cold.ready.toFixed(0)} ms; warm init ${warm.init.toFixed(0)} lens ${warm.lens.toFixed(0)} ready ${warm.ready.toFixed(0)} ms\n`);
      } finally {
        fs.rmSync(path.dirname(folder), { recursive: true, force: true });
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  const med = (name: string, pick: (r: { cold: Start; warm: Start }) => number) => median(results.get(name)!.map(pick));
  const rows: [string, (r: { cold: Start; warm: Start }) => number][] = [
    ['warm: spawn → initialize answered', (r) => r.warm.init],
    ['warm: spawn → first CodeLens with dependents', (r) => r.warm.lens],
    ['warm: spawn → catch-up run finished', (r) => r.warm.ready],
    ['cold: spawn → first CodeLens with dependents', (r) => r.cold.lens],
    ['cold: spawn → index finished', (r) => r.cold.ready],
  ];
  const ms = (n: number) => `${Math.round(n)} ms`;
  const table = before
    ? ['| language server on hono | before (main) | after | after / before |', '|---|---|---|---|',
      ...rows.map(([label, pick]) => `| ${label} | ${ms(med('before', pick))} | ${ms(med('after', pick))} | ${(med('after', pick) / med('before', pick)).toFixed(2)}× |`)]
    : ['| language server on hono | median |', '|---|---|', ...rows.map(([label, pick]) => `| ${label} | ${ms(med('after', pick))} |`)];
  const section = [
    '<!-- bench:lsp-startup:start -->',
    '## Language server start-up alone: first CodeLens over stdio',
    '',
    `Command: \`npm run package && node --import tsx bench/lsp-startup.ts --runs ${runs}${before ? ' --before <main>/dist/server.js' : ''} --write\` on ${os.cpus().length} cores,`,
    `${new Date().toISOString().slice(0, 10)}, load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} at the runs' starts (shared machine). ${HONO} from the npm registry; the production`,
    `bundle (dist/server.js) spawned as VS Code forks it, with Node's compile cache filled by one earlier start; medians of ${runs} runs${before ? ', the builds alternating' : ''}.`,
    'The client asks for lenses every 50 ms from initialize on, as VS Code does after a refresh.',
    '',
    ...table,
    '<!-- bench:lsp-startup:end -->',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (process.argv.includes('--write')) {
    const file = path.join(__dirname, '..', 'docs', 'benchmarks.md');
    const doc = fs.readFileSync(file, 'utf8');
    const re = /<!-- bench:lsp-startup:start -->[\s\S]*<!-- bench:lsp-startup:end -->/;
    fs.writeFileSync(file, re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n${section}\n`);
  }
})();
