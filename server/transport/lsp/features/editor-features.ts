import type { Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Logger } from '../../../engine/log';
import type { Session } from '../session';
import { bindConversation } from './conversation';
import { bindChangeRadius } from './change-radius';
import { bindSettings } from './settings';
import { logIndexRuns } from './index-log';
import { bindAgentTools } from './agent-tools';
import { refreshLensesWhenGraphIsWritten } from './lens-refresh';

/**
 * The extension's own requests beyond lenses, hovers and the panel's search: one hook for the
 * server's composition to call, so these features stay in their files.
 */
export function bindEditorFeatures(connection: Connection, _documents: TextDocuments<TextDocument>, session: Session, log: Logger): void {
  bindConversation(connection, session, log);
  bindChangeRadius(connection, session, log);
  bindSettings(connection, session, log);
  logIndexRuns(session, log);
  bindAgentTools(connection, session, log);
  refreshLensesWhenGraphIsWritten(session);
}
