/**
 * `node --import tsx bench/editor-startup.ts [--runs 3] [--before old.vsix] [--write]`: start-up of the
 * extension in a real VS Code (code-server + Chromium, the e2e harness), on hono's npm package (~580
 * files) from the registry.
 *
 * - cold: a fresh profile (no index) opens hono; time from opening the window to the first CodeLens on
 *   dist/context.js, and the index run's own duration from the log;
 * - warm: the same window reloaded (extension host and language server start again, the index is on
 *   disk); time from the new page's navigation to the first CodeLens, and the language server's own
 *   start-up steps from its log (`start-up +T ms: …`).
 *
 * Each run has its own code-server and profile. Uses the .vsix (`npm run package` first) unless
 * LOUPE_E2E_LINK=1. With --before, runs of another .vsix (say, main's) alternate with this one's, so both
 * see the same load; the table gives both medians and their ratio. Medians go to docs/benchmarks.md
 * with --write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot, ensureE2eTools } from '../test/e2e/harness/install';
import { findFiles, startCodeServer } from '../test/e2e/harness/code-server';
import { launchBrowser, Workbench } from '../test/e2e/harness/workbench';
import { extensionUnderTest } from '../test/e2e/harness/extension-under-test';
import { honoWorkspace, HONO } from '../test/e2e/harness/real-project';

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const runs = Number(arg('--runs', '3'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Run {
  cold: number; index: number; warm: number; hostToLens: number; activationToLens: number; serverLens: number; serverLoaded: number;
  /** Warm, from the logs: reload → the new extension host's start; → VS Code activating the extension; → VS Code's first lens request (our client's log). */
  reloadToHost: number; hostToActivation: number; activationToRequest: number; requestToLens: number;
}

/**
 * The control: a minimal extension with Loupe's activation events whose activate() only registers a
 * CodeLens provider answering one lens at once. Its start-up, in the same harness, is the floor this
 * editor puts under any extension's first lens on this machine.
 */
function controlExtension(): string {
  const root = path.join(__dirname, '..');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { activationEvents: string[]; engines: Record<string, string> };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-lens-control-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: 'lens-control', publisher: 'loupe-bench', version: '0.0.1', main: './extension.js',
    engines: pkg.engines, activationEvents: pkg.activationEvents,
  }, null, 2));
  fs.writeFileSync(path.join(dir, 'extension.js'), `const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.languages.registerCodeLensProvider({ scheme: 'file' }, {
    provideCodeLenses: () => [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title: 'control: 1 dependents', command: '' })],
  }));
};
`);
  return dir;
}

/** A log line's time (`2026-11-26 16:12:27.354 [info] …`, the machine's local time) as Date.now() would give it. */
function lineTime(text: string, pattern: RegExp): number {
  const line = text.split('\n').find((l) => pattern.test(l));
  const m = line && /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d+)/.exec(line);
  return m ? new Date(`${m[1]}T${m[2]}`).getTime() : NaN;
}

type Extension = { extensionFolder?: string; vsix?: string; control?: boolean };

