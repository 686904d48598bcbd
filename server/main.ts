/**
 * The language server entry point, started by the extension over IPC. Wiring of LSP features
 * lives in transport/lsp; this file only builds the service graph and starts the connection.
 */
import { startLanguageServer } from './transport/lsp/server';

startLanguageServer();
