import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, tempDir, type TestApp } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

// The blast radius of one TypeScript symbol (`file#Name`) on packages that ship their sources, checked
// against the TypeScript compiler: each expected list is the files where the LanguageService's
// findReferences finds the symbol (imports and re-exports left out), the declaring file excepted.

async function indexed(t: TestApp, folder: string): Promise<string> {
  const res = await t.call('POST', '/v2/repos/index/new', { url: folder });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await t.engine.queue.idle();
  return res.body.data.repo.repo_id;
}

type Target = { found: boolean; dependents?: { file_path: string; depth: number }[] };

async function direct(t: TestApp, repo: string, file: string): Promise<string[]> {
  const res = await t.call('POST', `/v2/repos/${repo}/radius`, { file, include: ['dependents'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const target: Target = res.body.data.targets[0];
  assert.equal(target.found, true);
  return (target.dependents ?? []).filter((d) => d.depth === 1).map((d) => d.file_path).sort();
}

/** The package's files that show the case (its paths kept), indexed on their own: seconds, not a whole package. */
async function withFiles(pkg: string, files: string[], run: (t: TestApp, repo: string) => Promise<void>): Promise<void> {
  const folder = tempDir('loupe-ts-');
  const t = await createTestApp();
  try {
    for (const f of files) fs.cpSync(path.join(npmPackage(pkg), 'src', f), path.join(folder, f));
    await run(t, await indexed(t, folder));
  } finally {
    await t.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

test('a type read through a namespace import (`core.Blocked` in a type) is a use (effect 3.12.0)', async () => {
  // fiberRuntime.ts: `import * as core from "./core.js"` … `new Array<core.Blocked>()`.
  await withFiles('effect@3.12.0', ['internal/core.ts', 'internal/fiberRuntime.ts'], async (t, repo) => {
    assert.deepEqual(await direct(t, repo, 'internal/core.ts#Blocked'), ['internal/fiberRuntime.ts']);
  });
});

test('a name a barrel renames (`export { callProcedure as callTRPCProcedure }`) is used under the new name (@trpc/server 11.0.0)', async () => {
  // adapters/ws.ts imports callTRPCProcedure from '../@trpc/server', which renames router.ts's callProcedure.
  // The chain: ws.ts → @trpc/server/index.ts (the rename) → unstable-core-do-not-import.ts (`export *`) → router.ts.
  const files = ['adapters/ws.ts', '@trpc/server/index.ts', 'unstable-core-do-not-import.ts', 'unstable-core-do-not-import/router.ts'];
  await withFiles('@trpc/server@11.0.0', files, async (t, repo) => {
    assert.deepEqual(await direct(t, repo, 'unstable-core-do-not-import/router.ts#callProcedure'), ['adapters/ws.ts']);
  });
});

test('a barrel\'s namespace object passed whole is not a use of each symbol behind it (rxjs 7.8.1)', async () => {
  // internal/umd.ts: `import * as _operators from '../operators/index'; export const operators = _operators`.
  // take.ts has one export, which stood for that whole namespace object before.
  const users = ['internal/operators/delayWhen.ts', 'internal/operators/elementAt.ts', 'internal/operators/first.ts'];
  const files = ['internal/umd.ts', 'operators/index.ts', 'internal/operators/take.ts', 'internal/operators/debounce.ts', ...users];
  await withFiles('rxjs@7.8.1', files, async (t, repo) => {
    assert.deepEqual(await direct(t, repo, 'internal/operators/take.ts#take'), users);
    assert.deepEqual(await direct(t, repo, 'internal/operators/debounce.ts#debounce'), []);
  });
});

test('a namespace a barrel exports under a name (`export * as util`) is used through its members (zod 4.1.12)', async () => {
  // classic/schemas.ts: `import { util } from "../core/index.js"` … `pick<M extends util.Mask<keyof Shape>>`;
  // core/index.ts: `export * as util from "./util.js"`.
  const files = ['v4/core/util.ts', 'v4/core/index.ts', 'v4/classic/schemas.ts', 'v4/mini/schemas.ts'];
  await withFiles('zod@4.1.12', files, async (t, repo) => {
    assert.deepEqual(await direct(t, repo, 'v4/core/util.ts#Mask'), ['v4/classic/schemas.ts', 'v4/mini/schemas.ts']);
  });
});

test('a namespace import a barrel exports again (`import * as z …; export { z }`) is used through its members (zod 4.1.12)', async () => {
  // index.ts: `import * as z from "./v4/classic/external.js"; export { z }`; external.ts: `export * from "./schemas.js"`;
  // the locale test: `import { z } from "../../../../index.js"` … `z.string().min(5)`.
  const files = ['index.ts', 'v4/classic/external.ts', 'v4/classic/schemas.ts', 'v4/core/tests/locales/es.test.ts'];
  await withFiles('zod@4.1.12', files, async (t, repo) => {
    assert.deepEqual(await direct(t, repo, 'v4/classic/schemas.ts#string'), ['v4/core/tests/locales/es.test.ts']);
  });
});

test('a member target (`Axios.request`) is not found, and the reason names the class target that answers (axios 1.7.9)', async () => {
  const folder = tempDir('loupe-axios-');
  const t = await createTestApp();
  try {
    for (const f of ['lib/core/Axios.js', 'lib/axios.js']) fs.cpSync(path.join(npmPackage('axios@1.7.9'), f), path.join(folder, f));
    const repo = await indexed(t, folder);
    const res = await t.call('POST', `/v2/repos/${repo}/radius`, { files: ['lib/core/Axios.js#Axios.request', 'lib/core/Axios.js#Axios.nope', 'lib/core/Axios.js#Axios'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [member, missing, owner] = res.body.data.targets as { found: boolean; reason?: string; direct_dependents: number }[];
    assert.equal(member.found, false);
    assert.equal(member.reason, 'Axios.request is a member of Axios; a symbol target names a top-level symbol: lib/core/Axios.js#Axios for the files that use Axios');
    assert.equal(missing.reason, 'lib/core/Axios.js has no top-level symbol Axios.nope');
    assert.deepEqual([owner.found, owner.direct_dependents], [true, 1]);
  } finally {
    await t.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
