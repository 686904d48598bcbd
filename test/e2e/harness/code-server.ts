/**
 * One code-server (a real VS Code) for all scenarios: its own user-data, extensions and XDG folders
 * in a temp dir, the workspace given on the command line, killed as a process group at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { codeServerBin } from './install';

export interface CodeServer {
  url: string;
  port: number;
  userDataDir: string;
  workspace: string;
  output: string[];
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  workspace: string;
  /** A folder to link as the extension (the repository itself), or a .vsix to install. */
  extensionFolder?: string;
  vsix?: string;
  settings?: Record<string, unknown>;
  /** Where stop() keeps the logs (test-output/e2e/logs/<name>), to read after a failure. */
  name?: string;
  /** More command-line arguments (VS Code's own, such as --extensionTestsPath) and environment. */
  args?: string[];
  env?: Record<string, string>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-e2e-vscode-'));
  const userDataDir = path.join(root, 'user-data');
  const extensionsDir = path.join(root, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'editor.codeLens': true,
    // VS Code for the web saves after a delay by default, the desktop does not: scenarios edit without saving.
    'files.autoSave': 'off',
    'editor.hover.delay': 100,
    'window.commandCenter': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.editor.enablePreview': false,
    ...options.settings,
  }, null, 2));
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(root, 'xdg-config'),
    XDG_DATA_HOME: path.join(root, 'xdg-data'),
    XDG_CACHE_HOME: path.join(root, 'xdg-cache'),
    HOME: process.env.HOME,
    ...options.env,
  };
  const node = process.execPath; // the project's Node 22, which code-server 4.117 needs
  if (options.extensionFolder) {
    const manifest = JSON.parse(fs.readFileSync(path.join(options.extensionFolder, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
    fs.symlinkSync(options.extensionFolder, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`));
  }
  const common = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  if (options.vsix) {
    await run(node, [codeServerBin(), ...common, '--install-extension', options.vsix], env);
  }
  const port = await freePort();
  const output: string[] = [];
  const child: ChildProcess = spawn(node, [
    codeServerBin(), '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', ...common,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    // A reloaded or closed window's extension host (and language server) ends soon, as in desktop VS Code,
    // instead of waiting three hours for the browser to reconnect.
    '--reconnection-grace-time', '1',
    ...(options.args ?? []),
    options.workspace,
  ], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => output.push(String(d)));
  child.stderr!.on('data', (d) => output.push(String(d)));
  // Killed as a group (code-server, its extension hosts, their language servers) even if this test
  // process ends without reaching stop(): a hang or an uncaught error must not leave a VS Code behind.
  const killGroup = (signal: NodeJS.Signals) => { try { process.kill(-child.pid!, signal); } catch { /* gone */ } };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);
  // A signal (the runner cancelled, Ctrl+C) skips 'exit' handlers: stop the group, then end as the signal would.
  const onSignal = (signal: NodeJS.Signals) => { killGroup('SIGKILL'); process.exit(signal === 'SIGINT' ? 130 : 143); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const forget = () => { process.off('exit', onExit); process.off('SIGINT', onSignal); process.off('SIGTERM', onSignal); };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/healthz`, 60_000, output);
  } catch (error) {
    killGroup('SIGKILL');
    forget();
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    url, port, userDataDir, workspace: options.workspace, output,
    async stop() {
      killGroup('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      killGroup('SIGKILL');
      forget();
      keepLogs(options.name ?? 'code-server', userDataDir, output);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Copies the extension's logs and code-server's output out of the temp folder about to be removed. */
function keepLogs(name: string, userDataDir: string, output: string[]): void {
  const dir = path.join(__dirname, '..', '..', '..', 'test-output', 'e2e', 'logs', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'code-server.log'), output.join(''));
  findFiles(userDataDir, /^(Loupe|exthost|remoteexthost)\.log$/).forEach((f, i) => fs.copyFileSync(f, path.join(dir, `${i}-${path.basename(f)}`)));
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => { out += String(d); });
    child.stderr!.on('data', (d) => { out += String(d); });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}: ${out}`))));
  });
}

async function waitForHttp(url: string, timeoutMs: number, output: string[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url}:\n${output.join('')}`);
}

/** Every file under `dir` whose name matches, for finding the extension's log. */
export function findFiles(dir: string, name: RegExp): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    let entries: fs.Dirent[] = [];
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (name.test(e.name)) out.push(p);
    }
  };
  visit(dir);
  return out;
}
