import path from 'node:path';
import fs from 'node:fs';
import type { Logger } from './log';
import { openDatabase, type Db } from './store/db';
import { ReposStore } from './store/repos-store';
import { FilesStore } from './store/files-store';
import { A2aTasksStore } from './store/a2a-tasks-store';
import { Accounts, type AccountsConfig } from './accounts/accounts';
import type { History } from './accounts/history';
import { Indexer, DEFAULT_INDEXER_OPTIONS, type IndexerOptions } from './indexer/indexer';
import { IndexQueue } from './repos/index-queue';
import { Repositories } from './repos/repositories';
import { Files } from './files/files';

export interface EngineConfig {
  dataDir: string;
  log: Logger;
  /** Local folders callers may index through the API. */
  allowedRoots?: string[];
  githubToken?: string;
  indexer?: Partial<IndexerOptions>;
  /** Plans, costs, the owner's plan and balance, sign-up and mail settings (local defaults). */
  accounts?: AccountsConfig;
}

/**
 * The service graph every transport binds to. Nothing here knows about HTTP, LSP or A2A.
 */
export class Engine {
  readonly db: Db;
  readonly log: Logger;
  readonly dataDir: string;
  readonly reposStore: ReposStore;
  readonly filesStore: FilesStore;
  /** A2A tasks (the A2A transport's persistence). */
  readonly a2aTasks: A2aTasksStore;
  readonly accounts: Accounts;
  /** Query history and conversations: `history.record(...)`, or through `accounts.settle({ history })`. */
  readonly history: History;
  readonly indexer: Indexer;
  readonly queue: IndexQueue;
  readonly repos: Repositories;
  readonly files: Files;
  readonly startedAt = new Date();

  constructor(config: EngineConfig) {
    this.log = config.log;
    this.dataDir = path.resolve(config.dataDir);
    fs.mkdirSync(this.dataDir, { recursive: true });
    this.db = openDatabase(path.join(this.dataDir, 'loupe.db'), this.log);
    this.reposStore = new ReposStore(this.db);
    this.filesStore = new FilesStore(this.db);
    this.a2aTasks = new A2aTasksStore(this.db);
    this.accounts = new Accounts(this.db, config.accounts);
    this.history = this.accounts.history;
    const indexerOptions: IndexerOptions = {
      ...DEFAULT_INDEXER_OPTIONS,
      ...config.indexer,
      excludeDirs: [this.dataDir, ...(config.indexer?.excludeDirs ?? [])],
    };
    this.indexer = new Indexer(this.reposStore, this.filesStore, this.log, indexerOptions);
    this.queue = new IndexQueue(this.indexer, this.reposStore, this.log);
    this.files = new Files(this.filesStore);
    this.repos = new Repositories(this.reposStore, this.filesStore, this.queue, {
      dataDir: this.dataDir,
      allowedRoots: (config.allowedRoots ?? []).map((r) => fs.realpathSync(r)),
      githubToken: config.githubToken,
      walkOptions: indexerOptions,
    }, this.log);
  }

  async close(): Promise<void> {
    this.queue.pause();
    await this.indexer.close();
    this.db.close();
  }
}
