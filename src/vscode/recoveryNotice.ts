// Makes damage found when this window opened the store visible: each recovery event goes to the
// Baton log, and a warning (or, when the store refused to open, an error) offers "Show details",
// which opens a read-only document listing what happened and what to run (docs/storage.md).

import * as vscode from 'vscode';
import type { RecoveryEvent } from '../store/engine/recovery';
import { openReport } from './reportDocuments';

const SHOW = 'Show details';

async function showDetails(title: string, lines: string[]): Promise<void> {
  await openReport('Baton store recovery.txt', [title, '', ...lines, ''].join('\n'));
}

/** The store opened, but recovered from damage: say what it did. */
export function noticeRecovery(log: vscode.LogOutputChannel, dataDir: string, events: RecoveryEvent[]): void {
  if (events.length === 0) return;
  for (const event of events) log.warn(`recovery: ${event.message}`);
  const lost = events.some((e) => e.kind === 'loss-accepted');
  const summary = lost
    ? `Baton opened its store in ${dataDir} without some writes that damaged files held.`
    : `Baton recovered its store in ${dataDir} from damaged files; nothing acknowledged was lost.`;
  void vscode.window.showWarningMessage(summary, SHOW).then((choice) => {
    if (choice === SHOW)
      void showDetails(summary, [
        ...events.map((e) => `- ${e.message}`),
        '',
        `Damaged files are kept in ${dataDir}/quarantine. For a full report run: baton doctor --data-dir ${dataDir}`,
      ]);
  });
}

/** The store is near or at its size limit (docs/storage.md, "How big a store can grow"): say so at every start. */
export function noticeStorage(log: vscode.LogOutputChannel, message: string | null): void {
  if (!message) return;
  log.warn(`storage: ${message}`);
  void vscode.window.showWarningMessage(`Baton: ${message}`);
}

/** The store refused to open (acknowledged writes would be missing): nothing is served from it. */
export function noticeRefusal(log: vscode.LogOutputChannel, dataDir: string, message: string): void {
  log.error(message);
  const summary = `Baton did not open its store in ${dataDir}: damaged files mean acknowledged writes would be missing.`;
  void vscode.window.showErrorMessage(summary, SHOW).then((choice) => {
    if (choice === SHOW) {
      void showDetails(summary, [
        message,
        '',
        `For a full report run: baton doctor --data-dir ${dataDir}`,
        `To open it anyway without those writes, run once: baton serve --accept-loss --data-dir ${dataDir} (then stop it)`,
      ]);
    }
  });
}
