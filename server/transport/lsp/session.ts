import { EventEmitter } from 'node:events';
import type { Caller, IndexRunProgress, Operations } from '../../engine/operations';
import type { Logger } from '../../engine/log';
import type { IndexPhase, LoupeInitOptions, LoupeStatus, RepoStatus } from '../../../protocol/lsp';
import type { LoupeSettings } from '../../../protocol/settings';
import { WorkspaceRepos, uriToPath } from './workspace-repos';
import { StartupTrace } from './startup-trace';

/**
 * What the language server needs from the process hosting it: the engine, the owner, and the HTTP
 * sidecar. `server/host.ts` implements it and `server/main.ts` hands it in, so no arrow runs from
 * this transport up to the composition root.
 */
export interface LspHost {
  readonly ops: Operations;
  /** `key` is '' when initialize came without it (see LoupeInitOptions.ownerKey) until `adoptOwnerKey`. */
  readonly owner: { userId: string; key: string };
  /** The owner's key arrived after initialize: it becomes one of the owner's active keys. */
  adoptOwnerKey(key: string): Promise<void>;
  /** Serves HTTP and A2A; null when the sidecar is turned off; rejects with EADDRINUSE on a taken port. */
  listen(): Promise<{ url: string } | null>;
  close(): Promise<void>;
}

/** Builds the host from the client's initialization options (main.ts maps them to host settings). */
export type OpenHost = (options: LoupeInitOptions, log: Logger) => Promise<LspHost>;

export interface SessionEvents {
  /** The import graph or symbols of a repository changed (an index run or an edit landed). */
  graphChanged: [repoId: string];
  status: [LoupeStatus];
}

/**
 * Everything one language-server process holds: the engine (the same one the HTTP sidecar serves),
 * the workspace's repositories and their live indexing state. Handlers read from here.
 */
export class Session extends EventEmitter<SessionEvents> {
  /** The engine's operations: everything this server does goes through them, as HTTP's does. */
  readonly ops: Operations;
  readonly workspace: WorkspaceRepos;
  readonly ownerId: string;
  /** The owner's key; '' until it arrives when initialize came without it. */
  private ownerKey: string;
  private keyArrived: () => void = () => {};
  /** Resolves once the owner's key is known (at once when initialize carried it). */
  private readonly ownerKeyKnown: Promise<void>;
  settings: LoupeSettings;
  sidecar: { url: string } | null = null;
  sidecarError: string | null = null;
  private readonly live = new Map<string, { phase: IndexPhase; done: number; total: number }>();
  private firstIndex = false;
  private statusTimer: NodeJS.Timeout | null = null;
  private startupTimer: NodeJS.Timeout | null = null;
  private lensAnswered!: () => void;
  /** Resolves when the first CodeLens with something in it has been answered. */
  readonly firstLens = new Promise<void>((resolve) => { this.lensAnswered = resolve; });

  constructor(
    private readonly host: LspHost, options: LoupeInitOptions, readonly log: Logger,
    /** The start-up's steps in the log (first lens, first index run, sidecar). */
    readonly trace = new StartupTrace(log),
  ) {
    super();
    this.settings = options.settings;
    this.ops = host.ops;
    this.ownerId = host.owner.userId;
    this.ownerKey = host.owner.key;
    this.ownerKeyKnown = this.ownerKey ? Promise.resolve() : new Promise((resolve) => { this.keyArrived = resolve; });
    this.workspace = new WorkspaceRepos(this.ops);
    this.ops.indexing.on('progress', (p) => {
      if (p.phase === 'scanning') trace.mark('first index run started');
      this.onProgress(p);
    });
    this.ops.indexing.on('finished', ({ repoId }) => {
      trace.mark('first index run finished');
      this.live.set(repoId, { phase: 'ready', done: 0, total: 0 });
      this.emit('graphChanged', repoId);
      this.statusChanged(true);
    });
    this.ops.indexing.on('failed', ({ repoId }) => {
      this.live.set(repoId, { phase: 'failed', done: 0, total: 0 });
      this.statusChanged(true);
    });
  }

  /** A CodeLens request was answered with lenses (the first one settles `firstLens`). */
  lensesServed(detail: string): void {
    this.trace.mark('first lens answered', detail);
    this.lensAnswered();
  }

  /**
   * Settles when the first lenses are answered, or after `deadlineMs` (no file open, or a cold start
   * whose lenses wait for the index): what is not needed for them (the HTTP sidecar, TypeScript on the
   * main thread, a warm start's catch-up run) waits for it, so it does not compete on a busy machine.
   */
  startupSettled(deadlineMs: number, longer?: { while: () => boolean; capMs: number }): Promise<void> {
    const started = Date.now();
    const deadline = new Promise<void>((resolve) => {
      // While `longer.while()` holds (a document is open, so VS Code will ask for its lenses: seconds after
      // initialize while the extension host still activates the others), the wait goes on up to capMs.
      const fire = () => {
        if (longer?.while() && Date.now() - started < longer.capMs) {
          this.startupTimer = setTimeout(fire, 250);
          this.startupTimer.unref();
        } else resolve();
      };
      this.startupTimer = setTimeout(fire, deadlineMs);
      this.startupTimer.unref();
    });
    return Promise.race([this.firstLens, deadline]).finally(() => {
      if (this.startupTimer) clearTimeout(this.startupTimer);
      this.startupTimer = null;
    });
  }

