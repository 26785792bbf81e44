// Integrated terminals get BATON_DATA_DIR and BATON_URL (never the token: it stays in the 0600
// endpoint.json), so `baton` and harness hooks started there find this window's store.

import * as vscode from 'vscode';
import type { BatonHost } from './host';

export function syncTerminalEnvironment(collection: vscode.GlobalEnvironmentVariableCollection, host: BatonHost): vscode.Disposable {
  collection.persistent = false;
  collection.description = new vscode.MarkdownString('Baton: `BATON_DATA_DIR` and `BATON_URL` of the Baton store this window uses.');
  const apply = () => {
    collection.replace('BATON_DATA_DIR', host.dataDir);
    if (host.port) collection.replace('BATON_URL', `http://127.0.0.1:${host.port}`);
    else collection.delete('BATON_URL');
  };
  apply();
  return host.onDidChangeRole(apply);
}
