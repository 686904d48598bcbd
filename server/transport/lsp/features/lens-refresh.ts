import type { Session } from '../session';

/**
 * Lenses from the new graph as soon as a run has written it: the import graph is complete when the
 * derived indexes (vectors, docs) start, which can take as long again on a cold start. Until then a
 * lens request for a file not yet indexed got nothing, and VS Code asks again only when told to.
 */
export function refreshLensesWhenGraphIsWritten(session: Session): void {
  const announced = new Set<string>();
  session.ops.editor.onIndexRun({ progress: (p) => {
    if (p.phase === 'scanning' || p.phase === 'parsing') announced.delete(p.repoId);
    else if (p.phase === 'derived' && !announced.has(p.repoId)) {
      announced.add(p.repoId);
      session.emit('graphChanged', p.repoId);
    }
  } });
}
