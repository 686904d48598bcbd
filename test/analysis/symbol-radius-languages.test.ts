import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestApp, type TestApp } from '../helpers/engine';
import { copyOf, debianPackage, npmPackage, within } from '../helpers/real-code';
import { findNameUses } from '../../server/engine/analysis/name-usages';

// The blast radius of one symbol (`file#Name`) on real code of each language we parse. Before, only
// TypeScript and JavaScript files were read for uses, so a Go, Python, Rust or Ruby symbol answered
// "0 dependents, risk none", and a JavaScript module's default export or `module.exports` did too.
// Each expected list is what `rg` finds in the files that import the target, read by hand.

async function indexed(t: TestApp, folder: string): Promise<string> {
  const res = await t.call('POST', '/v2/repos/index/new', { url: folder });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await t.engine.queue.idle();
  return res.body.data.repo.repo_id;
}

type Target = { found: boolean; reason?: string; dependents?: { file_path: string; depth: number }[]; call_edges?: { from_file: string; to_symbol: string }[] };

async function symbolRadius(t: TestApp, repo: string, file: string): Promise<Target> {
  const res = await t.call('POST', `/v2/repos/${repo}/radius`, { file, include: ['dependents', 'call_edges'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.targets[0];
}

const direct = (target: Target) => (target.dependents ?? []).filter((d) => d.depth === 1).map((d) => d.file_path).sort();

async function withRepo(folder: string, run: (t: TestApp, repo: string) => Promise<void>): Promise<void> {
  const t = await createTestApp();
  try {
    await run(t, await indexed(t, folder));
  } finally {
    await t.close();
  }
}

test('Go: a package\'s function is used by the files that call pkg.Name (cobra 1.6.1)', async () => {
  const src = path.join(debianPackage('golang-github-spf13-cobra-dev', '1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra');
  await withRepo(copyOf(src), async (t, repo) => {
    const exact = await symbolRadius(t, repo, 'args.go#ExactArgs');
    assert.equal(exact.found, true);
    assert.deepEqual(direct(exact), ['args_test.go', 'command_test.go']);
    assert.ok(exact.call_edges!.some((c) => c.from_file === 'args_test.go' && c.to_symbol === 'ExactArgs'));
    // doc/ is another package: only `cobra.Command` there counts, not a local name of its own.
    const command = await symbolRadius(t, repo, 'command.go#Command');
    assert.ok(direct(command).includes('doc/man_docs.go'), JSON.stringify(direct(command)));
  });
});

test('Python: uses through `from .m import Name`, `m.Name` and a quoted annotation (werkzeug 2.2.2)', async () => {
  const src = path.join(debianPackage('python3-werkzeug', '2.2.2-3+deb12u1'), 'usr/lib/python3/dist-packages/werkzeug');
  await withRepo(copyOf(src), async (t, repo) => {
    const headers = await symbolRadius(t, repo, 'datastructures.py#Headers');
    assert.equal(headers.found, true);
    const users = direct(headers);
    for (const f of ['utils.py', 'test.py', 'formparser.py', 'sansio/response.py', 'wrappers/response.py']) assert.ok(users.includes(f), `${f} in ${users}`);
    assert.ok(users.includes('http.py'), 'http.py names it only as t.Union["ds.Headers", …]');
    // serving.py says "Headers already set" in a string; it does not import datastructures.
    assert.ok(!users.includes('serving.py'));
  });
});

test('Rust: a crate root\'s function is used where `crate::name` is called (regex-syntax 0.6.27)', async () => {
  const src = within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*');
  await withRepo(copyOf(src), async (t, repo) => {
    const meta = await symbolRadius(t, repo, 'src/lib.rs#is_meta_character');
    assert.deepEqual(direct(meta), ['src/ast/parse.rs', 'src/hir/print.rs']);
  });
});

test('Ruby: a class inside `module Sinatra` is a symbol of its file, used by base.rb (sinatra 3.0.5)', async () => {
  const src = within(debianPackage('ruby-sinatra', '3.0.5-3+deb12u1'), 'usr/share/rubygems-integration/all/gems/sinatra-*');
  await withRepo(copyOf(src), async (t, repo) => {
    const hash = await symbolRadius(t, repo, 'lib/sinatra/indifferent_hash.rb#IndifferentHash');
    assert.equal(hash.found, true, hash.reason);
    assert.deepEqual(direct(hash), ['lib/sinatra/base.rb']);
  });
});

test('JavaScript: module.exports = Layer, export default, and a default-exported object\'s members (express 4.21.2, axios 1.7.9)', async () => {
  await withRepo(copyOf(npmPackage('express@4.21.2')), async (t, repo) => {
    const layer = await symbolRadius(t, repo, 'lib/router/layer.js#Layer');
    assert.deepEqual(direct(layer), ['lib/router/index.js', 'lib/router/route.js']);
    // A script may name the file by its absolute path inside the repository.
    const root = t.engine.reposStore.get(repo)!.rootPath;
    assert.deepEqual(direct(await symbolRadius(t, repo, `${root}/lib/router/layer.js#Layer`)), ['lib/router/index.js', 'lib/router/route.js']);
  });
  await withRepo(copyOf(npmPackage('axios@1.7.9')), async (t, repo) => {
    assert.deepEqual(direct(await symbolRadius(t, repo, 'lib/core/mergeConfig.js#mergeConfig')),
      ['lib/axios.js', 'lib/core/Axios.js', 'lib/helpers/resolveConfig.js']);
    // `import utils from '../utils.js'` … `utils.merge(…)`: utils.js ends with `export default { …, merge, … }`.
    assert.deepEqual(direct(await symbolRadius(t, repo, 'lib/utils.js#merge')), ['lib/core/Axios.js', 'lib/core/mergeConfig.js']);
  });
});

test('names are read from code, not from comments or strings, and not where they are declared', () => {
  const go = 'package doc\n// cobra.Command in a comment\nfunc f(c *cobra.Command) { s := "cobra.Command"; Command := 1; _ = Command }\n';
  assert.deepEqual(findNameUses('go', go, new Set(['Command']), true).map((u) => u.line), [3]);
  const py = 'def Headers():\n    pass\n# Headers\nx = "Headers already set"\ny: "ds.Headers" = Headers()\n';
  assert.deepEqual(findNameUses('python', py, new Set(['Headers'])).map((u) => [u.line, u.kind]), [[5, 'type'], [5, 'call']]);
  const rust = "fn is_meta_character(c: char) -> bool { true }\nfn g<'a>(x: &'a str) { crate::is_meta_character('x'); }\n";
  const php = "<?php\nfunction render($x) {}\n# render\n$render = 'render';\necho render(1);\n";
  assert.deepEqual(findNameUses('php', php, new Set(['render'])).map((u) => [u.line, u.kind]), [[5, 'call']]);
  assert.deepEqual(findNameUses('rust', rust, new Set(['is_meta_character'])).map((u) => [u.line, u.kind]), [[2, 'call']]);
});
