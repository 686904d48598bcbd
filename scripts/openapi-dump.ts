/**
 * Writes the sidecar's /openapi.json to a file (for `npm run lint:openapi`, which runs Redocly on it).
 * The document is generated from the route schemas by a real app on a throwaway data directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../server/engine/engine';
import { silentLogger } from '../server/engine/log';
import { createHttpApp } from '../server/host';

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? '.tmp/openapi.json');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-openapi-'));
  const engine = new Engine({ dataDir, log: silentLogger });
  try {
    const app = await createHttpApp(engine, { publicUrl: 'http://127.0.0.1:7341' });
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`);
    await app.close();
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
