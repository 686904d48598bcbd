import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import { Method } from '../../../../protocol/lsp';
import { changedGroups, LIVE_SETTINGS } from '../../../../protocol/settings';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { onLoupeRequest } from '../typed';

/**
 * `loupe/applySettings`: settings changed in the editor. Lens thresholds apply at once (lenses are
 * asked again); settings the host is built with (embeddings, chat models, ignore patterns, the
 * sidecar) are reported back so the client restarts the server, a warm start and no window reload.
 */
export function bindSettings(connection: Connection, session: Session, log: Logger): void {
  onLoupeRequest(connection, Method.applySettings, guarded(log, 'applySettings', async (settings) => {
    const changed = changedGroups(session.settings, settings);
    const live = changed.filter((g) => (LIVE_SETTINGS as readonly string[]).includes(g));
    const restart = changed.filter((g) => !live.includes(g));
    session.settings = { ...session.settings, ...Object.fromEntries(live.map((g) => [g, settings[g]])) };
    if (live.includes('codeLens')) await connection.sendRequest('workspace/codeLens/refresh').catch(() => { /* no refresh support */ });
    if (changed.length) log.info(`settings: applied ${live.join(', ') || 'nothing'} live${restart.length ? `; ${restart.join(', ')} need a server restart` : ''}`);
    return { applied: live, restart };
  }));
}
