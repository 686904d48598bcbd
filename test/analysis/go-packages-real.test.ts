import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestApp, type TestApp } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import fs from 'node:fs';
import { ChangedNames } from '../../server/engine/indexer/name-references';
import { nameChanges } from '../../server/engine/indexer/index-writes';

/**
 * Go on real modules from Debian (cobra 1.6.1, logrus 1.9.0): a file depends on the sibling files of its package
 * whose package-level names or methods it uses (renaming Command.NonInheritedFlags in command.go breaks
 * bash_completions.go and completions.go under `go build`), and an import belongs to the go.mod `require` module
 * whose path is its longest prefix.
 */
const cobraDir = () => copyOf(path.join(debianPackage('golang-github-spf13-cobra-dev', '1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra'), 'loupe-cobra-');
const logrusDir = () => copyOf(path.join(debianPackage('golang-github-sirupsen-logrus-dev', '1.9.0-1'), 'usr/share/gocode/src/github.com/sirupsen/logrus'), 'loupe-logrus-');

async function indexed(app: TestApp, folder: string): Promise<string> {
  const res = await app.call('POST', '/v2/repos/index/new', { url: folder });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await app.engine.queue.idle();
  return res.body.data.repo.repo_id;
}

async function radius(_: TestApp, repo: string, body: object): Promise<{ found: boolean; dependents?: { file_path: string; depth: number }[] }> {
  const res = await t.call('POST', `/v2/repos/${repo}/radius`, { include: ['dependents'], limit: 10000, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.targets[0];
}

let t: TestApp;
let cobra: string;
let logrus: string;
before(async () => {
  t = await createTestApp();
  cobra = await indexed(t, cobraDir());
  logrus = await indexed(t, logrusDir());
});
after(() => t.close());

const direct = (target: { dependents?: { file_path: string; depth: number }[] }) =>
  (target.dependents ?? []).filter((d) => d.depth === 1).map((d) => d.file_path).sort();

test('cobra: command.go\'s dependents include the sibling files that use its names; doc/util.go\'s the doc generators', async () => {
  const repo = cobra;
  const command = direct(await radius(t, repo, { file: 'command.go' }));
  for (const f of ['completions.go', 'bash_completions.go', 'zsh_completions.go', 'flag_groups.go', 'fish_completions.go', 'args.go']) {
    assert.ok(command.includes(f), `${f} uses Command: ${command.join(', ')}`);
  }
  const util = direct(await radius(t, repo, { file: 'doc/util.go' }));
  for (const f of ['doc/man_docs.go', 'doc/md_docs.go', 'doc/rest_docs.go', 'doc/yaml_docs.go']) assert.ok(util.includes(f), `${f} calls hasSeeAlso: ${util.join(', ')}`);
  // A method called by name (`c.NonInheritedFlags()`), declared in command.go, is an edge of its own.
  const files = t.engine.filesStore;
  const bash = files.imports(files.getByPath(repo, 'bash_completions.go')!.id).filter((i) => i.kind === 'reference');
  assert.ok(bash.some((i) => i.targetPath === 'command.go'), JSON.stringify(bash));
  // The platform variants declare the same name (preExecHookFn): command.go uses both, neither uses the other.
  assert.ok(direct(await radius(t, repo, { file: 'command_notwin.go' })).includes('command.go'));
  assert.ok(!direct(await radius(t, repo, { file: 'command_win.go' })).includes('command_notwin.go'));
});

test('logrus: doc.go (only a package comment) depends on no sibling; entry.go\'s users are the files naming Entry', async () => {
  const repo = logrus;
  const files = t.engine.filesStore;
  assert.deepEqual(files.imports(files.getByPath(repo, 'doc.go')!.id), []);
  const entry = direct(await radius(t, repo, { file: 'entry.go' }));
  for (const f of ['logger.go', 'exported.go', 'hooks.go', 'text_formatter.go', 'json_formatter.go', 'writer.go']) assert.ok(entry.includes(f), `${f} uses Entry: ${entry.join(', ')}`);
  assert.ok(!entry.includes('doc.go'));
  const all = (await radius(t, repo, { file: 'buffer_pool.go' })).dependents ?? [];
  assert.ok(!all.some((d) => d.file_path === 'doc.go'), 'doc.go uses nothing of buffer_pool.go');
});

test('go.mod requirements own the imports of their packages: blueprint counts and dependency radius (logrus, cobra)', async () => {
    const bp = await t.call('GET', `/v2/repos/${logrus}/blueprint`);
    assert.equal(bp.status, 200, JSON.stringify(bp.body));
    const deps = Object.fromEntries(bp.body.data.dependencies.map((d: { name: string; type: string; files: number; version: string | null }) => [d.name, [d.type, d.files, d.version]]));
    assert.ok(deps['github.com/stretchr/testify'][1] >= 8, JSON.stringify(deps));
    assert.equal(deps['github.com/stretchr/testify'][2], 'v1.7.0');
    assert.ok(deps['golang.org/x/sys'][1] >= 1, JSON.stringify(deps));
    assert.deepEqual(Object.keys(deps).filter((n) => n.startsWith('github.com/stretchr/testify/') || n.startsWith('golang.org/x/sys/')), []);

    const md2man = await radius(t, cobra, { dependency: 'github.com/cpuguy83/go-md2man/v2' });
    assert.equal(md2man.found, true);
    assert.deepEqual(direct(md2man), ['doc/man_docs.go']);
    // A package path of the module still answers, with the importers of that package.
    assert.deepEqual(direct(await radius(t, cobra, { dependency: 'github.com/cpuguy83/go-md2man/v2/md2man' })), ['doc/man_docs.go']);
    const pflag = direct(await radius(t, cobra, { dependency: 'github.com/spf13/pflag' }));
    assert.ok(pflag.includes('command.go') && pflag.includes('flag_groups.go'), pflag.join(', '));
});

test('logrus: a sibling edge follows edits: a name used before its file exists links once the file is saved, and unlinks when it is removed', async () => {
  const repo = logrus;
  const record = t.engine.reposStore.get(repo)!;
  const root = record.rootPath;
  const altExit = path.join(root, 'alt_exit.go');
  fs.writeFileSync(altExit, fs.readFileSync(altExit, 'utf8').replace('func runHandlers() {', 'func runHandlers() {\n\t_ = exitWidgets()'));
  await t.engine.indexer.updatePaths(record, ['alt_exit.go']);
  fs.writeFileSync(path.join(root, 'widget.go'), 'package logrus\n\nfunc exitWidgets() int { return 0 }\n');
  await t.engine.indexer.updatePaths(record, ['widget.go']);
  assert.deepEqual(direct(await radius(t, repo, { file: 'widget.go' })).filter((f) => !f.endsWith('_test.go') && !f.includes('/')), ['alt_exit.go']);
  fs.rmSync(path.join(root, 'widget.go'));
  await t.engine.indexer.updatePaths(record, ['widget.go']);
  const files = t.engine.filesStore;
  assert.ok(!files.imports(files.getByPath(repo, 'alt_exit.go')!.id).some((i) => i.specifier === 'exitWidgets'), 'no edge is left to the removed file');
});

test('logrus: a Go file added or removed looks for the users of its names in its own folder only (a package), not the repository', () => {
  const files = t.engine.filesStore;
  // hooks/syslog/syslog.go names logrus.Entry too, but a file of another package never links to a sibling by name.
  const everywhere = files.filesMentioning(logrus, 'go', new Set(['entry'])).map((f) => f.path);
  assert.ok(everywhere.some((p) => p.startsWith('hooks/')), everywhere.join(' '));
  const inFolder = files.filesMentioning(logrus, 'go', new Set(['entry']), new Set(), new Set(['.'])).map((f) => f.path);
  assert.ok(inFolder.length > 0 && inFolder.every((p) => !p.includes('/')), inFolder.join(' '));
  const names = new ChangedNames();
  names.note('go', [], ['exitWidgets'], 'hooks/test/widget.go');
  names.note('java', [], ['Widget'], 'src/a/Widget.java');
  assert.deepEqual(nameChanges(names), [['go', ['exitWidgets'], ['hooks/test']], ['java', ['Widget'], null]]);
});
