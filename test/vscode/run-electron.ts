/**
 * `npm run test:vscode`: the in-host suite in a downloaded VS Code (Electron), with @vscode/test-electron,
 * on a copy of the e2e-app fixture. It needs to download VS Code, so it runs on machines that can reach
 * VS Code's update servers; here (and in CI) the same suite runs in code-server (test/vscode/code-server.e2e.ts).
 */
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { copyFixture } from '../helpers/engine';

const REPO = path.join(__dirname, '..', '..');

void (async () => {
  const { buildSuite } = await import('./build');
  const extensionTestsPath = await buildSuite();
  const workspace = copyFixture('e2e-app');
  try {
    await runTests({
      version: process.env.LOUPE_VSCODE_VERSION ?? 'stable',
      extensionDevelopmentPath: REPO,
      extensionTestsPath,
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
    });
  } catch (error) {
    process.stderr.write(`in-host tests failed: ${(error as Error).message}\n`);
    process.exit(1);
  }
})();
