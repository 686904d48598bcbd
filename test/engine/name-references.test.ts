import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from '../helpers/engine';
import { copyOf, debianPackage, npmPackage, within } from '../helpers/real-code';

/**
 * Edges found by name lookup (Java same-package types, C# namespace types, Ruby constants under Zeitwerk, PHP classes of the file's
 * namespace; ARCHITECTURE "What an edge is") follow edits without a full re-index: a file added, removed or
 * re-declared changes the edges of files that were not touched. Real projects (Debian, npm), edited the way
 * a user would, each through the path the server takes (an editor save: updatePaths; a restart or a
 * branch switch: indexRepository).
 */

async function directDependents(t: TestApp, repoId: string, file: string): Promise<string[]> {
  const res = await t.call('POST', `/v2/repos/${repoId}/radius`, { file, include: ['dependents'], limit: 10000 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.data.targets[0].dependents as { file_path: string; depth: number }[]).filter((d) => d.depth === 1).map((d) => d.file_path).sort();
}

function edit(file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${file} no longer holds ${JSON.stringify(from)}`);
  fs.writeFileSync(file, text.replace(from, to));
}

test('PHP (symfony/console): a class used before its file exists gains its dependent when the file is added, and loses it when removed', async () => {
  const root = copyOf(path.join(debianPackage('php-symfony-console', '5.4.53+dfsg-0+deb12u1'), 'usr/share/php/Symfony/Component/Console'), 'loupe-php-');
  fs.rmSync(path.join(root, 'autoload.php'));
  fs.writeFileSync(path.join(root, 'composer.json'), JSON.stringify({ name: 'symfony/console', autoload: { 'psr-4': { 'Symfony\\Component\\Console\\': '' } } }));
  const t = await createTestApp();
  try {
    const repo = t.engine.repos.registerLocalFolder(t.ownerId, root);
    await t.engine.queue.idle();
    const record = t.engine.reposStore.get(repo.id)!;
    // An edit that adds a reference to an existing class of the same namespace (no `use`).
    assert.ok(!(await directDependents(t, repo.id, 'Cursor.php')).includes('Color.php'));
    edit(path.join(root, 'Color.php'), 'final class Color\n{', 'final class Color\n{\n    private function cursor(): Cursor { return new Cursor(); }');
    await t.engine.indexer.updatePaths(record, ['Color.php']);
    assert.ok((await directDependents(t, repo.id, 'Cursor.php')).includes('Color.php'));

    // Terminal.php names Widget, which does not exist yet; then Widget.php is saved.
    edit(path.join(root, 'Terminal.php'), 'class Terminal\n{', 'class Terminal\n{\n    private function widget() { return new Widget(); }');
    await t.engine.indexer.updatePaths(record, ['Terminal.php']);
    fs.writeFileSync(path.join(root, 'Widget.php'), '<?php\n\nnamespace Symfony\\Component\\Console;\n\nclass Widget\n{\n}\n');
    await t.engine.indexer.updatePaths(record, ['Widget.php']);
    assert.deepEqual(await directDependents(t, repo.id, 'Widget.php'), ['Terminal.php']);
    const dependents = await t.call('POST', `/v2/repos/${repo.id}/radius`, { file: 'Widget.php' });
    assert.ok(dependents.body.data.summary.total_dependents > 1, 'what depends on Terminal.php depends on Widget.php too');

    fs.rmSync(path.join(root, 'Widget.php'));
    await t.engine.indexer.updatePaths(record, ['Widget.php']);
    const terminal = t.engine.filesStore.getByPath(repo.id, 'Terminal.php')!;
    assert.ok(!t.engine.filesStore.imports(terminal.id).some((i) => i.specifier.endsWith('\\Widget')), 'no edge is left to the removed class');
  } finally {
    await t.close();
  }
});

test('C# (react-native-windows): a type declared by editing another file of the namespace becomes an edge of the files using it', async () => {
  const root = copyOf(path.join(npmPackage('react-native-windows@0.76.9'), 'Microsoft.ReactNative.Managed.CodeGen'), 'loupe-cs-');
  const t = await createTestApp();
  try {
    const repo = t.engine.repos.registerLocalFolder(t.ownerId, root);
    await t.engine.queue.idle();
    const record = t.engine.reposStore.get(repo.id)!;
    edit(path.join(root, 'App.cs'), 'private readonly CancellationToken m_cancellationToken;', 'private readonly CancellationToken m_cancellationToken;\n        private ReportSink m_sink;');
    await t.engine.indexer.updatePaths(record, ['App.cs']);
    assert.ok(!(await directDependents(t, repo.id, 'DiagnosticDescriptors.cs')).includes('App.cs'));
    // The type appears in a file App.cs does not otherwise use: no file is added, a declaration is.
    edit(path.join(root, 'DiagnosticDescriptors.cs'), '  internal class DiagnosticDescriptors', '  internal class ReportSink { }\n\n  internal class DiagnosticDescriptors');
    await t.engine.indexer.updatePaths(record, ['DiagnosticDescriptors.cs']);
    assert.ok((await directDependents(t, repo.id, 'DiagnosticDescriptors.cs')).includes('App.cs'));
    edit(path.join(root, 'DiagnosticDescriptors.cs'), '  internal class ReportSink { }\n\n', '');
    await t.engine.indexer.updatePaths(record, ['DiagnosticDescriptors.cs']);
    assert.ok(!(await directDependents(t, repo.id, 'DiagnosticDescriptors.cs')).includes('App.cs'));
  } finally {
    await t.close();
  }
});

test('Java (bazel buildjar): a same-package class added while the server was down is an edge after the next index run', async () => {
  const root = copyOf(path.join(debianPackage('bazel-bootstrap-source', '4.2.3+ds-9'), 'usr/src/bazel-bootstrap/src/java_tools/buildjar'), 'loupe-java-');
  const pkg = 'java/com/google/devtools/build/buildjar';
  const t = await createTestApp();
  try {
    const repo = t.engine.repos.registerLocalFolder(t.ownerId, root);
    await t.engine.queue.idle();
    const record = t.engine.reposStore.get(repo.id)!;
    edit(path.join(root, pkg, 'VanillaJavaBuilder.java'), 'public class VanillaJavaBuilder implements Closeable {', 'public class VanillaJavaBuilder implements Closeable {\n  private Widget widget;');
    await t.engine.indexer.updatePaths(record, [`${pkg}/VanillaJavaBuilder.java`]);
    // Added on disk (a pull, a branch switch): the run parses the new file only.
    fs.writeFileSync(path.join(root, pkg, 'Widget.java'), 'package com.google.devtools.build.buildjar;\n\nclass Widget {}\n');
    const run = await t.engine.indexer.indexRepository(record);
    assert.deepEqual({ added: run.added, changed: run.changed }, { added: 1, changed: 0 });
    assert.deepEqual(await directDependents(t, repo.id, `${pkg}/Widget.java`), [`${pkg}/VanillaJavaBuilder.java`]);
  } finally {
    await t.close();
  }
});

test('Ruby (nanoc-core, Zeitwerk): a constant used before its file exists gains its dependent when the file is saved', async () => {
  const root = copyOf(within(debianPackage('ruby-nanoc-core', '4.12.14-3'), 'usr/share/rubygems-integration/all/gems/nanoc-core-*'), 'loupe-rb-');
  const t = await createTestApp();
  try {
    const repo = t.engine.repos.registerLocalFolder(t.ownerId, root);
    await t.engine.queue.idle();
    const record = t.engine.reposStore.get(repo.id)!;
    edit(path.join(root, 'lib/nanoc/core/basic_item_rep_view.rb'), '      def item_view_class\n', '      def status_widget\n        StatusWidget.new\n      end\n\n      def item_view_class\n');
    await t.engine.indexer.updatePaths(record, ['lib/nanoc/core/basic_item_rep_view.rb']);
    fs.writeFileSync(path.join(root, 'lib/nanoc/core/status_widget.rb'), '# frozen_string_literal: true\n\nmodule Nanoc\n  module Core\n    class StatusWidget\n    end\n  end\nend\n');
    await t.engine.indexer.updatePaths(record, ['lib/nanoc/core/status_widget.rb']);
    assert.deepEqual(await directDependents(t, repo.id, 'lib/nanoc/core/status_widget.rb'), ['lib/nanoc/core/basic_item_rep_view.rb']);
  } finally {
    await t.close();
  }
});
