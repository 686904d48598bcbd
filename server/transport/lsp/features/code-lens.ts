import type { CodeLens, Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import type { FileLensFacts } from '../../../engine/operations';
import type { Session } from '../session';
import { guarded } from '../guarded';

/** Client commands the lenses run (declared in package.json, implemented in client/). */
export const SHOW_DEPENDENTS_COMMAND = 'loupe.showDependents';
export const SHOW_SYMBOL_USERS_COMMAND = 'loupe.showSymbolUsers';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "N dependents · M entry points · K tests": parts that are zero are left out, except the first. */
export function fileLensTitle(dependents: number, entryPoints: number, tests: number): string {
  const parts = [plural(dependents, 'dependent', 'dependents')];
  if (entryPoints) parts.push(plural(entryPoints, 'entry point', 'entry points'));
  if (tests) parts.push(plural(tests, 'test', 'tests'));
  return parts.join(' · ');
}

export function symbolLensTitle(files: number): string {
  return `used in ${plural(files, 'file', 'files')}`;
}

/** Lenses for one file from its cached facts; nothing below the thresholds (no "0 dependents" noise). */
export function lensesFor(uri: string, facts: FileLensFacts, minDependents: number, minSymbolUsers: number): CodeLens[] {
  const lenses: CodeLens[] = [];
  const { impact } = facts;
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  if (impact.dependents.length >= Math.max(1, minDependents)) {
    lenses.push({
      range: top,
      command: {
        title: fileLensTitle(impact.dependents.length, impact.entryPoints, impact.tests),
        command: SHOW_DEPENDENTS_COMMAND,
        arguments: [uri],
      },
    });
  }
  for (const s of facts.symbols) {
    if (s.users < Math.max(1, minSymbolUsers)) continue;
    const line = Math.max(0, s.line - 1);
    lenses.push({
      range: { start: { line, character: 0 }, end: { line, character: 0 } },
      command: { title: symbolLensTitle(s.users), command: SHOW_SYMBOL_USERS_COMMAND, arguments: [uri, s.name, line] },
    });
  }
  return lenses;
}

/**
 * CodeLens from the index: answered from facts cached per graph generation, so a request costs a
 * map lookup while nothing changed; when the graph changes, or facts answered incomplete were
 * completed, the client is asked to refresh.
 */
export function bindCodeLens(connection: Connection, session: Session, log: Logger): void {
  connection.onCodeLens(guarded(log, 'codeLens', async (params) => {
    const { enabled, minDependents, minSymbolUsers } = session.settings.codeLens;
    if (!enabled) return [];
    const located = session.workspace.locate(params.textDocument.uri);
    if (!located) return [];
    session.trace.mark('first lens request', located.relPath);
    const facts = await session.ops.editor.lensFacts(located.repo, located.relPath);
    const lenses = facts ? lensesFor(params.textDocument.uri, facts, minDependents, minSymbolUsers) : [];
    if (lenses.length) session.lensesServed(`${located.relPath}: ${lenses.length} lenses`);
    else session.trace.mark('first lens request answered with none', located.relPath);
    return lenses;
  }));

  let timer: NodeJS.Timeout | null = null;
  const refresh = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      connection.sendRequest('workspace/codeLens/refresh').catch(() => { /* the client may not support refresh */ });
    }, 100);
  };
  session.on('graphChanged', refresh);
  // A first answer after a start has the file's radius but not yet "used in N files" (the importers
  // are parsed in the background): ask for the lenses again when that is done.
  session.ops.editor.onLensFactsCompleted(refresh);
}
