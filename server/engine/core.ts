import path from 'node:path';
import fs from 'node:fs';
import type { Logger } from './log';
import type { Db } from './store/db';
import { sqliteHealth, type DatabaseHealth } from './store/health';
import { indexReads, openSqliteStorage, type AsyncStorage, type IndexReads, type Storage } from './store/storage';
import { asyncAccountSide, sqliteAccountSide, type AccountSide } from './store/account-side';
import type { ReposStore } from './store/repos-store';
import type { FilesStore } from './store/files-store';
import type { A2aTasksStore } from './store/a2a-tasks-store';
import { Accounts, type AccountsConfig } from './accounts/accounts';
import type { History } from './accounts/history';
import { Auth } from './accounts/auth';
import { Indexer, DEFAULT_INDEXER_OPTIONS, type IndexerOptions } from './indexer/indexer';
import { IndexQueue } from './repos/index-queue';
import { FileChanges } from './repos/file-changes';
import { Repositories, type RepositoryQueue } from './repos/repositories';
import { RepoAccess } from './repos/access';
import { GithubTokens } from './accounts/github-tokens';
import { Files } from './files/files';
import { Research, researchAccounts } from './research/research';
import { ModelRegistry } from './research/model-registry';
import { OpenAICompatibleProvider, type OpenAICompatibleConfig } from './research/providers/openai-compatible';
import { Analysis } from './analysis/analysis';
import { FileDocs } from './docs/file-docs';
import { RegistryNarrator } from './docs/model-narrator';
import { VectorIndex, type VectorIndexOptions } from './embed/vector-index';
import type { EmbedderConfig } from './embed/embedder';
import { SearchService, type SearchOptions } from './search/search-service';
import { refuseDataDir, relationToDataDir } from './repos/data-dir-guard';
import { ownerKeyFile, writeOwnerKeyFile } from './accounts/owner-key-file';
import { Stats } from './accounts/stats';
import { CodeOps } from './research/code-ops';
import { RetrievalAssist, type RetrievalAssistConfig } from './research/retrieval-assist';
import { EditorFacts } from './editor/editor-facts';
import { Operations } from './operations';
import type { IndexEvents } from './team/index-events';

export interface EngineConfig {
  dataDir: string;
  log: Logger;
  /** Local folders callers may index through the API. */
  allowedRoots?: string[];
  githubToken?: string;
  /** GitHub REST API base for pull request lookups (default https://api.github.com; tests use a local server). */
  githubApiUrl?: string;
  indexer?: Partial<IndexerOptions>;
  /** Plans, costs, the owner's plan and balance, sign-up and mail settings (local defaults). */
  accounts?: AccountsConfig;
  /**
   * Where the account side lives (users, keys, ledger, history, codes and sessions, A2A tasks): by
   * default the data dir's SQLite (accounts.db); given an opened `AsyncStorage` (the team server's
   * PostgreSQL, `openPgStorage(url, log)`), its account stores, shared by every engine opened on the
   * same database. The index stays in the data dir's SQLite either way. The engine closes it.
   */
  accountStorage?: AsyncStorage;
  /**
   * The index as the request path reads it (a team server's PostgreSQL stores, openPgIndexStores);
   * default: this data dir's SQLite stores behind their async surface. The caller closes it.
   */
  indexReads?: IndexReads;
  /**
   * Where registrations queue their indexing (a team server's API node: graphile-worker jobs,
   * team/worker-queue.ts); default: this engine's own IndexQueue, which indexes locally.
   */
  repositoryQueue?: RepositoryQueue;
  /**
   * Changes to `indexReads` made by other processes (a team server's API node: team/notify.ts's
   * LISTEN connection): the import graph cache and the vector memory are dropped per repository.
   */
  indexEvents?: IndexEvents;
  /** Chat models for research besides the built-in one: an OpenAI-compatible server, and the default model id. */
  research?: { openai?: OpenAICompatibleConfig | null; defaultModel?: string; retrieval?: RetrievalAssistConfig | null };
  /** File docs: a language model (an id among the research models) that writes each doc's narrative; static only without it. */
  docs?: { model?: string | null };
  /** Embedding provider (default: the corpus model learned from the index), vector and grep tuning. */
  search?: { embedder?: EmbedderConfig; vectors?: Partial<VectorIndexOptions> } & Partial<SearchOptions>;
}

