import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/engine';

const ROOT = path.join(__dirname, '..', '..');
// The tools' own entry points on this Node (their .bin shims would take whatever `node` is on PATH).
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const ESLINT = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

/** A small tree with the project's layout: one right file and one file per wrong arrow. */
function tree(files: Record<string, string>): string {
  const dir = tempDir('loupe-fences-');
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'preserve', moduleResolution: 'bundler', strict: true } }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

test('npm run lint runs the dependency fences, and each fence fails a wrong arrow', { timeout: 120_000 }, () => {
  const lint = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.lint as string;
  assert.match(lint, /depcruise --config \.dependency-cruiser\.cjs server protocol client webview/);

  const dir = tree({
    'protocol/api/search.ts': 'export const SearchRequest = { type: "object" };\nexport type Req = { query: string };\n',
    'protocol/lsp.ts': 'export interface LoupeStatus { paused: boolean }\n',
    'server/engine/store/files-store.ts': 'export class FilesStore {}\n',
    'server/engine/core.ts': 'export class EngineCore {}\n',
    'server/host.ts': "import { EngineCore } from './engine/core';\nexport const core = new EngineCore();\n",
    'server/engine/operations/search.ts': "import type { Req } from '../../../protocol/api/search';\nexport const run = (r: Req) => r.query;\n",
    'server/engine/search/a.ts': "import { b } from './b';\nexport const a = () => b();\n",
    'server/engine/search/b.ts': "import { a } from './a';\nexport const b = (): unknown => a;\n",
    'server/engine/analysis/uses-lsp.ts': "import type { LoupeStatus } from '../../../protocol/lsp';\nexport const s = (x: LoupeStatus) => x;\n",
    'server/engine/analysis/uses-schema.ts': "import { SearchRequest } from '../../../protocol/api/search';\nexport const schema = SearchRequest;\n",
    'server/engine/analysis/uses-http.ts': "import { route } from '../../transport/http/route';\nexport const r = route;\n",
    'server/transport/http/route.ts': "import { run } from '../../engine/operations/search';\nexport const route = run;\n",
    'server/transport/lsp/uses-store.ts': "import { FilesStore } from '../../engine/store/files-store';\nexport const s = new FilesStore();\n",
    'server/transport/lsp/uses-http.ts': "import { route } from '../http/route';\nexport const r = route;\n",
    'client/uses-server.ts': "import { run } from '../server/engine/operations/search';\nexport const r = run;\n",
  });
  // The output `npm run lint` prints, and its exit code (the number of errors).
  const run = spawnSync(process.execPath, [DEPCRUISE, '--config', path.join(ROOT, '.dependency-cruiser.cjs'), 'server', 'protocol', 'client'], {
    cwd: dir, encoding: 'utf8', timeout: 100_000,
  });
  assert.notEqual(run.status, 0, `the wrong arrows fail the run: ${run.stdout}${run.stderr}`);
  // A cycle is reported once, from whichever of its modules comes first.
  const violations = [...new Set([...run.stdout.matchAll(/^\s*error (\S+): (\S+) →/gm)]
    .map((m) => `${m[1]}: ${m[2]}`.replace(/search\/[ab]\.ts$/, 'search/{a,b}.ts')))].sort();
  assert.deepEqual(violations, [
    'client-and-webview-through-protocol: client/uses-server.ts',
    'engine-core-stays-inside: server/host.ts',
    'engine-not-to-editor-wire: server/engine/analysis/uses-lsp.ts',
    'engine-not-to-transport-or-host: server/engine/analysis/uses-http.ts',
    'engine-uses-api-types-only: server/engine/analysis/uses-schema.ts',
    'no-cycles: server/engine/search/{a,b}.ts',
    'only-the-host-mounts-transports: server/engine/analysis/uses-http.ts',
    'transport-not-to-store: server/transport/lsp/uses-store.ts',
    'transport-not-to-transport: server/transport/lsp/uses-http.ts',
    'transport-only-to-operations: server/transport/lsp/uses-store.ts',
  ], run.stdout);
});

test('lint refuses an uncoded error in the engine and an explicit any in product code', () => {
  const lint = (file: string, text: string) => spawnSync(process.execPath, [ESLINT, '--max-warnings', '0', '--stdin', '--stdin-filename', file], {
    cwd: ROOT, input: text, encoding: 'utf8', timeout: 60_000,
  });
  const uncoded = lint('server/engine/search/probe.ts', "export function f(): never {\n  throw new Error('no code');\n}\n");
  assert.equal(uncoded.status, 1);
  assert.match(uncoded.stdout, /Engine failures are coded/);
  const anyInServer = lint('server/transport/http/probe.ts', 'export const f = (x: any) => x;\n');
  assert.equal(anyInServer.status, 1);
  assert.match(anyInServer.stdout, /no-explicit-any/);
  assert.equal(lint('server/engine/search/probe.ts', "import { LoupeError } from '../errors';\nexport function f(): never {\n  throw new LoupeError('INTERNAL', 'coded');\n}\n").status, 0);
});
