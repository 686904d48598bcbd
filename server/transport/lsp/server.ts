import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';

/** Binds the language server connection. Features are added by the extension work (issue 7). */
export function startLanguageServer(): void {
  const connection = createConnection(ProposedFeatures.all);
  connection.onInitialize(() => ({ capabilities: {} }));
  connection.listen();
}
