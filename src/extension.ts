// VS Code entry point: wires settings, the host (store + endpoint, leader or follower) and the
// surfaces. Activation does no heavy work: the store opens in the background.

import * as vscode from 'vscode';
import { registerCommands } from './vscode/commands';
import { BatonHost, readSettings } from './vscode/host';
import { Panels } from './vscode/panels';
import { SessionsTree } from './vscode/sessionsTree';
import { StatusBar } from './vscode/statusBar';
import { syncTerminalEnvironment } from './vscode/terminalEnv';

export interface BatonExtensionApi {
  host: BatonHost;
  tree: SessionsTree;
  panels: Panels;
  statusBar: StatusBar;
}

let host: BatonHost | undefined;

export function activate(context: vscode.ExtensionContext): BatonExtensionApi {
  const log = vscode.window.createOutputChannel('Baton', { log: true });
  context.subscriptions.push(log);
  const { settings, errors } = readSettings();
  for (const error of errors) {
    log.warn(error);
    void vscode.window.showWarningMessage(`Baton settings: ${error}`);
  }
  host = new BatonHost(log, settings);
  const panels = new Panels(context.extensionUri, host);
  const tree = new SessionsTree(host, settings.projectFilter);
  const view = vscode.window.createTreeView('baton.sessions', { treeDataProvider: tree, showCollapseAll: true });
  const statusBar = new StatusBar(host);
  let searchLimit = settings.searchLimit;
  context.subscriptions.push(
    host,
    panels,
    tree,
    view,
    statusBar,
    ...registerCommands({ context, host, panels, tree, view, log, searchLimit: () => searchLimit }),
    syncTerminalEnvironment(context.environmentVariableCollection, host),
    host.onDidChangeRole((role) => {
      view.message = role === 'starting' ? 'Opening the Baton store…' : undefined;
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('baton')) return;
      const next = readSettings();
      for (const error of next.errors) void vscode.window.showWarningMessage(`Baton settings: ${error}`);
      searchLimit = next.settings.searchLimit;
      if (event.affectsConfiguration('baton.projectFilter')) tree.setFilter(next.settings.projectFilter);
      await host?.applySettings(next.settings);
    }),
  );
  view.message = 'Opening the Baton store…';
  host.start();
  return { host, tree, panels, statusBar };
}

export async function deactivate(): Promise<void> {
  // Flushes the final snapshot and releases the lock, so another window can lead at once.
  await host?.stop();
  host = undefined;
}
