/**
 * Worker thread: the index writer (IndexWrites) on a connection of its own to the index file. The
 * main thread sends parsed files and edits; every SQLite write of indexing, its commits and FTS5
 * merges, happens here, so the event loop that answers HTTP and LSP is never held by one.
 * Requests are handled one at a time, in the order they came.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openWriterConnection, shareWriteTurns, WriteTurns } from '../store/db';
import { SqliteFilesStore, TrigramBacklog } from '../store/files-store';
import { SqliteReposStore } from '../store/repos-store';
import { WalkCatalogStore } from '../store/walk-catalog-store';
import { IndexWrites, type WriteOptions } from './index-writes';
import { LoupeError } from '../errors';
import { storageError } from '../store/storage-errors';
import { SqliteVectorsStore } from '../store/vectors-store';
import { VectorWrites } from '../embed/vector-writes';
import { parsedFiles, type ParsedBatch } from './parsed-batch';
import { transferables } from '../util/transfer';
import { lowerThreadPriority } from '../util/background-thread';

export type WriterRequest = {
  id: number;
  method: 'scan' | 'writeFiles' | 'writeSerialized' | 'stamp' | 'deletePaths' | 'setProgress' | 'relink' | 'refreshNames' | 'edit'
    | 'deferWordsIndex' | 'fillTrigram'
    | 'embedSlice' | 'countMissing' | 'chunkCount' | 'packed' | 'sampleTexts' | 'addModel' | 'putVectors' | 'close';
  args: unknown[];
};

export type WriterResponse =
  | { type: 'done'; id: number; value: unknown }
  | { type: 'committed'; id: number; n: number }
  | { type: 'failed'; id: number; message: string; code?: string };

const { file, options, turns, maxPageCount } = workerData as { file: string; options: WriteOptions; turns: SharedArrayBuffer; maxPageCount: number };
const db = openWriterConnection(file);
// The main connection's size limit (a connection setting), so that both see the same full disk.
db.pragma(`max_page_count = ${Math.trunc(maxPageCount)}`);
// Each transaction waits while the main connection writes (a charge, a repository's state).
shareWriteTurns(db, new WriteTurns('writer', turns));
const writes = new IndexWrites(new SqliteReposStore(db), new SqliteFilesStore(db), options, (work) => db.transaction(work)(), new TrigramBacklog(db), new WalkCatalogStore(db));
// The corpus model's vectors: the chunks read, embedded and written here (the derived phase and the catch-up after an edit).
let vectors: VectorWrites | null = null;
const vectorWrites = () => (vectors ??= new VectorWrites(new SqliteVectorsStore(db)));

type Args<K extends keyof IndexWrites> = IndexWrites[K] extends (...a: infer A) => unknown ? A : never;

async function handle(request: WriterRequest): Promise<unknown> {
  const a = request.args;
  switch (request.method) {
    case 'scan':
      // A run's walk: this thread then writes the run (a cold index, a catch-up) in bulk, below the main thread
      // as the parse processes and training do. It is let go when the run ends, and the next edit starts a
      // writer at the main thread's priority (an edit sent during a run is written here, between its batches).
      lowerThreadPriority();
      return writes.scan(...(a as Args<'scan'>));
    case 'writeFiles': {
      const [repoId, files, progress, sliceMs] = a as [string, Args<'writeFiles'>[1], Args<'writeFiles'>[2], number];
      return writes.writeFiles(repoId, files, progress, sliceMs, (n) => {
        parentPort!.postMessage({ type: 'committed', id: request.id, n } satisfies WriterResponse);
      });
    }
    case 'writeSerialized': {
      // The parse workers' bytes, read here (the main thread only passed them on).
      const [repoId, batches, progress, sliceMs] = a as [string, ParsedBatch[], Args<'writeFiles'>[2], number];
      return writes.writeFiles(repoId, parsedFiles(batches), progress, sliceMs, (n) => {
        parentPort!.postMessage({ type: 'committed', id: request.id, n } satisfies WriterResponse);
      });
    }
    case 'stamp': return writes.stamp(...(a as Args<'stamp'>));
    case 'deletePaths': return writes.deletePaths(...(a as Args<'deletePaths'>));
    case 'setProgress': return writes.setProgress(...(a as Args<'setProgress'>));
    case 'relink': return writes.relink(...(a as Args<'relink'>));
    case 'refreshNames': return writes.refreshNames(...(a as Args<'refreshNames'>));
    case 'edit': return writes.edit(...(a as Args<'edit'>));
    case 'deferWordsIndex': return writes.deferWordsIndex();
    case 'fillTrigram': return writes.fillTrigram();
    case 'embedSlice': return vectorWrites().embedSlice(...(a as Parameters<VectorWrites['embedSlice']>));
    case 'countMissing': return vectorWrites().countMissing(...(a as Parameters<VectorWrites['countMissing']>));
    case 'chunkCount': return vectorWrites().chunkCount();
    case 'packed': return vectorWrites().packed(...(a as Parameters<VectorWrites['packed']>));
    case 'sampleTexts': return vectorWrites().sampleTexts(...(a as Parameters<VectorWrites['sampleTexts']>));
    case 'addModel': return vectorWrites().addModel(...(a as Parameters<VectorWrites['addModel']>));
    case 'putVectors': return vectorWrites().putVectors(...(a as Parameters<VectorWrites['putVectors']>));
    case 'close': return undefined;
  }
}

let chain: Promise<void> = Promise.resolve();
parentPort!.on('message', (request: WriterRequest) => {
  chain = chain.then(async () => {
    if (request.method === 'close') {
      db.close();
      process.exit(0);
    }
    try {
      const value = await handle(request);
      // Buffers (the training sample, packed vectors) are moved to the main thread, not copied.
      const transfer = transferables(value);
      parentPort!.postMessage({ type: 'done', id: request.id, value } satisfies WriterResponse, transfer);
    } catch (caught) {
      // A full disk or a read-only file is told as the coded error the main thread would have made.
      const error = storageError(caught, file) ?? caught;
      const code = error instanceof LoupeError ? error.code : undefined;
      parentPort!.postMessage({ type: 'failed', id: request.id, message: (error as Error).message, code } satisfies WriterResponse);
    }
  });
});
