/**
 * Blast radius across the packages of a TypeScript monorepo that was cloned and never installed
 * (no node_modules), checked against the compiler on the same tree once "installed":
 *
 *   node --import tsx bench/workspace-radius.ts <monorepo folder> [core file …]
 *
 * e.g. a clone of payloadcms/payload with `packages/payload/src/index.ts packages/payload/src/config/types.ts`.
 * Loupe indexes the folder; then every workspace package is symlinked into its workspace's node_modules (as a
 * hoisted `npm install` links them; removed at the end) and `ts.resolveModuleName` answers each import again
 * on the real file system, following the links. Prints one JSON line: import statements compared, the ones
 * where Loupe and the installed compiler disagree (up to 20), and for each core file the dependents Loupe
 * finds, the installed compiler's closure, and the closure without workspace packages (what a resolver that
 * only follows tsconfig paths and relative imports finds).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { findWorkspaces } from '../server/engine/indexer/workspaces';

type Graph = Map<string, Set<string>>; // file → files it imports

function closure(graph: Graph, target: string): Set<string> {
  const reverse = new Map<string, string[]>();
  for (const [from, tos] of graph) for (const to of tos) reverse.set(to, [...(reverse.get(to) ?? []), from]);
  const seen = new Set<string>();
  const queue = [target];
  while (queue.length) {
    for (const d of reverse.get(queue.pop()!) ?? []) if (!seen.has(d) && d !== target) { seen.add(d); queue.push(d); }
  }
  return seen;
}

function compilerResolver(root: string) {
  const configs = new Map<string, ts.CompilerOptions>();
  const realRoot = fs.realpathSync(root);
  return (from: string, specifier: string): string | null => {
    const file = path.join(root, from);
    const configFile = ts.findConfigFile(path.dirname(file), ts.sys.fileExists) ?? '';
    let options = configs.get(configFile);
    if (!options) {
      options = { moduleResolution: ts.ModuleResolutionKind.Node10 };
      if (configFile && !path.relative(root, configFile).startsWith('..')) {
        const read = ts.readConfigFile(configFile, ts.sys.readFile);
        options = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile), undefined, configFile).options;
      }
      options = { ...options, allowJs: true, resolveJsonModule: true };
      configs.set(configFile, options);
    }
    const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
    if (!resolved) return null;
    let real: string;
    try { real = fs.realpathSync(resolved.resolvedFileName); } catch { return null; }
    const rel = path.relative(realRoot, real);
    return rel.startsWith('..') || rel.split(path.sep).includes('node_modules') ? null : rel.split(path.sep).join('/');
  };
}

async function main() {
  const [folderArg, ...coreFiles] = process.argv.slice(2);
  if (!folderArg) throw new Error('usage: bench/workspace-radius.ts <monorepo folder> [core file …]');
  const folder = path.resolve(folderArg);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-ws-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
  const links: string[] = [];
  const createdModules: string[] = []; // node_modules folders this run made (holding only its links)
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const t0 = performance.now();
    const repo = engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    const indexMs = performance.now() - t0;
    const graph = await engine.analysis.ctx.graph(repo.id);
    const statements: { from: string; specifier: string; ours: string | null }[] = [];
    const ours: Graph = new Map();
    for (const f of graph.files) {
      const record = engine.filesStore.getByPath(repo.id, f.path)!;
      if (!/typescript|javascript/.test(record.language ?? '')) continue;
      ours.set(f.path, new Set());
      for (const i of engine.filesStore.imports(record.id)) {
        if (i.kind === 'include') continue; // `/// <reference path>` is not module resolution
        statements.push({ from: f.path, specifier: i.specifier, ours: i.targetPath });
        if (i.targetPath) ours.get(f.path)!.add(i.targetPath);
      }
    }

    // Without workspace packages: the compiler on the uninstalled tree.
    const plain = compilerResolver(folder);
    const withoutWorkspaces: Graph = new Map([...ours.keys()].map((k) => [k, new Set<string>()]));
    for (const s of statements) { const t = plain(s.from, s.specifier); if (t) withoutWorkspaces.get(s.from)!.add(t); }

    // Installed: every workspace package linked into its workspace's node_modules.
    for (const ws of findWorkspaces(folder)) {
      if (!fs.existsSync(path.join(ws.dir, 'node_modules'))) createdModules.push(path.join(ws.dir, 'node_modules'));
      for (const [name, dir] of ws.packages) {
        const link = path.join(ws.dir, 'node_modules', name);
        if (fs.existsSync(link)) continue;
        fs.mkdirSync(path.dirname(link), { recursive: true });
        fs.symlinkSync(path.relative(path.dirname(link), dir), link, 'dir');
        links.push(link);
      }
    }
    const installed = compilerResolver(folder);
    const theirs: Graph = new Map([...ours.keys()].map((k) => [k, new Set<string>()]));
    const disagreements: string[] = [];
    let agree = 0;
    for (const s of statements) {
      const t = installed(s.from, s.specifier);
      if (t) theirs.get(s.from)!.add(t);
      if (t === s.ours) agree++;
      else if (disagreements.length < 20) disagreements.push(`${s.from}: ${s.specifier} → ours ${s.ours}, compiler ${t}`);
    }
    const radius = coreFiles.map((file) => {
      const index = graph.indexOfPath.get(file);
      return {
        file,
        loupe: index === undefined ? null : graph.dependents([index]).length,
        installedCompiler: closure(theirs, file).size,
        withoutWorkspaces: closure(withoutWorkspaces, file).size,
      };
    });
    console.log(JSON.stringify({
      folder, files: graph.files.length, indexMs: Math.round(indexMs), statements: statements.length, agree,
      disagree: statements.length - agree, disagreements, radius,
    }));
  } finally {
    for (const link of links) fs.rmSync(link, { force: true });
    for (const dir of createdModules) fs.rmSync(dir, { recursive: true, force: true });
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