/**
 * The service graph: stores, queue, indexer, services, and the operations built on them. Nothing
 * here knows about HTTP, LSP or A2A. Only `engine.ts` (the public Engine, which exposes the
 * operations alone), tests and benchmarks construct it; a fence in `npm run lint` keeps it so.
 */
export class EngineCore {
  /** Every store, behind its interface (store/storage.ts); SQLite here. */
  readonly storage: Storage;
  /**
   * The index stores as the request path reads them, every call awaited (store/storage.ts
   * IndexReads): SQLite's here, PostgreSQL's on a team server.
   */
  readonly reads: IndexReads;
  readonly db: Db;
  readonly log: Logger;
  readonly dataDir: string;
  readonly reposStore: ReposStore;
  readonly filesStore: FilesStore;
  /** A2A tasks (the A2A transport's persistence). */
  readonly a2aTasks: A2aTasksStore;
  readonly accounts: Accounts;
  /** The account side's stores and transactions (store/account-side.ts): SQLite's, or `config.accountStorage`'s. */
  readonly accountSide: AccountSide;
  private readonly accountStorage: AsyncStorage | null;
  /** Query history and conversations: `history.record(...)`, or through `accounts.settle({ history })`. */
  readonly history: History;
  /** Sign-up, sign-in, one-time codes, sessions (the /v2/auth routes). */
  readonly auth: Auth;
  readonly indexer: Indexer;
  readonly queue: IndexQueue;
  readonly repos: Repositories;
  /** The access rule: who may read which repository (repos/access.ts). */
  readonly access: RepoAccess;
  /** GitHub tokens: the server's (the owner's) and the ones users link. */
  readonly github: GithubTokens;
  readonly files: Files;
  /** Streaming research answers and the chat models behind them (`research.models`). */
  readonly research: Research;
  /** Blast radius, blueprint, scope, map, review signals, coverage gaps. */
  readonly analysis: Analysis;
  /** Per-file documentation, generated in the background (a DerivedIndex). */
  readonly docs: FileDocs;
  /** Chunk vectors (a DerivedIndex) and the embedding provider behind them. */
  readonly vectors: VectorIndex;
  /** POST /v2/search without chat: hybrid semantic search, grep over code and over docs. */
  readonly search: SearchService;
  readonly startedAt = new Date();
  /** What transports call: every operation, by resource (see operations/index.ts). */
  readonly ops: Operations;
  private readonly fileChanges: FileChanges;
  private readonly maintenance: NodeJS.Timeout[] = [];

