/**
 * C and C++ include reach against g++: each header of a library as Debian installs it (indexed at its include root)
 * is given to `g++ -std=c++17 -MM -MG -I.`, which lists every header the preprocessor opens for it, directly or
 * not; each must be in the header's reach over Loupe's import graph (what its radius walks). Loupe's reach may hold
 * more: `#include`s under `#if` branches g++ does not take are edges too. Prints one JSON line per library.
 *
 *   node --import tsx bench/cpp-includes.ts [nlohmann-json fmt spdlog glm eigen]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { debianPackage } from './debian';

const LIBRARIES: Record<string, { spec: string; root: string }> = {
  'nlohmann-json': { spec: 'nlohmann-json3-dev=3.11.2-2', root: 'usr/include' },
  fmt: { spec: 'libfmt-dev=9.1.0+ds1-2', root: 'usr/include' },
  spdlog: { spec: 'libspdlog-dev=1:1.10.0+ds-0.4', root: 'usr/include' },
  glm: { spec: 'libglm-dev=0.9.9.8+ds-6', root: 'usr/include' },
  eigen: { spec: 'libeigen3-dev=3.4.0-4', root: 'usr/include/eigen3' },
};

/** A header's name: a C/C++ header extension, or none (Eigen's `Eigen/Dense`). */
const HEADER = /\.(h|hh|hpp|hxx|h\+\+|inl|ipp|tpp|tcc|txx)$|(^|\/)[^./]+$/;

async function compare(name: string): Promise<Record<string, unknown>> {
  const dir = path.join(debianPackage(LIBRARIES[name].spec), LIBRARIES[name].root);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-cpp-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [dir] });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const registered = engine.repos.registerLocalFolder(userId, dir);
    await engine.queue.idle();
    const graph = await engine.analysis.ctx.graph(registered.id);
    // What the header's includes reach (the graph's own forward closure), the header itself aside.
    const reach = (file: number) => new Set([...graph.reachableFrom([file])].filter((i) => i !== file).map((i) => graph.path(i)));
    let headers = 0, refused = 0, opened = 0, reached = 0, missed = 0;
    const examples: string[] = [];
    for (const [i, file] of graph.files.entries()) {
      // By name, not by the language the index gave it: the same headers before and after a change of detection.
      if (!HEADER.test(file.path)) continue;
      headers++;
      let text: string;
      try {
        text = execFileSync('g++', ['-std=c++17', '-MM', '-MG', '-I.', '-x', 'c++', file.path], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000, killSignal: 'SIGKILL' });
      } catch {
        refused++; // an #error, or a header that needs another included first
        continue;
      }
      const gxx = new Set(text.replace(/\\\n/g, ' ').split(/\s+/).filter((w) => w && !w.endsWith(':')).map((f) => path.posix.normalize(f))
        .filter((f) => f !== file.path && fs.existsSync(path.join(dir, f))));
      const ours = reach(i);
      opened += gxx.size;
      reached += ours.size;
      for (const f of gxx) if (!ours.has(f)) { missed++; if (examples.length < 5) examples.push(`${file.path} -> ${f}`); }
    }
    return { library: name, spec: LIBRARIES[name].spec, headers, refusedByGxx: refused, gxxOpens: opened, loupeReach: reached, missed, recall: opened ? (opened - missed) / opened : 1, examples };
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => {
    const names = process.argv.slice(2);
    for (const name of names.length ? names : Object.keys(LIBRARIES)) {
      if (!LIBRARIES[name]) throw new Error(`unknown library ${name}: ${Object.keys(LIBRARIES).join(', ')}`);
      console.log(JSON.stringify(await compare(name)));
    }
  })().catch((error) => { console.error(error); process.exit(1); });
}
