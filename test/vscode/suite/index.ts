/**
 * The in-host suite's entry (`--extensionTestsPath`): VS Code calls `run()` inside the extension
 * host, where `vscode` is the real API. Mocha runs the tests; with LOUPE_VSCODE_TEST_RESULTS set the
 * results are also written there as JSON, for a runner that cannot read the host's output (code-server).
 */
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false, reporter: 'spec' });
  for (const file of fs.readdirSync(__dirname).filter((f) => f.endsWith('.itest.js')).sort()) mocha.addFile(path.join(__dirname, file));
  const results: { title: string; state: string; error?: string; ms?: number }[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.LOUPE_VSCODE_TEST_RESULTS;
      if (out) fs.writeFileSync(out, JSON.stringify({ failures, results }, null, 2));
      if (failures) reject(new Error(`${failures} of ${results.length} in-host tests failed`));
      else resolve();
    });
    runner.on('pass', (t) => results.push({ title: t.fullTitle(), state: 'passed', ms: t.duration }));
    runner.on('fail', (t, error: Error) => results.push({ title: t.fullTitle(), state: 'failed', error: `${error.message}\n${error.stack ?? ''}`.slice(0, 4000) }));
  });
}
