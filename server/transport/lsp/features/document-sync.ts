import type { Connection, TextDocuments } from 'vscode-languageserver/node';
import { FileChangeType } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Session } from '../session';

/** Unsaved edits wait this long after the last keystroke, so typing never queues a parse per key. */
const EDIT_DEBOUNCE_MS = 300;
/** Saves and file operations batch up briefly (a rename of a folder arrives as many events). */
const DISK_DEBOUNCE_MS = 50;

/**
 * Keeps the index in line with the editor from LSP notifications alone: edits (in memory), saves,
 * closes, creates, deletes and renames from VS Code, and `workspace/didChangeWatchedFiles` for
 * changes made outside the editor (VS Code's own watcher; the server runs no second one).
 */
export function bindDocumentSync(connection: Connection, documents: TextDocuments<TextDocument>, session: Session): void {
  const pending = new Map<string, { repoId: string; paths: Map<string, string | undefined> }>();
  let timer: NodeJS.Timeout | null = null;

  const schedule = (uri: string, text: string | undefined, delay: number) => {
    const located = session.workspace.locate(uri);
    if (!located) return;
    let batch = pending.get(located.repo.id);
    if (!batch) pending.set(located.repo.id, (batch = { repoId: located.repo.id, paths: new Map() }));
    batch.paths.set(located.relPath, text);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, delay);
  };

  const flush = () => {
    timer = null;
    const batches = [...pending.values()];
    pending.clear();
    for (const batch of batches) void apply(batch.repoId, batch.paths);
  };

  // The engine's one file-change policy (the CLI's watcher uses it too): re-index now, or queue the
  // repository while a full run is going or a folder came or went. Updates run one at a time there.
  const apply = async (repoId: string, paths: Map<string, string | undefined>) => {
    const contents = new Map([...paths].filter((e): e is [string, string] => e[1] !== undefined));
    try {
      const outcome = await session.ops.indexing.applyChanges(repoId, [...paths.keys()], contents);
      if (outcome.kind === 'updated' && (outcome.result.added || outcome.result.changed || outcome.result.removed)) {
        session.emit('graphChanged', repoId);
      }
    } catch (error) {
      session.log.warn('update failed:', error as Error);
    }
  };

  documents.onDidChangeContent((e) => {
    // The first "change" of a document is its opening: nothing to re-index unless it differs from disk,
    // which the hash check in the indexer decides cheaply.
    schedule(e.document.uri, e.document.getText(), EDIT_DEBOUNCE_MS);
  });
  documents.onDidSave((e) => schedule(e.document.uri, undefined, DISK_DEBOUNCE_MS));
  // Closing without saving drops the unsaved text: the index goes back to what is on disk.
  documents.onDidClose((e) => schedule(e.document.uri, undefined, DISK_DEBOUNCE_MS));

  connection.workspace.onDidCreateFiles((e) => e.files.forEach((f) => schedule(f.uri, undefined, DISK_DEBOUNCE_MS)));
  connection.workspace.onDidDeleteFiles((e) => e.files.forEach((f) => schedule(f.uri, undefined, DISK_DEBOUNCE_MS)));
  connection.workspace.onDidRenameFiles((e) => e.files.forEach((f) => {
    schedule(f.oldUri, undefined, DISK_DEBOUNCE_MS);
    schedule(f.newUri, undefined, DISK_DEBOUNCE_MS);
  }));
  connection.onDidChangeWatchedFiles((e) => {
    for (const change of e.changes) {
      // An open document's text is authoritative while it is open; a disk change for it comes with a save.
      if (change.type !== FileChangeType.Deleted && documents.get(change.uri)) continue;
      schedule(change.uri, undefined, DISK_DEBOUNCE_MS);
    }
  });
}

/** The file operations the server wants to hear about (server capability `workspace.fileOperations`). */
export const FILE_OPERATION_FILTERS = { filters: [{ scheme: 'file', pattern: { glob: '**/*' } }] };