  constructor(config: EngineConfig) {
    this.log = config.log;
    this.dataDir = path.resolve(config.dataDir);
    fs.mkdirSync(this.dataDir, { recursive: true });
    // Checked before anything is opened: a refused --allow stops the start with nothing to clean up.
    const realDataDir = fs.realpathSync(this.dataDir);
    const roots = allowedRoots(config.allowedRoots ?? [], realDataDir, config.log);
    const storage = openSqliteStorage(this.dataDir, this.log);
    this.storage = storage;
    this.db = storage.db;
    this.reads = config.indexReads ?? indexReads(storage);
    this.reposStore = storage.repos;
    this.filesStore = storage.files;
    this.a2aTasks = storage.a2aTasks;
    this.accountStorage = config.accountStorage ?? null;
    this.accountSide = this.accountStorage ? asyncAccountSide(this.accountStorage) : sqliteAccountSide(storage);
    this.accounts = new Accounts(this.accountSide, config.accounts, this.log);
    this.history = this.accounts.history;
    // The owner's plaintext key file (the CLI's; a seeded key, LOUPE_API_KEY or the editor's, has
    // none) follows a regenerated key, so no start prints a dead one.
    this.accounts.onRegenerated((_userId, key, isOwner) => {
      if (isOwner && fs.existsSync(ownerKeyFile(this.dataDir))) writeOwnerKeyFile(this.dataDir, key);
    });
    this.auth = new Auth(this.accountSide, this.accounts, this.log, this.dataDir, config.accounts?.auth);
    const indexerOptions: IndexerOptions = {
      ...DEFAULT_INDEXER_OPTIONS,
      ...config.indexer,
      excludeDirs: [this.dataDir, realDataDir, ...(config.indexer?.excludeDirs ?? [])],
    };
    this.indexer = new Indexer(this.reposStore, this.filesStore, this.log, indexerOptions, this.db);
    this.queue = new IndexQueue(this.indexer, this.reposStore, this.log);
    this.fileChanges = new FileChanges(this.reposStore, this.filesStore, this.queue, this.indexer, this.log);
    this.files = new Files(this.reads.files);
    this.github = new GithubTokens(this.accountSide, this.dataDir, { serverToken: config.githubToken, apiUrl: config.githubApiUrl });
    // The access rule asks synchronously; with the accounts elsewhere (PostgreSQL) it reads the user
    // as this process last authenticated them (every request authenticates before it reads).
    const userOf = (userId: string) => (this.accountStorage ? this.accounts.seenUser(userId) : storage.accounts.user(userId));
    this.access = new RepoAccess(this.reads.repos, {
      isOwner: (userId) => userOf(userId)?.is_owner === 1,
      // An address counts for a share only once a code mailed to it was entered: anyone can sign up
      // with a password under an address that is not theirs.
      email: (userId) => {
        const user = userOf(userId);
        return user?.email_proven_at ? user.email : null;
      },
    }, config.accounts?.sharedFolders);
    this.repos = new Repositories(this.reads, { repos: this.reposStore, files: this.filesStore }, config.repositoryQueue ?? this.queue, {
      dataDir: realDataDir,
      allowedRoots: roots,
      access: this.access,
      github: this.github,
      walkOptions: indexerOptions,
      repoCap: (caller, count) => this.accounts.checkRepoCap(caller, count),
    }, this.log);
    const models = new ModelRegistry(this.log, config.research?.defaultModel);
    if (config.research?.openai) models.register(new OpenAICompatibleProvider(config.research.openai));
    this.research = new Research(this.reads.research, models, researchAccounts(this.accounts, this.history), this.log);
    // Off by default: a model helps retrieval only when one is named for it.
    if (config.research?.retrieval?.model) this.research.assist = new RetrievalAssist(models, this.reads.research, config.research.retrieval, this.log);
    const analysisStore = storage.analysis;
    this.analysis = new Analysis(this.reads.analysis, this.log, { githubApiUrl: config.githubApiUrl });
    // An index read from elsewhere (a team server's PostgreSQL) is derived there (the worker builds
    // vectors and docs); this process's own indexer does not touch it. A doc asked for before the
    // worker built it is built here, into that index.
    const remote = config.indexReads !== undefined;
    this.docs = remote
      ? new FileDocs(this.reads.analysis, this.reads.analysis, this.reads.files, this.analysis.ctx, this.log)
      : new FileDocs(analysisStore, this.reads.analysis, this.filesStore, this.analysis.ctx, this.log);
    if (config.docs?.model) this.docs.setNarrator(new RegistryNarrator(this.research.models, config.docs.model));
    if (!remote) this.indexer.addDerivedIndex(this.docs);
    const vectorsStore = storage.vectors;
    this.vectors = new VectorIndex(remote ? null : vectorsStore, this.log, config.search?.embedder, config.search?.vectors, this.reads.vectors);
    if (!remote) this.indexer.addDerivedIndex(this.vectors);
    const events = config.indexEvents;
    if (events) {
      this.analysis.ctx.graphs.trustWhile(() => events.live);
      this.vectors.keepInMemoryWhile(() => events.live);
      events.subscribe({
        changed: (repoId) => { this.analysis.ctx.graphs.forget(repoId); this.vectors.forgetRepository(repoId); },
        reset: () => { this.analysis.ctx.graphs.forgetAll(); this.vectors.forgetAll(); },
      });
    }
    this.search = new SearchService(this.reads.search, this.vectors, this.reads.repos, this.access, this.log, config.search);
    this.search.setDocSource({
      markdown: async (repoId, filePath, depth) => {
        const file = await this.reads.files.getByPath(repoId, filePath);
        if (!file) return undefined;
        const answer = await this.docs.get(repoId, file, depth);
        return answer?.state === 'ready' ? answer.markdown : null;
      },
    });
    for (const repo of this.repos.dropDataDirRepositories()) {
      this.log.warn(`forgot the repository ${repo.rootPath}: it is, lies inside or contains the data directory ${realDataDir}, which is never indexed`);
    }
    this.ops = new Operations({
      log: this.log, startedAt: this.startedAt, accounts: this.accounts, history: this.history, auth: this.auth,
      stats: new Stats(this.history.data, this.accounts, Date.now, storage.history), repos: this.repos, queue: this.queue, indexer: this.indexer, fileChanges: this.fileChanges,
      files: this.files, research: this.research, codeOps: new CodeOps(this.research.models, this.accounts), analysis: this.analysis,
      docs: this.docs, search: this.search, editorFacts: new EditorFacts(this.analysis), reposStore: this.reposStore,
      filesStore: this.filesStore, a2aTasks: this.accountSide.stores.a2aTasks, github: this.github,
      health: healthProbes(this.db, this.accountStorage),
    });
    // The accounts database stays bounded (ledger compaction, history retention): soon after the
    // start, off the start's own path, then every six hours.
    const maintain = () => void this.maintainAccounts();
    this.maintenance.push(setTimeout(maintain, MAINTENANCE_DELAY_MS).unref(), setInterval(maintain, MAINTENANCE_EVERY_MS).unref());
    // A configured provider other than the default loads (and fills anything missing) in the background.
    if (!remote && config.search?.embedder && config.search.embedder.kind !== 'corpus') void this.vectors.refreshAll();
  }

