import type { Logger } from '../log';
import type { AnalysisStore } from '../store/analysis-store';
import type { FilesStore } from '../store/files-store';
import type { Async } from '../store/surface';
import type { FileRecord, ParsedImport, ParsedSymbol } from '../types';
import type { DerivedIndex, IndexProgress } from '../indexer/derived-index';
import type { AnalysisContext } from '../analysis/context';
import type { ImportGraph } from '../analysis/import-graph';
import type { EntryPoint } from '../analysis/entry-points';
import { buildStaticDoc, renderDoc, type StaticDoc } from './static-doc';
import type { DocDepth } from './depth';

/**
 * Writes the narrative part of a file's documentation. A model provider adapter implements it when
 * the user has configured one; without it docs are static analysis only.
 */
export interface DocNarrator {
  readonly id: string;
  narrate(input: { path: string; text: string; facts: StaticDoc }, signal: AbortSignal): Promise<string | null>;
}

export type FileDocAnswer =
  | { state: 'ready'; markdown: string; generator: string; generatedAt: string }
  | { state: 'processing' };

/**
 * Per-file documentation, generated in the background and stored against the content hash it
 * describes. A request for a file without a current doc queues it and answers `processing`; once
 * written, requests render it (with live dependents from the import graph) at the asked depth.
 * As a DerivedIndex it regenerates, after each index update, the docs whose file has changed.
 */
/** Docs built at once by `update` over a remote store (each is a few round trips). */
const DOCS_IN_FLIGHT = 8;
/** Docs read and written together by `update` given a batch store (four reads and one write per batch). */
const DOCS_BATCH = 64;

/** Reads docs' inputs and writes docs for many files at once (the team server's PgDocsStore). */
export interface DocBatches {
  inputs(repoId: string, fileIds: number[]): Promise<{ record: FileRecord; text: string; symbols: (ParsedSymbol & { id: number })[]; imports: ParsedImport[] }[]>;
  put(docs: { fileId: number; sourceHash: string; generator: string; doc: string }[]): Promise<void>;
}

export class FileDocs implements DerivedIndex {
  readonly name = 'docs';
  private readonly queue = new Map<number, string>();
  private running: Promise<void> | null = null;
  private narrator: DocNarrator | null = null;

  /**
   * `store` takes the docs' writes and the stale list (the derived index's side: SQLite, or the team
   * server's PostgreSQL, awaited); `reads` is what a request reads (`get`), through the async surface,
   * so it answers over SQLite and PostgreSQL. `files` is where a doc's file is read from to build it.
   * `pending`: the files whose doc is missing or stale; given, `update` builds every one of them (the
   * team server's worker builds all docs ahead of requests), else only the stale ones (docs are made
   * when first asked for). `batches`: `update` reads and writes DOCS_BATCH docs at a time through it.
   */
  constructor(
    private readonly store: AnalysisStore | Async<AnalysisStore>,
    private readonly reads: Async<AnalysisStore>,
    private readonly files: FilesStore | Async<FilesStore>,
    private readonly analysis: Pick<AnalysisContext, 'graph' | 'entries'>,
    private readonly log: Logger,
    private readonly pending?: (repoId: string) => Promise<{ fileId: number }[]>,
    private readonly batches?: DocBatches,
  ) {}

  setNarrator(narrator: DocNarrator | null): void {
    this.narrator = narrator;
  }

  /** The doc of `file` at `depth` if it describes the file's current content; otherwise queue it. */
  async get(repoId: string, file: FileRecord, depth: DocDepth): Promise<FileDocAnswer> {
    const row = await this.reads.fileDoc(file.id);
    if (!row || row.sourceHash !== file.hash) {
      this.enqueue(repoId, file.id);
      return { state: 'processing' };
    }
    const doc = JSON.parse(row.doc) as StaticDoc;
    return { state: 'ready', markdown: renderDoc(doc, await this.live(repoId, file.path), depth), generator: row.generator, generatedAt: row.generatedAt };
  }

