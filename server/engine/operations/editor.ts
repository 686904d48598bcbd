import type { FileRecord, ParsedImport, ParsedSymbol, RepoRecord } from '../types';
import type { FileLensFacts, FileImpact, SymbolUse } from '../editor/editor-facts';
import type { EditorModelBridge } from '../research/providers/editor-models';
import type { EngineParts } from './parts';
import type { DocDepth } from '../docs/depth';
import type { BlueprintOptions, BlueprintResult } from '../analysis/blueprint';
import type { IndexRunProgress, IndexRunResult } from '../indexer/indexer';
import { isTestPath } from '../analysis/entry-points';
import { detectLanguageOf } from '../indexer/languages';
import { tokenAt, type Token } from '../editor/token-at';
import { changeRadius, type ChangeBase, type ChangeRadius } from '../editor/change-radius';

/** How long a hover waits for a file's docs before it says they are processing. */
const DOC_WAIT_MS = 150;

/**
 * What the editor shows on every file, for the machine's owner in their workspace folders (the
 * language server resolves URIs to those repositories): lens facts, blast radius counts, who uses an
 * export, hover docs and symbols. Free, unrecorded, and cached per graph generation: a lens costs a
 * map lookup while nothing changes.
 */
export class EditorOperations {
  constructor(private readonly e: EngineParts) {}

  lensFacts(repo: RepoRecord, relPath: string): Promise<FileLensFacts | null> {
    return this.e.editorFacts.lensFacts(repo, relPath);
  }

  /** Lens facts answered incomplete (`complete: false`) were completed in the background: ask again. */
  onLensFactsCompleted(listener: (repoId: string) => void): void {
    this.e.editorFacts.onCompleted(listener);
  }

  impact(repo: RepoRecord, relPath: string): Promise<FileImpact | null> {
    return this.e.editorFacts.impact(repo, relPath);
  }

  symbolUses(repo: RepoRecord, relPath: string, name: string): Promise<SymbolUse[]> {
    return this.e.editorFacts.symbolUses(repo, relPath, name);
  }

  file(repo: RepoRecord, relPath: string): FileRecord | undefined {
    return this.e.filesStore.getByPath(repo.id, relPath);
  }

  imports(file: FileRecord): ParsedImport[] {
    return this.e.filesStore.imports(file.id);
  }

  symbols(file: FileRecord): ParsedSymbol[] {
    return this.e.filesStore.symbols(file.id);
  }

  /**
   * A file's documentation at summary depth, for hover. `processing` while the docs index has not
   * written it yet (it is written in the background; a short wait usually covers a first hover);
   * the file's own leading comment is shown meanwhile.
   */
  async fileDoc(repo: RepoRecord, relPath: string): Promise<{ markdown: string; processing: boolean }> {
    const file = this.e.filesStore.getByPath(repo.id, relPath);
    if (!file) return { markdown: '_Not in the index._', processing: false };
    const answer = await this.e.docs.get(repo.id, file, 'summary');
    if (answer.state === 'ready') return { markdown: answer.markdown, processing: false };
    await Promise.race([this.e.docs.idle(), new Promise((r) => setTimeout(r, DOC_WAIT_MS))]);
    const again = await this.e.docs.get(repo.id, file, 'summary');
    if (again.state === 'ready') return { markdown: again.markdown, processing: false };
    return { markdown: file.description ?? '', processing: true };
  }

  /** The editor's own chat models (VS Code's language models), listed as `vscode:<id>`; null removes them. */
  useEditorModels(bridge: EditorModelBridge | null): void {
    this.e.research.models.setEditorBridge(bridge);
  }

  /**
   * A file's documentation at `depth` for a language model tool, which may wait longer than a hover
   * (`waitMs`) for one being written. null: the file is not in the index.
   */
  async toolDoc(repo: RepoRecord, relPath: string, depth: DocDepth, waitMs: number): Promise<{ markdown: string; processing: boolean } | null> {
    const file = this.e.filesStore.getByPath(repo.id, relPath);
    if (!file) return null;
    let answer = await this.e.docs.get(repo.id, file, depth);
    if (answer.state !== 'ready') {
      await Promise.race([this.e.docs.idle(), new Promise((r) => setTimeout(r, waitMs))]);
      answer = await this.e.docs.get(repo.id, file, depth);
    }
    return answer.state === 'ready' ? { markdown: answer.markdown, processing: false } : { markdown: file.description ?? '', processing: true };
  }

  /** The repository's blueprint, for the owner's language model tool. */
  blueprint(repo: RepoRecord, options: BlueprintOptions): Promise<BlueprintResult> {
    return this.e.analysis.blueprint(repo, options);
  }

  /** A past research conversation of the owner, as History kept it (the panel reopens it). */
  conversation(ownerId: string, conversationId: string): ReturnType<EngineParts['history']['conversation']> {
    return this.e.history.conversation(ownerId, conversationId);
  }

  repo(repoId: string): RepoRecord | undefined {
    return this.e.reposStore.get(repoId);
  }

  fileCount(repoId: string): number {
    return this.e.filesStore.paths(repoId).length;
  }

  /** Index runs as they progress and finish (the log's "indexed …" line, lenses refreshed once the graph is written). */
  onIndexRun(events: { progress?: (p: IndexRunProgress) => void; finished?: (f: { repoId: string; result: IndexRunResult }) => void }): void {
    if (events.progress) this.e.queue.on('progress', events.progress);
    if (events.finished) this.e.queue.on('finished', events.finished);
  }

  /** What the working tree's (or the branch's) changes affect: the radius of my change. */
  changeRadius(repo: RepoRecord, against: ChangeBase): Promise<ChangeRadius> {
    return changeRadius(this.e.analysis, repo, against);
  }

  /** What is at `offset` of a source text, from the language's parser (hover skips comments and strings). */
  tokenAt(relPath: string, text: string, offset: number): Promise<Token> {
    return tokenAt(detectLanguageOf(relPath.split('/').pop() ?? relPath, text), text, offset);
  }

  isTest(relPath: string): boolean {
    return isTestPath(relPath);
  }
}
