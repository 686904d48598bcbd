import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { blueprintText, fileDocText, radiusText, searchText } from './tool-text';

/**
 * Loupe's operations as language model tools (`contributes.languageModelTools`), so agent mode in
 * Copilot Chat (or any chat that uses `vscode.lm.tools`) can search the workspace, ask for a file's
 * blast radius, read a file's docs and the repository's blueprint, from the same index the editor uses.
 */
export function registerLanguageModelTools(ctx: Ctx): void {
  if (!vscode.lm?.registerTool) return; // an editor without the tools API
  const text = (value: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
  const register = <T>(name: string, invoke: (input: T, token: vscode.CancellationToken) => Promise<string>, confirm: (input: T) => string) =>
    ctx.push(vscode.lm.registerTool<T>(name, {
      invoke: async (options, token) => text(await invoke(options.input, token)),
      prepareInvocation: (options) => ({ invocationMessage: confirm(options.input) }),
    }));

  register<{ query: string; mode?: 'semantic' | 'grep_code' | 'grep_docs'; scope?: 'code' | 'functions' | 'files' | 'all'; paths?: string[]; limit?: number }>(
    'loupe_search',
    async (input, token) => {
      const result = await ctx.request('loupe/search', {
        query: input.query, scan_mode: input.mode ?? 'semantic', scope: input.scope ?? 'code',
        ...(input.paths?.length ? { filters: { file_paths: input.paths } } : {}), limit: Math.min(input.limit ?? 20, 50),
      }, token);
      return searchText(input.query, result);
    },
    (input) => `Searching the workspace for "${input.query}"`,
  );

  register<{ files: string[] }>(
    'loupe_blastRadius',
    async (input, token) => {
      const parts: string[] = [];
      for (const file of input.files.slice(0, 10)) parts.push(radiusText(await ctx.request('loupe/radius', { uri: resolveUri(file) }, token)));
      return parts.join('\n\n');
    },
    (input) => `Computing the blast radius of ${input.files.join(', ')}`,
  );

  register<{ file: string; depth?: 'basic' | 'summary' | 'full' }>(
    'loupe_fileDocs',
    async (input, token) => fileDocText(await ctx.request('loupe/fileDoc', { uri: resolveUri(input.file), depth: input.depth ?? 'full' }, token)),
    (input) => `Reading Loupe's docs of ${input.file}`,
  );

  register<Record<string, never>>(
    'loupe_blueprint',
    async (_input, token) => blueprintText(await ctx.request('loupe/blueprint', undefined, token)),
    () => 'Reading the workspace blueprint',
  );
}

/** A workspace-relative path (`src/a.ts`), an absolute path or a URI, as a file URI. */
export function resolveUri(file: string): string {
  if (/^[a-z][\w+.-]*:\/\//i.test(file)) return file;
  if (file.startsWith('/')) return vscode.Uri.file(file).toString();
  const folders = vscode.workspace.workspaceFolders ?? [];
  const [first, ...rest] = file.split('/');
  // `folderName/path` in a multi-root workspace, else relative to the first folder.
  const folder = folders.length > 1 ? folders.find((f) => f.name === first) : undefined;
  const base = folder ?? folders[0];
  if (!base) return vscode.Uri.file(file).toString();
  return vscode.Uri.joinPath(base.uri, ...(folder ? rest : [first, ...rest])).toString();
}