  /** Resolves when every queued doc is written (tests and benchmarks wait on it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async *update(repoId: string, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    const stale = this.pending ? await this.pending(repoId) : await this.store.staleDocs(repoId);
    let done = 0;
    if (this.batches) {
      for (let i = 0; i < stale.length; i += DOCS_BATCH) {
        if (signal.aborted) return;
        const ids = stale.slice(i, i + DOCS_BATCH).map((s) => s.fileId);
        const inputs = await this.batches.inputs(repoId, ids);
        const docs = [];
        for (const input of inputs) docs.push({ fileId: input.record.id, sourceHash: input.record.hash, ...await this.build(input, signal) });
        await this.batches.put(docs);
        done += ids.length;
        yield { index: this.name, done, total: stale.length };
      }
      return;
    }
    // Over a remote store each doc is a few round trips: several are built at once.
    const width = this.pending ? DOCS_IN_FLIGHT : 1;
    for (let i = 0; i < stale.length; i += width) {
      if (signal.aborted) return;
      const group = stale.slice(i, i + width);
      await Promise.all(group.map((s) => this.generate(repoId, s.fileId, signal)));
      done += group.length;
      yield { index: this.name, done, total: stale.length };
    }
  }

  private enqueue(repoId: string, fileId: number): void {
    this.queue.set(fileId, repoId);
    if (this.running) return;
    this.running = (async () => {
      // Off the request's own tick: the answer goes out first, generation follows.
      await new Promise((r) => setImmediate(r));
      while (this.queue.size) {
        const [id, repo] = this.queue.entries().next().value!;
        this.queue.delete(id);
        try {
          await this.generate(repo, id, new AbortController().signal);
        } catch (error) {
          this.log.warn(`documentation of file ${id} failed:`, error as Error);
        }
      }
    })().finally(() => { this.running = null; });
  }

  private async generate(repoId: string, fileId: number, signal: AbortSignal): Promise<void> {
    const path = await this.pathOf(repoId, fileId);
    if (!path) return;
    const record = await this.files.getByPath(repoId, path);
    if (!record) return;
    const [text, symbols, imports] = await Promise.all([this.files.content(record.id), this.files.symbols(record.id), this.files.imports(record.id)]);
    const { generator, doc } = await this.build({ record, text, symbols, imports }, signal);
    // The file may have changed while a narrator ran: store the hash the doc was built from.
    await this.store.putFileDoc(record.id, record.hash, generator, doc);
  }

  /** A file's doc (JSON) and what made it: static analysis, and the narrator's text when there is one. */
  private async build(
    input: { record: FileRecord; text: string; symbols: (ParsedSymbol & { id: number })[]; imports: ParsedImport[] }, signal: AbortSignal,
  ): Promise<{ generator: string; doc: string }> {
    const { record, text } = input;
    const doc = buildStaticDoc(record, input.symbols, input.imports, text);
    let generator = 'static';
    if (this.narrator) {
      try {
        const narrative = await this.narrator.narrate({ path: record.path, text, facts: doc }, signal);
        if (narrative) { doc.narrative = narrative; generator = this.narrator.id; }
      } catch (error) {
        this.log.warn(`the narrator ${this.narrator.id} failed for ${record.path}; keeping static docs:`, error as Error);
      }
    }
    return { generator, doc: JSON.stringify(doc) };
  }

  private async pathOf(repoId: string, fileId: number): Promise<string | null> {
    const graph = await this.analysis.graph(repoId);
    const index = graph.indexOfFileId.get(fileId);
    return index === undefined ? null : graph.path(index);
  }

  private async live(repoId: string, path: string) {
    const graph = await this.analysis.graph(repoId);
    if (!graph.indexOfPath.has(path)) return liveOf(graph, [], path);
    return liveOf(graph, await this.analysis.entries(repoId, graph), path);
  }
}

/** A file's live dependents (direct, total) and the tests reaching it, from the import graph. */
function liveOf(graph: ImportGraph, entries: EntryPoint[], path: string) {
  const index = graph.indexOfPath.get(path);
  if (index === undefined) return { direct: [], total: 0, tests: [] };
  const deps = graph.dependents([index]);
  const reached = new Set([index, ...deps.map((d) => d.file)]);
  const tests = entries.filter((e) => e.kind === 'test' && reached.has(e.file)).map((e) => graph.path(e.file));
  return { direct: deps.filter((d) => d.depth === 1).map((d) => graph.path(d.file)), total: deps.length, tests };
}
