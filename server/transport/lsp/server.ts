import {
  createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind, ResponseError, ErrorCodes,
  type Connection, type InitializeParams, type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import ts from 'typescript';
import { flushCompileCache } from 'node:module';
import { createLogger, type Logger, type LogLevel } from '../../engine/log';
import { Method, type LoupeInitOptions } from '../../../protocol/lsp';
import { onLoupeRequest, sendLoupeNotification } from './typed';
import { DEFAULT_SETTINGS, type LoupeSettings } from '../../../protocol/settings';
import { Session, type OpenHost } from './session';
import { StartupTrace } from './startup-trace';
import { guarded } from './guarded';
import { bindDocumentSync, FILE_OPERATION_FILTERS } from './features/document-sync';
import { bindCodeLens } from './features/code-lens';
import { bindHover } from './features/hover';
import { bindPanel } from './features/panel';
import { bindPanelSearch } from './features/panel-search';
import { bindEditorModels } from './features/editor-models';
import { bindEditorFeatures } from './features/editor-features';

/** How long the sidecar and the rest wait for the first lenses at most (see onInitialized). */
const STARTUP_DEADLINE_MS = 4000;
/** …and at most this long while a document is open whose lenses VS Code has not asked for yet. */
const STARTUP_CAP_MS = 15_000;

function saveCompileCache(): void {
  try {
    flushCompileCache();
  } catch {
    // no cache directory, or it cannot be written: the next start compiles again
  }
}

function connectionLogger(connection: Connection, minimum: LogLevel): Logger {
  // window/logMessage lands in the client's LogOutputChannel; stdout carries nothing but LSP.
  return createLogger((level, line) => {
    if (level === 'error') connection.console.error(line);
    else if (level === 'warn') connection.console.warn(line);
    else if (level === 'info') connection.console.info(line);
    else connection.console.log(line);
  }, minimum);
}

/** Binds the language server connection to the engine's services. Only bindings here; features live in features/. */
export function startLanguageServer(openHost: OpenHost): void {
  const connection = createConnection(ProposedFeatures.all);
  const log = connectionLogger(connection, process.env.LOUPE_LOG === 'debug' ? 'debug' : 'info');
  const trace = new StartupTrace(log);
  trace.mark('server loaded');
  const documents = new TextDocuments(TextDocument);
  let session: Session | null = null;
  let folders: string[] = [];
  let folderEvents = false;
  // The owner's key, when it comes before initialize was answered (the session is not there yet).
  let earlyKey: string | null = null;
  const adoptKey = (s: Session, key: string) => {
    s.adoptOwnerKey(key).catch((error: Error) => log.error(`the owner's key was not taken: ${error.message}`));
  };

  connection.onInitialize(async (params: InitializeParams): Promise<InitializeResult> => {
    const options = params.initializationOptions as Partial<LoupeInitOptions> | undefined;
    trace.mark('initialize received');
    // The owner's key may follow as loupe/ownerKey: nothing the first lenses need waits for it.
    if (!options?.dataDir) throw new ResponseError(ErrorCodes.InvalidParams, 'initializationOptions need dataDir');
    const settings: LoupeSettings = { ...DEFAULT_SETTINGS, ...options.settings };
    const started = Date.now();
    const init: LoupeInitOptions = { dataDir: options.dataDir, ownerKey: options.ownerKey || undefined, settings };
    session = new Session(await openHost(init, log), init, log, trace);
    if (!init.ownerKey) trace.mark('initialize without the owner key');
    if (earlyKey) adoptKey(session, earlyKey);
    log.info(`index opened in ${Date.now() - started} ms at ${init.dataDir}`);
    trace.mark('index opened');
    folders = (params.workspaceFolders ?? []).map((f) => f.uri);
    // Editors without folder-change events (and plain LSP clients) still get their folders indexed.
    folderEvents = params.capabilities.workspace?.workspaceFolders === true;
    if (!folders.length && params.rootUri) folders = [params.rootUri];
    bindFeatures(connection, documents, session, log);
    trace.mark('initialize answered');
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeLensProvider: { resolveProvider: false },
        hoverProvider: true,
        workspace: {
          workspaceFolders: { supported: true, changeNotifications: true },
          fileOperations: { didCreate: FILE_OPERATION_FILTERS, didDelete: FILE_OPERATION_FILTERS, didRename: FILE_OPERATION_FILTERS },
        },
      },
      serverInfo: { name: 'loupe' },
    };
  });

  connection.onInitialized(() => {
    trace.mark('initialized');
    const s = session!;
    // The first lenses come first: the sidecar (building the HTTP application takes seconds on a
    // busy machine), TypeScript on this thread and a warm start's catch-up run wait until they are
    // answered, or until STARTUP_DEADLINE_MS when no lens is asked for or the index is not there yet.
    // With a document open VS Code will ask for its lenses, later than the deadline when the extension host is
    // busy (10 s after initialize at load 12 in the editor bench): the wait goes on, up to STARTUP_CAP_MS.
    const settled = s.startupSettled(STARTUP_DEADLINE_MS, { while: () => documents.all().length > 0, capMs: STARTUP_CAP_MS });
    s.openWorkspace(folders, settled);
    // Node's compile cache (NODE_COMPILE_CACHE, set by the extension) is written when the process
    // exits, but a window reload may kill this process instead: write it now that the bundle is
    // compiled, so the next start reads it (and again once TypeScript is loaded).
    setImmediate(saveCompileCache);
    void settled.then(() => {
      if (session !== s) return;
      void s.startSidecar();
      // TypeScript loads on first use (see esbuild.mjs); load it now, so the first hover does not pay for it.
      setTimeout(() => {
        void ts.version;
        saveCompileCache();
      }, 100);
    });
    if (folderEvents) {
      connection.workspace.onDidChangeWorkspaceFolders((e) => {
        s.closeFolders(e.removed.map((f) => f.uri));
        s.openFolders(e.added.map((f) => f.uri));
      });
    }
  });

  connection.onNotification(Method.ownerKey, (params: { key?: unknown }) => {
    if (typeof params?.key !== 'string') return;
    trace.mark('owner key received');
    if (session) adoptKey(session, params.key);
    else earlyKey = params.key;
  });

  connection.onShutdown(async () => {
    await session?.close();
    session = null;
  });

  documents.listen(connection);
  connection.listen();
}

