/**
 * Module resolution of every import of a folder, on two builds side by side: what the parse workers spend in
 * `ModuleResolver.resolve` (payload: 29,716 imports under 177 tsconfig.json files).
 *
 *   node --import tsx bench/resolve-imports.ts --folder <dir> --baseline <checkout> [--candidate <checkout>] [--rounds 5]
 *
 * The imports are listed once with `ts.preProcessFile` (files in walk order, specifiers in source order). Each
 * round, in fresh processes, round-robin: a new `ModuleResolver` of each build's `server/engine/indexer/resolver.ts`
 * resolves all of them in that order; the wall time, and a SHA-1 of the answers (the builds must agree).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..');

async function child(checkout: string, listFile: string): Promise<void> {
  const { folder, pairs } = JSON.parse(fs.readFileSync(listFile, 'utf8')) as { folder: string; pairs: [string, string][] };
  const { ModuleResolver } = await import(path.join(checkout, 'server/engine/indexer/resolver.ts'));
  const resolver = new ModuleResolver(folder);
  const t0 = performance.now();
  const answers = pairs.map(([from, specifier]) => resolver.resolve(from, specifier));
  const ms = performance.now() - t0;
  const hash = crypto.createHash('sha1');
  for (const a of answers) hash.update(`${a.targetPath}\0${a.packageName}\n`);
  process.stdout.write(`${JSON.stringify({ ms, sha1: hash.digest('hex') })}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { folder: { type: 'string' }, baseline: { type: 'string' }, candidate: { type: 'string' }, rounds: { type: 'string' }, child: { type: 'string' }, list: { type: 'string' } } });
  if (values.child) return child(values.child, values.list!);
  if (!values.folder || !values.baseline) throw new Error('usage: --folder <dir> --baseline <checkout> [--candidate <checkout>] [--rounds 5]');
  const folder = path.resolve(values.folder);
  const { walk } = await import('../server/engine/indexer/walk');
  const pairs: [string, string][] = [];
  for (const e of walk(folder)) {
    if (!/\.(m|c)?[jt]sx?$/.test(e.relPath) || e.size > 1024 * 1024) continue;
    for (const i of ts.preProcessFile(fs.readFileSync(path.join(folder, e.relPath), 'utf8'), true, true).importedFiles) pairs.push([e.relPath, i.fileName]);
  }
  const listFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-resolve-')), 'imports.json');
  fs.writeFileSync(listFile, JSON.stringify({ folder, pairs }));
  const builds = { baseline: path.resolve(values.baseline), candidate: path.resolve(values.candidate ?? ROOT) };
  const runs: Record<string, { ms: number; sha1: string }[]> = { baseline: [], candidate: [] };
  for (let round = 0; round < Number(values.rounds ?? 5); round++) {
    const order = round % 2 ? ['candidate', 'baseline'] as const : ['baseline', 'candidate'] as const;
    for (const name of order) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, '--child', builds[name], '--list', listFile], { encoding: 'utf8', cwd: builds[name] });
      const run = JSON.parse(out.trim().split('\n').pop()!) as { ms: number; sha1: string };
      runs[name].push(run);
      console.error(`${name}: ${run.ms.toFixed(0)} ms, answers ${run.sha1.slice(0, 12)}, load ${os.loadavg()[0].toFixed(2)}`);
    }
  }
  fs.rmSync(path.dirname(listFile), { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [b, c] = [median(runs.baseline.map((r) => r.ms)), median(runs.candidate.map((r) => r.ms))];
  const same = new Set([...runs.baseline, ...runs.candidate].map((r) => r.sha1)).size === 1;
  console.log(`Resolving ${pairs.length} imports of ${folder}; ${runs.baseline.length} rounds; answers ${same ? 'identical' : 'DIFFER'} on both builds.\n`);
  console.log('| build | each round (ms) | median (ms) |\n|---|---|---|');
  for (const [name, rs] of Object.entries(runs)) console.log(`| ${name} | ${rs.map((r) => r.ms.toFixed(0)).join(', ')} | ${median(rs.map((r) => r.ms)).toFixed(0)} |`);
  console.log(`\ncandidate / baseline ${(c / b).toFixed(2)}`);
  if (!same) process.exitCode = 1;
}

main().catch((error) => { console.error(error); process.exit(1); });
