// Reports Baton opens for reading (Check Hooks, Run Doctor, recovery details) are read-only virtual
// documents with a URI of their own. Untitled documents with content were used before, but VS Code
// reuses the name "Untitled-N" of one just closed, and an extension host that had not yet dropped
// the closed one handed back its old text for the new one: a report showing an earlier report.

import * as vscode from 'vscode';

export const REPORT_SCHEME = 'baton-report';

/** How many reports stay readable (VS Code asks again when a closed report's tab is reopened). */
const KEPT = 50;

const contents = new Map<string, string>();
let opened = 0;

/** Serves the reports' text; registered once, at activation. */
export function registerReportDocuments(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
    provideTextDocumentContent: (uri) => contents.get(uri.path) ?? '',
  });
}

/**
 * Opens `content` as a new read-only document titled `fileName` (its extension picks the language:
 * `.md` for Markdown, `.txt` for plain text) and shows it in a preview editor.
 */
export async function openReport(fileName: string, content: string): Promise<vscode.TextDocument> {
  opened += 1;
  // A folder per report keeps the tab title the plain file name and every report's URI unique.
  const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${opened}/${fileName}` });
  contents.set(uri.path, content);
  for (const key of contents.keys()) {
    if (contents.size <= KEPT) break;
    contents.delete(key);
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true });
  return doc;
}