  /**
   * The workspace's folders at start. On a warm start (every folder indexed before) the lenses are
   * answered from the persisted index first: the catch-up runs (walk, size/mtime diff, parse workers)
   * wait until `settled`.
   */
  openWorkspace(uris: string[], settled: Promise<void>): void {
    const warm = uris.every((uri) => {
      const folder = uriToPath(uri);
      return !folder || this.ops.indexing.isIndexed(folder);
    });
    if (warm && uris.length) this.ops.indexing.holdRuns(settled);
    this.openFolders(uris);
  }

  /** Registers each workspace folder as a repository; a folder indexed before only catches up. */
  openFolders(uris: string[]): void {
    for (const uri of uris) {
      const folder = uriToPath(uri);
      if (!folder) continue;
      try {
        if (!this.ops.indexing.isIndexed(folder)) this.firstIndex = true;
        const repo = this.ops.indexing.registerFolder(this.ownerId, folder);
        this.workspace.add(folder, repo.id);
        this.live.set(repo.id, { phase: 'queued', done: repo.filesDone, total: repo.filesTotal });
      } catch (error) {
        this.log.error(`cannot index ${folder}:`, error as Error);
      }
    }
    this.statusChanged(true);
  }

  closeFolders(uris: string[]): void {
    for (const uri of uris) {
      const folder = uriToPath(uri);
      const id = folder ? this.workspace.remove(folder) : undefined;
      if (id) this.live.delete(id);
    }
    this.statusChanged(true);
  }

  async startSidecar(): Promise<void> {
    try {
      this.sidecar = await this.host.listen();
      this.sidecarError = null;
      if (this.sidecar) this.log.info(`Loupe API: ${this.sidecar.url} (docs at ${this.sidecar.url}/docs)`);
      this.trace.mark('sidecar listening');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another window (or the CLI) may already serve this port from the same index: say so and go on.
      this.sidecarError = code === 'EADDRINUSE'
        ? `port ${this.settings.sidecar.port} is in use (another Loupe window or program); change loupe.sidecar.port`
        : (error as Error).message;
      this.log.warn(`HTTP sidecar not started: ${this.sidecarError}`);
    }
    this.statusChanged(true);
  }

  /**
   * The owner's key, sent by the client after initialize (`loupe/ownerKey`) when reading it from the
   * editor's SecretStorage would have held up the first lenses. Only what acts as the owner waits for it
   * (`caller()`: the panel's search, research, models and history).
   */
  async adoptOwnerKey(key: string): Promise<void> {
    if (key.toLowerCase() === this.ownerKey) return;
    await this.host.adoptOwnerKey(key);
    this.ownerKey = this.host.owner.key;
    this.trace.mark('owner key adopted');
    this.keyArrived();
  }

  /**
   * The owner as an operation's caller (their plan and key as they are now): the panel's searches
   * and research are charged and recorded per the owner's plan, as the API's are.
   */
  async caller(): Promise<Caller> {
    await this.ownerKeyKnown;
    return this.ops.auth.caller({ apiKey: this.ownerKey });
  }

  pause(): void {
    this.ops.indexing.pause();
    this.statusChanged(true);
  }

  resume(): void {
    this.ops.indexing.resume();
    this.statusChanged(true);
  }

  reindex(): void {
    this.ops.indexing.reindex(this.workspace.ids());
    this.statusChanged(true);
  }

  status(): LoupeStatus {
    const paused = this.ops.indexing.paused;
    const repos: RepoStatus[] = this.workspace.repos().map((repo) => {
      const live = this.live.get(repo.id);
      let phase: IndexPhase = live?.phase ?? (repo.state === 'ready' ? 'ready' : repo.state === 'failed' ? 'failed' : 'queued');
      if (paused && phase !== 'ready' && phase !== 'failed') phase = 'paused';
      return {
        repoId: repo.id, name: repo.name, rootPath: repo.rootPath, phase,
        filesDone: live && live.total ? live.done : repo.filesDone,
        filesTotal: live && live.total ? live.total : repo.filesTotal,
        error: repo.error,
      };
    });
    const busy = repos.some((r) => r.phase !== 'ready' && r.phase !== 'failed');
    return {
      repos, paused, sidecarUrl: this.sidecar?.url ?? null, sidecarError: this.sidecarError,
      firstIndex: this.firstIndex && busy,
    };
  }

  private onProgress(p: IndexRunProgress): void {
    const phase: IndexPhase = p.phase === 'done' ? 'ready' : p.phase;
    this.live.set(p.repoId, { phase, done: p.done, total: p.total });
    this.statusChanged(p.phase === 'done');
  }

  /** Coalesces progress into at most four status messages a second; state changes go out at once. */
  statusChanged(now = false): void {
    if (now) {
      if (this.statusTimer) clearTimeout(this.statusTimer);
      this.statusTimer = null;
      this.emit('status', this.status());
      return;
    }
    if (this.statusTimer) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = null;
      this.emit('status', this.status());
    }, 250);
  }

  async close(): Promise<void> {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    if (this.startupTimer) clearTimeout(this.startupTimer);
    await this.host.close();
  }
}
