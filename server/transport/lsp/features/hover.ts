import path from 'node:path';
import type { Connection, Hover, TextDocuments } from 'vscode-languageserver/node';
import { MarkupKind } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Logger } from '../../../engine/log';
import type { ParsedSymbol, RepoRecord } from '../../../engine/types';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { fileLink, stringAt, wordAt } from './hover-text';

const MAX_USERS_LISTED = 8;

/**
 * Hover: on an import specifier or a path in a string, that file's documentation (summary depth)
 * with links; on a symbol, its signature, doc comment and the files that use it.
 */
export function bindHover(connection: Connection, documents: TextDocuments<TextDocument>, session: Session, log: Logger): void {
  connection.onHover(guarded(log, 'hover', async (params): Promise<Hover | null> => {
    const doc = documents.get(params.textDocument.uri);
    const located = session.workspace.locate(params.textDocument.uri);
    if (!doc || !located) return null;
    const line = doc.getText({ start: { line: params.position.line, character: 0 }, end: { line: params.position.line + 1, character: 0 } });
    const literal = stringAt(line, params.position.character);
    if (literal) {
      const target = resolveTarget(session, located.repo, located.relPath, literal.text);
      if (!target) return null;
      return {
        contents: { kind: MarkupKind.Markdown, value: await fileHover(session, located.repo, target) },
        range: { start: { line: params.position.line, character: literal.start }, end: { line: params.position.line, character: literal.end } },
      };
    }
    const word = wordAt(line, params.position.character);
    if (!word) return null;
    const value = symbolHover(session, located.repo, located.relPath, word.text);
    if (!value) return null;
    return {
      contents: { kind: MarkupKind.Markdown, value },
      range: { start: { line: params.position.line, character: word.start }, end: { line: params.position.line, character: word.end } },
    };
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

async function fileHover(session: Session, repo: RepoRecord, target: string): Promise<string> {
  const uri = session.workspace.uriOf(repo, target);
  const doc = await session.ops.editor.fileDoc(repo, target);
  const lines = [`**${fileLink(target, uri)}**`, ''];
  if (doc.processing) lines.push('_Loupe is still writing the documentation for this file (processing)…_', '');
  // The doc's own title repeats the path the link above already shows.
  if (doc.markdown) lines.push(doc.markdown.replace(/^#{1,6} [^\n]*\n+/, (title) => (title.includes(target) ? '' : title)));
  return lines.join('\n');
}

function symbolHover(session: Session, repo: RepoRecord, relPath: string, name: string): string | null {
  const editor = session.ops.editor;
  const file = editor.file(repo, relPath);
  if (!file) return null;
  // Imported here? Then describe it where it is declared.
  let declaredIn = relPath;
  const imp = editor.imports(file).find((i) => i.targetPath && i.names.includes(name));
  if (imp?.targetPath) declaredIn = imp.targetPath;
  const origin = declarationOf(session, repo, declaredIn, name);
  if (!origin) return null;
  const { symbol, path: where } = origin;
  const uri = session.workspace.uriOf(repo, where);
  const lines: string[] = [];
  if (symbol.signature) lines.push('```typescript', symbol.signature, '```');
  else lines.push(`\`${symbol.kind} ${symbol.name}\``);
  if (symbol.doc) lines.push('', symbol.doc);
  lines.push('', `Declared in ${fileLink(`${where}:${symbol.startLine}`, `${uri}#L${symbol.startLine}`)}`);
  if (symbol.exported) {
    const uses = session.ops.editor.symbolUses(repo, where, name);
    const files = [...new Map(uses.map((u) => [u.path, u])).values()];
    if (files.length) {
      const listed = files.slice(0, MAX_USERS_LISTED)
        .map((u) => fileLink(u.path, `${session.workspace.uriOf(repo, u.path)}#L${u.line}`)).join(', ');
      const more = files.length > MAX_USERS_LISTED ? ` and ${files.length - MAX_USERS_LISTED} more` : '';
      lines.push('', `Used in ${files.length} ${files.length === 1 ? 'file' : 'files'}: ${listed}${more}`);
    } else {
      lines.push('', 'Not used by other files of the workspace.');
    }
  }
  return lines.join('\n');
}

/** The symbol `name` declared in `relPath`, following one level of re-export (a barrel `index.ts`). */
function declarationOf(session: Session, repo: RepoRecord, relPath: string, name: string, depth = 0): { symbol: ParsedSymbol; path: string } | null {
  const editor = session.ops.editor;
  const file = editor.file(repo, relPath);
  if (!file) return null;
  const symbol = editor.symbols(file).find((s) => s.name === name && s.parent === null);
  if (symbol) return { symbol, path: relPath };
  if (depth >= 3) return null;
  for (const i of editor.imports(file)) {
    if ((i.kind === 'export' || i.kind === 'export-all') && i.targetPath && (i.names.includes(name) || i.names.includes('*'))) {
      const found = declarationOf(session, repo, i.targetPath, name, depth + 1);
      if (found) return found;
    }
  }
  return null;
}
