import type { IndexWriter } from './index-writer';

/**
 * Every index kind beyond the core one (files, symbols, edges, chunks, full text) implements this:
 * vectors, generated docs, and whatever comes next. After each core update the indexer calls
 * update() for the repository; an implementation catches up from what is persisted (for example
 * chunks that have no vector yet), so a killed process resumes where it stopped.
 */
export interface IndexProgress {
  index: string;
  done: number;
  total: number;
}

export interface DerivedIndex {
  readonly name: string;
  update(repoId: string, signal: AbortSignal): AsyncGenerator<IndexProgress>;
  /**
   * Called once a run has written its files, before the core index's last steps (trigram fill, links):
   * work that needs only the chunks may begin there, beside them (vectors: training the corpus model).
   * Resolves once that work is under way; the indexer's next writes queue behind what it asked of the writer.
   */
  prepare?(repoId: string, signal: AbortSignal): Promise<void>;
  /** The indexer's writer, for an index whose writes belong off the thread that answers (vectors). */
  useWriter?(writer: IndexWriter): void;
}
