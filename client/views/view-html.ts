import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The search view's HTML: a strict CSP (scripts only with this load's nonce, styles and fonts only from
 * the extension), assets only from dist/ and media/, colours only from VS Code theme variables.
 */
export function viewHtml(webview: vscode.Webview, root: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'media', 'panel.css'));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Loupe</title>
</head>
<body>
<div id="app" data-nonce="${nonce}"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
