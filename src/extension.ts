// VS Code entry point: wires the host (store + endpoint) and the surfaces. Nothing else lives here.

import * as vscode from 'vscode';
import { BatonHost } from './vscode/host';

let host: BatonHost | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<{ host: BatonHost }> {
  host = new BatonHost(context);
  context.subscriptions.push(host);
  host.start();
  return { host };
}

export async function deactivate(): Promise<void> {
  await host?.stop();
  host = undefined;
}
