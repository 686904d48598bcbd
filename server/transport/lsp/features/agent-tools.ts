import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import { Method } from '../../../../protocol/lsp';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { onLoupeRequest } from '../typed';

const DOC_WAIT_MS = 3_000;
const BLUEPRINT_SYMBOLS = 25;

/**
 * The requests behind the editor's language model tools (file docs and blueprint; search and radius
 * have their own): the engine's FileDocs and blueprint, for the owner, converted to Markdown.
 */
export function bindAgentTools(connection: Connection, session: Session, log: Logger): void {
  const editor = session.ops.editor;

  onLoupeRequest(connection, Method.fileDoc, guarded(log, 'fileDoc', async ({ uri, depth }) => {
    const located = session.workspace.locate(uri);
    if (!located) return { path: uri, markdown: 'This file is outside the indexed workspace folders.', processing: false };
    // A tool call can wait a little longer than a hover for a doc being written.
    const doc = await editor.toolDoc(located.repo, located.relPath, depth ?? 'full', DOC_WAIT_MS);
    if (!doc) return { path: located.relPath, markdown: 'This file is not in the index (ignored, binary or not indexed yet).', processing: false };
    return { path: located.relPath, ...doc };
  }));

  onLoupeRequest(connection, Method.blueprint, guarded(log, 'blueprint', () => Promise.all(session.workspace.repos().map(async (repo) => {
    const result = await editor.blueprint(repo, { symbolLimit: BLUEPRINT_SYMBOLS, conventions: true });
    const symbols = result.symbols.map((s) => `- \`${s.signature ?? s.name}\` (${s.kind}) in ${s.file_path}:${s.line}, used by ${s.used_by} files`);
    const dependencies = result.dependencies.slice(0, 20).map((d) => `- ${d.name}${d.version ? ` ${d.version}` : ''} (${d.ecosystem}, ${d.files} files)`);
    const markdown = [
      result.documentation,
      dependencies.length ? `\n## Dependencies\n\n${dependencies.join('\n')}` : '',
      symbols.length ? `\n## Most used symbols\n\n${symbols.join('\n')}` : '',
      result.notes.length ? `\n${result.notes.map((n) => `_${n}_`).join('\n')}` : '',
    ].join('\n');
    return { repoName: repo.name, markdown };
  }))));
}
