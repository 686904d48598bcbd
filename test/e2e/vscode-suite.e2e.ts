/**
 * The in-host suite (test/vscode/suite, which `npm run test:vscode` runs with @vscode/test-electron
 * where VS Code can be downloaded) run here inside code-server: the repository as
 * extensionDevelopmentPath, the bundled suite as extensionTestsPath. code-server's command line does not
 * take those; VS Code for the web takes them from the window's URL (`payload`, as VS Code's own web
 * test runner passes them), as remote URIs. The extension host starts when that window connects; the
 * suite writes its results to a file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, tempDir } from '../helpers/engine';
import { ensureE2eTools } from './harness/install';
import { findFiles, startCodeServer, type CodeServer } from './harness/code-server';
import { launchBrowser, Workbench } from './harness/workbench';
import { REPO } from './harness/extension-under-test';

test('the in-host suite passes inside code-server (extensionDevelopmentPath + extensionTestsPath)', { timeout: 420_000 }, async () => {
  ensureE2eTools();
  assert.ok(fs.existsSync(path.join(REPO, 'dist', 'client.js')), 'run `npm run build` first');
  const { buildSuite } = await import('../vscode/build');
  const suite = await buildSuite();
  const workspace = copyFixture('e2e-app');
  const results = path.join(tempDir('loupe-vscode-tests-'), 'results.json');
  let server: CodeServer | undefined;
  const browser = await launchBrowser();
  try {
    server = await startCodeServer({
      workspace, name: 'in-host-suite', settings: { 'loupe.sidecar.port': 0 },
      env: { LOUPE_VSCODE_TEST_RESULTS: results },
    });
    const remote = (p: string) => `vscode-remote://127.0.0.1:${server!.port}${p}`;
    const payload = JSON.stringify([['extensionDevelopmentPath', remote(REPO)], ['extensionTestsPath', remote(suite)]]);
    await Workbench.open(browser, server.url, workspace, `&payload=${encodeURIComponent(payload)}`);
    const deadline = Date.now() + 240_000;
    while (!fs.existsSync(results)) {
      if (Date.now() > deadline) throw new Error(`the in-host suite wrote no results:\n${server.output.join('').slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const report = JSON.parse(fs.readFileSync(results, 'utf8')) as { failures: number; results: { title: string; state: string; error?: string }[] };
    const failed = report.results.filter((r) => r.state !== 'passed');
    const log = () => findFiles(server!.userDataDir, /Loupe\.log$/).map((f) => fs.readFileSync(f, 'utf8')).join('\n').slice(-6000);
    assert.deepEqual(failed, [], `every in-host test passed; the extension's log:\n${log()}`);
    assert.ok(report.results.length >= 5, `the suite ran: ${report.results.map((r) => r.title).join(', ')}`);
  } finally {
    await browser.close();
    await server?.stop();
  }
});
