/**
 * Makes sure the end-to-end tools exist: Debian's Chromium and a code-server (a real VS Code) from
 * the npm registry. code-server is never a project dependency; it lives in its own folder under the
 * user's cache so that a second run reuses it (first install takes about a minute and a half).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CODE_SERVER_VERSION = '4.117.0';
// code-server's VS Code pins @vscode/ripgrep 1.17.1, whose postinstall downloads ripgrep v15.0.1 from
// GitHub. GitHub is unreachable here, so its download cache is seeded with Debian's rg instead.
const RIPGREP_PACKAGE = '1.17.1';
const RIPGREP_TAG = 'v15.0.1';

export const CHROMIUM = '/usr/bin/chromium';

export function cacheRoot(): string {
  return process.env.LOUPE_E2E_CACHE ?? path.join(os.homedir(), '.cache', 'loupe-e2e');
}

export function codeServerBin(): string {
  return path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM) && fs.existsSync('/usr/bin/rg')) return;
  if (process.getuid?.() !== 0) throw new Error('chromium and ripgrep are missing: run `apt-get install -y chromium ripgrep libkrb5-dev` as root');
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', 'chromium', 'ripgrep', 'libkrb5-dev'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function seedRipgrepCache(): void {
  const dir = path.join(os.tmpdir(), `vscode-ripgrep-cache-${RIPGREP_PACKAGE}`);
  const archive = path.join(dir, `ripgrep-${RIPGREP_TAG}-x86_64-unknown-linux-musl.tar.gz`);
  if (fs.existsSync(archive)) return;
  fs.mkdirSync(dir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-'));
  fs.copyFileSync('/usr/bin/rg', path.join(staging, 'rg'));
  run('tar', ['czf', archive, '-C', staging, 'rg']);
  fs.rmSync(staging, { recursive: true, force: true });
}

function withoutNpmVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key)));
}

/** Installs what is missing; returns quickly when everything is already there. */
export function ensureE2eTools(): void {
  ensureChromium();
  const folder = path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
  const marker = path.join(folder, '.installed');
  if (fs.existsSync(marker) && fs.existsSync(codeServerBin())) return;
  seedRipgrepCache();
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'package.json'), '{"name":"loupe-e2e-code-server","private":true}\n');
  // code-server's postinstall insists on Node 22 (read from npm's user agent): run npm on the Node
  // that runs this test, which is the project's node@22.
  const npmCli = findNpmCli();
  const started = Date.now();
  process.stderr.write(`installing code-server ${CODE_SERVER_VERSION} into ${folder} (first run only)\n`);
  run(process.execPath, [npmCli, 'install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: folder,
    env: {
      // Under `npm test` the outer npm's settings arrive as npm_* variables, its user agent among them
      // ("node/v20" when the outer npm runs on the system Node), and code-server's postinstall reads the
      // Node version from that agent: the inner npm must start clean and describe itself.
      ...withoutNpmVariables(process.env),
      npm_config_unsafe_perm: 'true',
      npm_config_dangerously_allow_all_scripts: 'true',
      npm_config_yes: 'true',
      // Native modules of code-server build with node-gyp, which would download Node's headers from
      // nodejs.org (unreachable here): use the system's installed headers. The modules it builds use
      // Node-API, so headers of another Node major still produce binaries Node 22 loads.
      ...(fs.existsSync('/usr/include/node/node.h') && !process.env.npm_config_nodedir ? { npm_config_nodedir: '/usr' } : {}),
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
    },
  });
  fs.writeFileSync(marker, `${new Date().toISOString()} ${Date.now() - started} ms\n`);
}

function findNpmCli(): string {
  const candidates = [
    process.env.npm_execpath,
    '/usr/lib/node_modules/npm/bin/npm-cli.js',
    '/usr/local/lib/node_modules/npm/bin/npm-cli.js',
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ];
  const found = candidates.find((c) => c && c.endsWith('.js') && fs.existsSync(c));
  if (!found) throw new Error('cannot find npm-cli.js to install code-server');
  return found;
}