async function once(extension: Extension): Promise<Run> {
  const folder = honoWorkspace();
  const server = await startCodeServer({ workspace: folder, ...extension, settings: { 'loupe.sidecar.port': 0 } });
  const browser = await launchBrowser();
  try {
    const started = Date.now();
    const wb = await Workbench.open(browser, server.url, folder);
    await wb.openFile('dist/context.js');
    await wb.waitForLens(/dependents/, 300_000);
    const cold = Date.now() - started;
    const id = extension.control ? 'loupe-bench\\.lens-control' : 'loupe\\.loupe';
    if (!extension.control) await wb.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 300_000 });
    const logs = () => findFiles(server.userDataDir, /Loupe\.log$/).sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
    const index = extension.control ? NaN : Number(/indexed hono: \d+ files in (\d+) ms/.exec(logs().map((f) => fs.readFileSync(f, 'utf8')).join('\n'))?.[1] ?? NaN);
    const before = new Set(logs());
    const hostLogs = () => findFiles(server.userDataDir, /^remoteexthost\.log$/);
    const hostsBefore = new Set(hostLogs());
    // The control has no index to wait for: let the window settle as long as Loupe's cold start did not, so
    // the reload is asked of a window that has finished starting (and takes keys) in both cases.
    if (extension.control) {
      await wb.page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } });
      await new Promise((r) => setTimeout(r, 10_000));
    }
    let reloaded: number;
    try {
      reloaded = await wb.reload();
    } catch (error) {
      await wb.screenshot(`bench-reload-failed-${Date.now()}`);
      throw error;
    }
    await wb.waitForLens(/dependents/, 120_000);
    const lensAt = Date.now();
    const warm = lensAt - reloaded;
    // The reloaded window's server log (a new file); older builds log no start-up steps (NaN).
    const log = logs().filter((f) => !before.has(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const step = (name: string) => Number(new RegExp(`start-up \\+(\\d+) ms: ${name}`).exec(log)?.[1] ?? NaN);
    // VS Code's own part (the new extension host starting) apart from the extension's (its activation on).
    const hostLog = hostLogs().filter((f) => !hostsBefore.has(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const hostToLens = lensAt - lineTime(hostLog, /Extension host with pid \d+ started/);
    const hostStart = lineTime(hostLog, /Extension host with pid \d+ started/);
    const activation = lineTime(hostLog, new RegExp(`_doActivateExtension ${id}`));
    const activationToLens = lensAt - activation;
    // Our client's log (since h19): when VS Code first asked the language client for lenses, in ms after the
    // client started (in activate()). Not the line's time: the output channel writes its lines in batches.
    const request = activation + Number(/first CodeLens request from VS Code (\d+) ms after the client started/.exec(log)?.[1] ?? NaN);
    return {
      cold, index, warm, hostToLens, activationToLens, serverLens: step('first lens answered'), serverLoaded: step('server loaded'),
      reloadToHost: hostStart - reloaded, hostToActivation: activation - hostStart, activationToRequest: request - activation, requestToLens: lensAt - request,
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}

const fmt = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : '–');
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '–');

void (async () => {
  ensureE2eTools();
  const extension = process.env.LOUPE_E2E_LINK === '1' ? await extensionUnderTest() : { vsix: findVsix() };
  const beforeVsix = arg('--before', '');
  const withControl = process.argv.includes('--control');
  const variants: { name: string; extension: Extension; runs: Run[] }[] = [
    ...(withControl ? [{ name: 'control', extension: { extensionFolder: controlExtension(), control: true }, runs: [] as Run[] }] : []),
    ...(beforeVsix ? [{ name: 'before', extension: { vsix: path.resolve(beforeVsix) }, runs: [] as Run[] }] : []),
    { name: 'after', extension, runs: [] },
  ];
  const loads: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      loads.push(os.loadavg()[0]);
      const r = await once(v.extension);
      process.stderr.write(`${v.name} run ${i + 1} (load ${loads[loads.length - 1].toFixed(1)} → ${os.loadavg()[0].toFixed(1)}): cold start to first lens ${r.cold} ms (index run ${r.index} ms), warm start to first lens ${r.warm} ms (reload → host ${r.reloadToHost} ms, host → activation ${r.hostToActivation} ms, activation → VS Code's first lens request ${r.activationToRequest} ms, request → lens drawn ${r.requestToLens} ms; extension host start → lens ${r.hostToLens} ms, activation → lens ${r.activationToLens} ms; server: loaded +${r.serverLoaded} ms, first lens +${r.serverLens} ms)\n`);
      v.runs.push(r);
    }
  }
  const med = (v: (typeof variants)[number], key: keyof Run) => median(v.runs.map((r) => r[key]));
  if (withControl) {
    const keys: (keyof Run)[] = ['cold', 'warm', 'reloadToHost', 'hostToActivation', 'activationToLens', 'activationToRequest', 'requestToLens', 'serverLoaded', 'serverLens'];
    process.stderr.write(`medians (ms): ${keys.join(' ')}\n${variants.map((v) => `${v.name}: ${keys.map((k) => Math.round(med(v, k))).join(' ')}`).join('\n')}\n`);
  }
  const after = variants[variants.length - 1];
  const before = variants.find((v) => v.name === 'before') ?? null;
  const rows: [string, keyof Run, string][] = [
    ['cold start (no index) to the first CodeLens on `dist/context.js`', 'cold', '≤ 15 000 ms'],
    ['of which the index run (log: `indexed hono: N files in T ms`)', 'index', ''],
    ['warm start (window reload, index on disk) to the first CodeLens', 'warm', '≤ 3 000 ms'],
    ['warm: from the new extension host\'s start (its log) to the first CodeLens', 'hostToLens', ''],
    ['warm: from VS Code activating Loupe (its log) to the first CodeLens', 'activationToLens', ''],
    ['warm: the language server\'s first lens answer, from its process start (log)', 'serverLens', ''],
    ['warm: of which loading the server bundle (log: `server loaded`)', 'serverLoaded', ''],
  ];
  const table = before
    ? ['| measurement | before (main) | after | after / before | target |', '|---|---|---|---|---|',
      ...rows.map(([label, key, target]) => `| ${label} | ${fmt(med(before, key))} | ${fmt(med(after, key))} | ${ratio(med(after, key), med(before, key))} | ${target} |`)]
    : ['| measurement | median | target |', '|---|---|---|', ...rows.map(([label, key, target]) => `| ${label} | ${fmt(med(after, key))} | ${target} |`)];
  const each = variants.map((v) => `${v.name}: ${v.runs.map((r) => `${r.cold}/${r.warm} ms`).join(', ')}`).join('; ');
  const section = [
    '<!-- bench:editor-startup:start -->',
    '## Editor start-up: first CodeLens, cold and warm (VS Code in the e2e harness)',
    '',
    `Command: \`npm run package && node --import tsx bench/editor-startup.ts --runs ${runs}${before ? ' --before <main\'s .vsix>' : ''} --write\` on ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)},`,
    `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} at the runs' starts (the machine is shared). ${HONO} from the npm registry (${countFiles()} files), the extension`,
    'installed from the .vsix in code-server 4.117, driven by Chromium; a fresh code-server and profile per run' + (before ? ', the two builds alternating' : '') + '; medians of',
    `${runs} runs (cold/warm each: ${each}).`,
    '',
    ...table,
    '',
    'A window reload starts a new extension host and language server; the warm time runs from the new page\'s navigation',
    '(`--reconnection-grace-time 1` ends the old window\'s server, as desktop VS Code does). The lens is served from the',
    'persisted index before the catch-up run, the sidecar and TypeScript, which wait for it (`start-up +T ms` lines in the log).',
    '<!-- bench:editor-startup:end -->',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (process.argv.includes('--write')) {
    const file = path.join(__dirname, '..', 'docs', 'benchmarks.md');
    const doc = fs.readFileSync(file, 'utf8');
    const re = /<!-- bench:editor-startup:start -->[\s\S]*<!-- bench:editor-startup:end -->/;
    fs.writeFileSync(file, re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n${section}\n`);
  }
})();

function findVsix(): string {
  const root = path.join(__dirname, '..');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = path.join(root, `${pkg.name}-${pkg.version}.vsix`);
  if (!fs.existsSync(vsix)) throw new Error('run `npm run package` first');
  return vsix;
}

function countFiles(): number {
  return findFiles(path.join(cacheRoot(), HONO.replace('@', '-'), 'package'), /.*/).length;
}
