/**
 * How fast the editor features answer: the real language server (dist/server.js) over stdio, as
 * VS Code runs it, on a corpus. Measures start-up (spawn → initialize answered → indexing started),
 * then for 200 source files spread over the corpus: CodeLens (first and repeated), hover on an
 * import specifier and hover on a declared name. Rewrites its section of docs/benchmarks.md.
 *
 *   npm run build && node --import tsx bench/editor-latency.ts [corpus=phaser-x4]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { corpus } from './corpora';
import { startLspClient } from '../test/helpers/lsp-client';

const SAMPLE = 200;

function stats(values: number[]): { median: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { median: at(0.5), p95: at(0.95) };
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(js|ts)$/.test(e.name)) out.push(p);
  }
  return out;
}

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'phaser-x4';
  const folder = corpus(name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-editor-bench-'));
  // As the extension starts it: with Node's compile cache, warmed by one start first.
  const env = { ...process.env, NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'loupe-bench-compile-cache') };
  const warmDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-editor-warm-'));
  const warm = await startLspClient(folder, warmDir, randomUUID(), {}, env);
  await warm.stop();
  fs.rmSync(warmDir, { recursive: true, force: true });
  const spawned = performance.now();
  const lsp = await startLspClient(folder, dataDir, randomUUID(), {}, env);
  const initialized = performance.now() - spawned;
  const started = Date.now();
  while (!lsp.statuses.some((s) => s.repos.some((r) => r.phase !== 'queued'))) await new Promise((r) => setTimeout(r, 5));
  const indexingStarted = performance.now() - spawned;
  const status = await lsp.ready(60 * 60_000);
  const indexSeconds = (Date.now() - started) / 1000;
  const files = status.repos.reduce((n, r) => n + r.filesTotal, 0);
  process.stderr.write(`${name}: ${files} files indexed in ${indexSeconds.toFixed(1)} s\n`);

  const all = walk(folder).sort();
  const sample = Array.from({ length: SAMPLE }, (_, i) => all[Math.floor((i * all.length) / SAMPLE)]);
  const lensFirst: number[] = [];
  const lensAgain: number[] = [];
  const hoverImport: number[] = [];
  const hoverSymbol: number[] = [];
  let lensCount = 0;
  let importHovers = 0;
  let symbolHovers = 0;
  for (const file of sample) {
    const rel = path.relative(folder, file);
    const uri = lsp.uri(rel);
    const text = fs.readFileSync(file, 'utf8');
    await lsp.open(rel, text);
    let t = performance.now();
    const lenses = (await lsp.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as unknown[];
    lensFirst.push(performance.now() - t);
    lensCount += lenses.length;
    t = performance.now();
    await lsp.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    lensAgain.push(performance.now() - t);
    const lines = text.split('\n');
    const importLine = lines.findIndex((l) => /require\(['"]\.|from ['"]\./.test(l));
    if (importLine >= 0) {
      const character = lines[importLine].search(/['"]\./) + 2;
      t = performance.now();
      const hover = await lsp.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: importLine, character } });
      hoverImport.push(performance.now() - t);
      if (hover) importHovers++;
    }
    const declLine = lines.findIndex((l) => /^\s*(?:var|function|class|const|let)\s+[A-Za-z_$]/.test(l));
    if (declLine >= 0) {
      const character = lines[declLine].search(/(?:var|function|class|const|let)\s+/) + lines[declLine].match(/(?:var|function|class|const|let)\s+/)![0].length + 1;
      t = performance.now();
      const hover = await lsp.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: declLine, character } });
      hoverSymbol.push(performance.now() - t);
      if (hover) symbolHovers++;
    }
    await lsp.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }
  await lsp.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const rows: [string, number[], string][] = [
    ['CodeLens, first request for the file', lensFirst, '≤ 50 ms median'],
    ['CodeLens, again (cached for the graph generation)', lensAgain, ''],
    ['hover on an import specifier (file docs, summary)', hoverImport, '≤ 50 ms median'],
    ['hover on a declared name (signature, doc, users)', hoverSymbol, '≤ 50 ms median'],
  ];
  const table = rows.map(([label, values, target]) => {
    const s = stats(values);
    return `| ${label} | ${values.length} | ${ms(s.median)} | ${ms(s.p95)} | ${target} |`;
  }).join('\n');
  const section = `<!-- bench:editor:start -->
## Editor: language server start-up, CodeLens and hover latency

Command: \`npm run build && node --import tsx bench/editor-latency.ts ${name}\` on ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}.
The real language server (dist/server.js) over stdio, as VS Code runs it. Corpus ${name}: ${files} files,
first index ${indexSeconds.toFixed(1)} s. Start-up (Node compile cache warm, as in the extension): initialize answered ${ms(initialized)} after spawn (the index
opened, owner checked), indexing started ${ms(indexingStarted)} after spawn. Requests: ${SAMPLE} source files spread
evenly over the corpus, each opened (didOpen) first, as the editor does; ${lensCount} lenses in all, ${importHovers}
import hovers and ${symbolHovers} symbol hovers answered with content. Times are whole LSP round trips.

| request | n | median | p95 | target |
|---|---|---|---|---|
${table}

Seen from VS Code itself (code-server in Chromium, the e2e scenarios): the next section.
<!-- bench:editor:end -->`;
  const docs = path.join(__dirname, '..', 'docs', 'benchmarks.md');
  const current = fs.readFileSync(docs, 'utf8');
  const next = /<!-- bench:editor:start -->[\s\S]*<!-- bench:editor:end -->/.test(current)
    ? current.replace(/<!-- bench:editor:start -->[\s\S]*<!-- bench:editor:end -->/, section)
    : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(docs, next);
  process.stdout.write(`${section}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
