import path from 'node:path';
import type { Connection, Hover, TextDocuments } from 'vscode-languageserver/node';
import { MarkupKind } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Logger } from '../../../engine/log';
import type { RepoRecord } from '../../../engine/types';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { declarationOf, docSummary, exportList, fileLink, radiusLine, usersLine } from './hover-text';

/**
 * Hover adds only what Loupe knows, next to the language's own hover (which already shows the
 * signature and doc comment): on an import specifier or a path in a string, that file's compact
 * doc; on a name that is an export of this file or an import, who uses it (non-tests first), the
 * declaring file's blast radius and its doc summary. The position is resolved with the language's
 * parser, so words in comments and strings, member names and locals get nothing.
 */
export function bindHover(connection: Connection, documents: TextDocuments<TextDocument>, session: Session, log: Logger): void {
  connection.onHover(guarded(log, 'hover', async (params): Promise<Hover | null> => {
    const doc = documents.get(params.textDocument.uri);
    const located = session.workspace.locate(params.textDocument.uri);
    if (!doc || !located) return null;
    const text = doc.getText();
    const token = await session.ops.editor.tokenAt(located.relPath, text, doc.offsetAt(params.position));
    const range = (start: number, end: number) => ({ start: doc.positionAt(start), end: doc.positionAt(end) });
    if (token.kind === 'string') {
      const target = resolveTarget(session, located.repo, located.relPath, token.text);
      if (!target) return null;
      return { contents: { kind: MarkupKind.Markdown, value: await fileHover(session, located.repo, target) }, range: range(token.start, token.end) };
    }
    if (token.kind !== 'identifier' || token.member) return null;
    const value = await symbolHover(session, located.repo, located.relPath, token.text);
    return value ? { contents: { kind: MarkupKind.Markdown, value }, range: range(token.start, token.end) } : null;
  }));
}

/** An import specifier of this file (resolved by the indexer), else a path relative to the file or the root. */
function resolveTarget(session: Session, repo: RepoRecord, relPath: string, text: string): string | null {
  const editor = session.ops.editor;
  const file = editor.file(repo, relPath);
  if (file) {
    const imp = editor.imports(file).find((i) => i.specifier === text && i.targetPath);
    if (imp?.targetPath) return imp.targetPath;
  }
  if (!/[/.]/.test(text) || text.includes('\n')) return null;
  const candidates = [path.posix.normalize(path.posix.join(path.posix.dirname(relPath), text)), path.posix.normalize(text.replace(/^\/+/, ''))];
  return candidates.find((c) => !c.startsWith('..') && editor.file(repo, c)) ?? null;
}

/** A file's compact doc: link and radius on one line, its summary, a short export list. */
async function fileHover(session: Session, repo: RepoRecord, target: string): Promise<string> {
  const uri = session.workspace.uriOf(repo, target);
  const editor = session.ops.editor;
  const [doc, impact] = await Promise.all([editor.fileDoc(repo, target), editor.impact(repo, target)]);
  const file = editor.file(repo, target);
  const exports = file ? editor.symbols(file).filter((s) => s.exported && s.parent === null).map((s) => s.name) : [];
  const lines = [`${fileLink(target, uri)}${impact ? ` · ${radiusLine(impact)}` : ''}`];
  const summary = docSummary(doc.markdown);
  if (summary) lines.push('', summary);
  if (doc.processing) lines.push('', '_Loupe is still writing this file\'s documentation (processing)…_');
  if (exports.length) lines.push('', `Exports ${exportList(exports)}`);
  return lines.join('\n');
}

async function symbolHover(session: Session, repo: RepoRecord, relPath: string, name: string): Promise<string | null> {
  const editor = session.ops.editor;
  const file = editor.file(repo, relPath);
  if (!file) return null;
  // Imported here? Then it is declared where the import leads (through barrels).
  const imp = editor.imports(file).find((i) => i.targetPath && i.names.includes(name));
  const origin = declarationOf(editor, repo, imp?.targetPath ?? relPath, name);
  // Only exports have users elsewhere: for a local, the language's hover says everything.
  if (!origin || !origin.symbol.exported) return null;
  const where = origin.path;
  const uses = await editor.symbolUses(repo, where, name);
  const users = [...new Map(uses.map((u) => [u.path, u])).values()]
    .sort((a, b) => Number(editor.isTest(a.path)) - Number(editor.isTest(b.path)) || a.path.localeCompare(b.path))
    .map((u) => ({ path: u.path, uri: `${session.workspace.uriOf(repo, u.path)}#L${u.line}`, test: editor.isTest(u.path) }));
  const [impact, doc] = await Promise.all([editor.impact(repo, where), editor.fileDoc(repo, where)]);
  const declared = where === relPath
    ? `Declared here, line ${origin.symbol.startLine}`
    : `Declared in ${fileLink(`${where}:${origin.symbol.startLine}`, `${session.workspace.uriOf(repo, where)}#L${origin.symbol.startLine}`)}`;
  const lines = [usersLine(name, users), '', `${declared}${impact ? ` · ${radiusLine(impact)}` : ''}`];
  const summary = docSummary(doc.markdown);
  if (summary && where !== relPath) lines.push('', `${path.posix.basename(where)}: ${summary}`);
  return lines.join('\n');
}
