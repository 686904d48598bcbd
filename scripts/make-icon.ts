/**
 * `node --import tsx scripts/make-icon.ts`: renders media/icon.svg to the 128×128 media/icon.png the
 * Marketplace needs (it takes no SVG icon), in Debian's Chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser } from '../test/e2e/harness/workbench';

const media = path.join(__dirname, '..', 'media');
const svg = fs.readFileSync(path.join(media, 'icon.svg'), 'utf8');
void (async () => {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    await page.locator('svg').screenshot({ path: path.join(media, 'icon.png'), omitBackground: true });
  } finally {
    await browser.close();
  }
})();
