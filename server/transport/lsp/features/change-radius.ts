import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import { Method, type ChangeRadiusResult } from '../../../../protocol/lsp';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { onLoupeRequest } from '../typed';

/** `loupe/changeRadius`: the radius of the working tree's (or the branch's) changes, over every workspace folder. */
export function bindChangeRadius(connection: Connection, session: Session, log: Logger): void {
  onLoupeRequest(connection, Method.changeRadius, guarded(log, 'changeRadius', async ({ against }): Promise<ChangeRadiusResult> => {
    const out: ChangeRadiusResult = { against, base: null, changed: [], dependents: [], tests: [], entryPoints: 0, notes: [] };
    for (const repo of session.workspace.repos()) {
      const r = await session.ops.editor.changeRadius(repo, against);
      const uri = (p: string) => session.workspace.uriOf(repo, p);
      if (r.note) out.notes.push(r.note);
      out.base ??= r.base;
      out.changed.push(...r.changed.map((c) => ({ ...c, repoName: repo.name, uri: uri(c.path) })));
      out.dependents.push(...r.dependents.map((d) => ({ ...d, repoName: repo.name, uri: uri(d.path) })));
      out.tests.push(...r.tests.map((d) => ({ ...d, repoName: repo.name, uri: uri(d.path) })));
      out.entryPoints += r.entryPoints;
    }
    return out;
  }));
}
