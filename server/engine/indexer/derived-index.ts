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
  /** The indexer's writer, for an index whose writes belong off the thread that answers (vectors). */
  useWriter?(writer: IndexWriter): void;
}
