import type { Logger } from './log';
import type { Operations } from './operations';
import { EngineCore, type EngineConfig } from './core';

export type { EngineConfig };

/**
 * The engine as everything outside it sees it: its operations, its logger and data directory, and
 * close(). Stores, the queue, the indexer and the services stay inside (core.ts).
 */
export class Engine {
  readonly ops: Operations;
  readonly log: Logger;
  readonly dataDir: string;
  private readonly core: EngineCore;

  constructor(config: EngineConfig) {
    this.core = new EngineCore(config);
    this.ops = this.core.ops;
    this.log = this.core.log;
    this.dataDir = this.core.dataDir;
  }

  close(): Promise<void> {
    return this.core.close();
  }
}
