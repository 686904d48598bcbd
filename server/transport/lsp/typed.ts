import type { CancellationToken, Connection } from 'vscode-languageserver/node';
import type { LoupeNotifications, LoupeRequests } from '../../../protocol/lsp';

/** `connection.onRequest` typed by the protocol's method table. */
export function onLoupeRequest<M extends keyof LoupeRequests>(
  connection: Connection, method: M,
  handler: (params: LoupeRequests[M][0], token: CancellationToken) => LoupeRequests[M][1] | Promise<LoupeRequests[M][1]>,
): void {
  connection.onRequest(method, (params: unknown, token: CancellationToken) => handler(params as LoupeRequests[M][0], token) as Promise<unknown>);
}

export function sendLoupeNotification<M extends keyof LoupeNotifications>(connection: Connection, method: M, params: LoupeNotifications[M]): void {
  void connection.sendNotification(method, params);
}
