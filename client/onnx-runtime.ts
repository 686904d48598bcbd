import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { currentSettings } from './settings';
import { runtimeModules } from './server-process';

/** The onnxruntime-node the ONNX embedding provider loads (not in the .vsix: ~45 MB per platform, off by default). */
export const ONNX_RUNTIME = 'onnxruntime-node@1.30.0';

export function onnxRuntimeInstalled(context: vscode.ExtensionContext): boolean {
  return fs.existsSync(path.join(runtimeModules(context), 'onnxruntime-node', 'package.json'));
}

/**
 * `loupe.embedding.provider: onnx` needs onnxruntime-node. It is installed on demand with npm into
 * the extension's storage (a task the user sees), then the server restarts and loads it.
 */
export function registerOnnxRuntime(ctx: Ctx): void {
  const offer = async () => {
    if (currentSettings().embedding.provider !== 'onnx' || onnxRuntimeInstalled(ctx.extension)) return;
    const choice = await vscode.window.showWarningMessage(
      `Loupe: ONNX embeddings need ${ONNX_RUNTIME}, which is not installed. Install it now with npm (about 45 MB)?`, 'Install', 'Not now',
    );
    if (choice === 'Install') await vscode.commands.executeCommand('loupe.installOnnxRuntime');
  };
  ctx.push(vscode.commands.registerCommand('loupe.installOnnxRuntime', async () => {
    const prefix = path.dirname(runtimeModules(ctx.extension));
    fs.mkdirSync(prefix, { recursive: true });
    const task = new vscode.Task({ type: 'shell' }, vscode.TaskScope.Workspace, 'Install the ONNX runtime', 'Loupe',
      new vscode.ShellExecution('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, ONNX_RUNTIME]));
    const execution = await vscode.tasks.executeTask(task);
    const code = await new Promise<number | undefined>((resolve) => {
      const done = vscode.tasks.onDidEndTaskProcess((e) => { if (e.execution === execution) { done.dispose(); resolve(e.exitCode); } });
    });
    if (code !== 0 || !onnxRuntimeInstalled(ctx.extension)) {
      void vscode.window.showErrorMessage(`Loupe: installing ${ONNX_RUNTIME} failed (npm exited with ${code}). See the terminal, or install it yourself: npm install --prefix "${prefix}" ${ONNX_RUNTIME}`);
      return;
    }
    ctx.log.info(`${ONNX_RUNTIME} installed in ${prefix}; restarting the language server`);
    await ctx.restart();
  }));
  ctx.push(vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('loupe.embedding')) void offer(); }));
  void offer();
}