function bindFeatures(connection: Connection, documents: TextDocuments<TextDocument>, session: Session, log: Logger): void {
  session.on('status', (status) => sendLoupeNotification(connection, Method.statusChanged, status));
  session.ops.auth.onMail((m) => sendLoupeNotification(connection, 'loupe/mail', { to: m.to, subject: m.subject, via: m.via, path: m.path }));
  onLoupeRequest(connection, Method.status, guarded(log, 'status', () => session.status()));
  onLoupeRequest(connection, Method.pause, guarded(log, 'pause', () => { session.pause(); return session.status(); }));
  onLoupeRequest(connection, Method.cancelIndex, guarded(log, 'cancelIndex', () => { session.pause(); return session.status(); }));
  onLoupeRequest(connection, Method.resume, guarded(log, 'resume', () => { session.resume(); return session.status(); }));
  onLoupeRequest(connection, Method.reindex, guarded(log, 'reindex', () => { session.reindex(); return session.status(); }));
  onLoupeRequest(connection, Method.sidecar, guarded(log, 'sidecar', () => ({
    url: session.sidecar?.url ?? null,
    docsUrl: session.sidecar ? `${session.sidecar.url}/docs` : null,
    error: session.sidecarError,
  })));
  bindDocumentSync(connection, documents, session);
  bindCodeLens(connection, session, log);
  bindHover(connection, documents, session, log);
  bindPanel(connection, session, log);
  bindPanelSearch(connection, session, log);
  bindEditorModels(connection, session);
  bindEditorFeatures(connection, documents, session, log);
}
