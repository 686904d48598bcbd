/**
 * The engine's public surface: one object per resource, each operation `(caller, request, context?)
 * → Promise<answer>` on the API's wire types. Plan gates, charging and history (through settle),
 * which repositories a caller may read, and the file-change policy live here or below, never in a
 * transport. Stores, the queue and the indexer stay inside the engine.
 */
import type { EngineParts } from './parts';
import { RepoOperations } from './repos';
import { FileOperations } from './files';
import { SearchOperations } from './search';
import { AnalysisOperations } from './analysis';
import { HistoryOperations } from './history';
import { ModelOperations } from './models';
import { KeyOperations } from './keys';
import { AuthOperations } from './auth';
import { StatsOperations } from './stats';
import { LegacyOperations } from './legacy';
import { EditorOperations } from './editor';
import { IndexingOperations } from './indexing';
import { A2aTaskOperations } from './a2a-tasks';
import { OwnerOperations } from './owner';
import { HealthOperations } from './health';

export type { Answer, AnswerMeta, CallContext, Caller } from './call';
export type { HealthAnswer, HealthCheck, ReadyAnswer } from './health';
export { refundAnswer } from './metering';
// What transports may know of the engine besides operations: the shapes these hand out or take.
export type { ResearchRun } from './search';
export type { Credentials } from './auth';
export type { FileLensFacts, FileImpact, SymbolUse } from '../editor/editor-facts';
export type { IndexRunProgress, IndexRunResult } from '../indexer/indexer';
export type { ChangeOutcome } from '../repos/file-changes';
export type { EditorModelBridge, EditorModel } from '../research/providers/editor-models';
export { CODE_OP_COST, CODE_OPS, type CodeOp } from '../research/code-ops';
// Small tools the transports share with the engine: the key format, and the rate limiter A2A applies to keyless callers.
export { isUuid } from '../util/ids';
export { RateLimiter, type RateRule } from '../accounts/rate-limit';

export class Operations {
  readonly repos: RepoOperations;
  readonly files: FileOperations;
  readonly search: SearchOperations;
  readonly analysis: AnalysisOperations;
  readonly history: HistoryOperations;
  readonly models: ModelOperations;
  readonly keys: KeyOperations;
  readonly auth: AuthOperations;
  readonly stats: StatsOperations;
  /** Legacy /v1/fundi adapters over the operations above. */
  readonly legacy: LegacyOperations;
  /** The editor's lenses and hovers (the language server, for the owner). */
  readonly editor: EditorOperations;
  /** The host's folders, the background queue and file changes (CLI and language server). */
  readonly indexing: IndexingOperations;
  /** A2A's task persistence. */
  readonly a2aTasks: A2aTaskOperations;
  /** The machine's owner and their key (the host's). */
  readonly owner: OwnerOperations;
  /** Liveness and readiness for load balancers (no caller, no credits). */
  readonly health: HealthOperations;

  constructor(parts: EngineParts) {
    this.repos = new RepoOperations(parts);
    this.files = new FileOperations(parts);
    this.search = new SearchOperations(parts);
    this.analysis = new AnalysisOperations(parts);
    this.history = new HistoryOperations(parts);
    this.models = new ModelOperations(parts);
    this.keys = new KeyOperations(parts);
    this.auth = new AuthOperations(parts);
    this.stats = new StatsOperations(parts);
    this.legacy = new LegacyOperations(parts, this.search, this.models);
    this.editor = new EditorOperations(parts);
    this.indexing = new IndexingOperations(parts);
    this.a2aTasks = new A2aTaskOperations(parts);
    this.owner = new OwnerOperations(parts);
    this.health = new HealthOperations(parts.health, parts.log);
  }
}