  /** Compacts the ledger and applies the history retention (Accounts.maintain); a failure is logged, never thrown. */
  async maintainAccounts(now?: number): Promise<void> {
    try {
      const done = await this.accounts.maintainAsync(now);
      if (done.ledgerRowsMerged || done.historyRowsDeleted) {
        this.log.info(`accounts: ${done.ledgerRowsMerged} ledger rows merged into daily totals, ${done.historyRowsDeleted} history rows past retention deleted`);
      }
    } catch (error) {
      this.log.warn(`accounts maintenance failed: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    for (const timer of this.maintenance) clearTimeout(timer);
    this.queue.pause();
    await this.docs.idle();
    await this.vectors.idle();
    await this.search.close();
    await this.indexer.close();
    this.auth.close();
    this.storage.close();
    await this.accountStorage?.close();
  }
}

/** The health route's readiness probes: the data dir's SQLite, and the team server's database when there is one. */
function healthProbes(db: Db, accountStorage: AsyncStorage | null): (() => Promise<DatabaseHealth>)[] {
  const probes = [async () => sqliteHealth(db)];
  if (accountStorage?.health) probes.push(() => accountStorage.health!());
  return probes;
}

const MAINTENANCE_DELAY_MS = 60_000;
const MAINTENANCE_EVERY_MS = 6 * 3_600_000;

/**
 * The folders API callers may index, as real paths. One that is or lies inside the data dir is
 * refused (the keys and accounts are there); one that contains it is kept with a warning: the data
 * dir itself is refused wherever it comes up, but the owner should know it sits in a shared folder.
 */
function allowedRoots(roots: string[], realDataDir: string, log: Logger): string[] {
  return roots.map((root) => {
    const real = fs.realpathSync(root);
    const relation = relationToDataDir(real, realDataDir);
    if (relation === 'is' || relation === 'inside') refuseDataDir(root, realDataDir, { field: 'folder', forOwner: true });
    if (relation === 'contains') {
      log.warn(`the data directory ${realDataDir} lies inside ${real}, a folder API callers may index; it is never indexed itself, but consider a --data-dir outside it`);
    }
    return real;
  });
}
