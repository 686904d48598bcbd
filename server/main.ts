/**
 * The language server entry point, started by the extension over IPC. The editor's initialization
 * options become host settings (server/settings.ts) and the host (server/host.ts) builds the engine
 * and the HTTP sidecar; the LSP bindings live in transport/lsp.
 */
import { startLanguageServer } from './transport/lsp/server';
import { Host } from './host';
import { settingsFromEditor } from './settings';

// The editor's sidecar is built on its first request (Host.listen's onDemand): most sessions never call it.
// The owner's key may come after initialize (loupe/ownerKey): the index opens without waiting for it.
startLanguageServer(async (init, log) => {
  const host = await Host.open(settingsFromEditor(init, process.env, log), log, { ownerKeyLater: true });
  return {
    ops: host.ops,
    get owner() { return host.owner; },
    adoptOwnerKey: (key) => host.adoptOwnerKey(key),
    listen: () => host.listen({ onDemand: true }),
    close: () => host.close(),
  };
});
