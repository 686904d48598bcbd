import type { Logger } from '../log';
import type { Accounts } from '../accounts/accounts';
import type { History } from '../accounts/history';
import type { Auth } from '../accounts/auth';
import type { Stats } from '../accounts/stats';
import type { Repositories } from '../repos/repositories';
import type { IndexQueue } from '../repos/index-queue';
import type { FileChanges } from '../repos/file-changes';
import type { Files } from '../files/files';
import type { Research } from '../research/research';
import type { CodeOps } from '../research/code-ops';
import type { Analysis } from '../analysis/analysis';
import type { FileDocs } from '../docs/file-docs';
import type { SearchService } from '../search/search-service';
import type { EditorFacts } from '../editor/editor-facts';
import type { ReposStore } from '../store/repos-store';
import type { FilesStore } from '../store/files-store';
import type { A2aTasksStore } from '../store/a2a-tasks-store';
import type { Either } from '../store/account-side';
import type { GithubTokens } from '../accounts/github-tokens';
import type { DatabaseHealth } from '../store/health';

/** The engine's services and stores the operations are built on (nothing outside the engine sees them). */
export interface EngineParts {
  log: Logger;
  startedAt: Date;
  accounts: Accounts;
  history: History;
  auth: Auth;
  stats: Stats;
  repos: Repositories;
  queue: IndexQueue;
  /** The local indexer's writer thread, started ahead of a run (the CLI's catch-up). */
  indexer: { warm(): void };
  fileChanges: FileChanges;
  files: Files;
  research: Research;
  codeOps: CodeOps;
  analysis: Analysis;
  docs: FileDocs;
  search: SearchService;
  editorFacts: EditorFacts;
  reposStore: ReposStore;
  filesStore: FilesStore;
  /** The account side's A2A tasks (SQLite or PostgreSQL). */
  a2aTasks: Either<A2aTasksStore>;
  github: GithubTokens;
  /** Readiness probes of the databases this engine serves from (store/health.ts). */
  health: (() => Promise<DatabaseHealth>)[];
}
