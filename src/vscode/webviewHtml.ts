// The HTML shell of every Baton webview: a strict Content-Security-Policy with a fresh nonce,
// only our bundled script and styles, no inline handlers, theme variables and codicons.

import * as crypto from 'node:crypto';
import * as vscode from 'vscode';

export function nonce(): string {
  return crypto.randomBytes(18).toString('base64');
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableFindWidget: true,
    retainContextWhenHidden: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'dist', 'codicons')],
  };
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, script: 'transcript' | 'inherited' | 'spend', title: string): string {
  const n = nonce();
  const asset = (...parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', ...parts));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
    `script-src 'nonce-${n}'`,
  ].join('; ');
  const escapedTitle = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('webview', 'baton.css')}">
<title>${escapedTitle}</title>
</head>
<body>
<main id="app" aria-busy="true"><p class="muted">Loading…</p></main>
<script nonce="${n}" src="${asset('webview', `${script}.js`)}"></script>
</body>
</html>`;
}
