/**
 * The language server entry point, started by the extension over IPC. The editor's initialization
 * options become host settings (server/settings.ts) and the host (server/host.ts) builds the engine
 * and the HTTP sidecar; the LSP bindings live in transport/lsp.
 */
import { startLanguageServer } from './transport/lsp/server';
import { Host } from './host';
import { settingsFromEditor } from './settings';

startLanguageServer((init, log) => Host.open(settingsFromEditor(init, process.env, log), log));
