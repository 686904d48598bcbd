import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { createHttpApp } from '../server/host';

export interface BenchApp {
  engine: EngineCore;
  app: FastifyInstance;
  key: string;
  userId: string;
  /** Closes the app and the engine and removes the data dir. */
  close(): Promise<void>;
}

/** An engine on a fresh data dir that may index `dir`, its HTTP app (for inject) and the owner's key. */
export async function openBenchApp(dir: string, prefix: string): Promise<BenchApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [dir] });
  const key = newId();
  const { userId } = engine.accounts.ensureOwner(key);
  const app = await createHttpApp(engine);
  await app.ready();
  return {
    engine, app, key, userId,
    close: async () => {
      await app.close();
      await engine.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
