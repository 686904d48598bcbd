import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import { Method, type RadiusResult } from '../../../../protocol/lsp';
import { onLoupeRequest } from '../typed';
import type { Session } from '../session';
import { guarded } from '../guarded';

/**
 * Requests behind the lens clicks and the panel. Each calls the same engine operation as the HTTP
 * API and converts the result to the protocol's shapes; nothing is computed here.
 */
export function bindPanel(connection: Connection, session: Session, log: Logger): void {
  onLoupeRequest(connection, Method.radius, guarded(log, 'radius', async ({ uri }): Promise<RadiusResult> => {
    const located = session.workspace.locate(uri);
    if (!located) return { uri, path: uri, dependents: [], entryPoints: 0, tests: 0, note: 'This file is outside the indexed workspace folders.' };
    const impact = await session.ops.editor.impact(located.repo, located.relPath);
    if (!impact) return { uri, path: located.relPath, dependents: [], entryPoints: 0, tests: 0, note: 'This file is not in the index (ignored, binary or not indexed yet).' };
    return {
      uri,
      path: located.relPath,
      dependents: impact.dependents.map((d) => ({ ...d, uri: session.workspace.uriOf(located.repo, d.path) })),
      entryPoints: impact.entryPoints,
      tests: impact.tests,
      note: null,
    };
  }));

  onLoupeRequest(connection, Method.symbolUsers, guarded(log, 'symbolUsers', async ({ uri, symbol }) => {
    const located = session.workspace.locate(uri);
    if (!located) return { symbol, files: [] };
    const uses = await session.ops.editor.symbolUses(located.repo, located.relPath, symbol);
    return { symbol, files: uses.map((u) => ({ ...u, uri: session.workspace.uriOf(located.repo, u.path) })) };
  }));
}
