/**
 * The extension in a real VS Code (code-server) driven through Chromium: first on the e2e-app
 * fixture, then on a real project (hono's npm package) in a second window of the same code-server.
 * One code-server and one browser serve every scenario; each scenario saves screenshots under
 * test-output/e2e/. Timings go to test-output/e2e/timings.json (docs/benchmarks.md quotes them).
 */
import { before, after } from 'node:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture } from '../helpers/engine';
import { ensureE2eTools } from './harness/install';
import { startCodeServer } from './harness/code-server';
import { launchBrowser, Workbench, SCREENSHOTS } from './harness/workbench';
import { extensionUnderTest } from './harness/extension-under-test';
import { e2e } from './harness/suite';
import { fixtureScenarios } from './scenarios/fixture';
import { viewScenarios } from './scenarios/views';
import { changeScenarios } from './scenarios/change-radius';
import { honoScenarios } from './scenarios/hono';

/** A git repository with one commit: the radius of my change compares against it. */
export function commitAll(folder: string): void {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: folder, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
}

let workspace: string;

before(async () => {
  ensureE2eTools();
  workspace = copyFixture('e2e-app');
  commitAll(workspace);
  e2e.extension = await extensionUnderTest();
  e2e.server = await startCodeServer({
    workspace, name: 'scenarios', ...e2e.extension,
    // Port 0: never collide with a Loupe already serving 7341 on this machine.
    settings: { 'loupe.sidecar.port': 0 },
  });
  e2e.browser = await launchBrowser();
  e2e.wb = await Workbench.open(e2e.browser, e2e.server.url, workspace);
});

/** Screenshots of this run that illustrate the Marketplace page (docs/marketplace/README.md). */
const MARKETPLACE_IMAGES: Record<string, string> = {
  '02c-dependents-view.png': 'codelens.png',
  '26-hono-dependents.png': 'dependents.png',
  '25-hono-hover-name.png': 'hover.png',
  '05-research.png': 'research.png',
  '27-hono-change-radius.png': 'change-radius.png',
};

after(async () => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  fs.writeFileSync(path.join(SCREENSHOTS, 'timings.json'), `${JSON.stringify(e2e.timings, null, 2)}\n`);
  // `LOUPE_E2E_MARKETPLACE=1 npm run test:e2e` refreshes the Marketplace page's images from this run.
  if (process.env.LOUPE_E2E_MARKETPLACE === '1') {
    const images = path.join(__dirname, '..', '..', 'docs', 'marketplace', 'images');
    for (const [shot, name] of Object.entries(MARKETPLACE_IMAGES)) {
      if (fs.existsSync(path.join(SCREENSHOTS, shot))) fs.copyFileSync(path.join(SCREENSHOTS, shot), path.join(images, name));
    }
  }
  await e2e.browser?.close();
  await e2e.server?.stop();
});

fixtureScenarios();
viewScenarios(() => workspace);
changeScenarios(() => workspace);
honoScenarios(commitAll);
