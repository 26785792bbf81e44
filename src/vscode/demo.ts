// "Explore a demo" (docs/demo.md): this window's Baton switches to a demo data directory that the
// bundled CLI fills with `baton demo` (the recorded sessions, through `baton import`'s code), and
// back with "Leave Demo". The choice is this workspace's (workspaceState), never a setting, so the
// user's own data directory stays configured as it was. A data directory holding the demo marker
// (from here, or `BATON_DATA_DIR` as `npm start` sets it) is labelled "Demo data" everywhere.

import { execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultDemoDataDir, readDemoMarker, type DemoMarker } from '../node/demoData';
import { Disposable } from '../core/disposable';
import type { BatonHost } from './host';
import type { BatonSettings } from './settings';

const STATE_KEY = 'baton.demoDataDir';
/** Context key: menus offer "Leave Demo" while it is set. */
const CONTEXT_KEY = 'baton.demo';
const CLI_TIMEOUT_MS = 120_000;

/** The settings with the demo's data directory in place while this workspace explores it. */
export function withDemoOverride(context: vscode.ExtensionContext, settings: BatonSettings): BatonSettings {
  const dir = context.workspaceState.get<string>(STATE_KEY);
  return dir ? { ...settings, dataDir: dir } : settings;
}

export class DemoMode extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<boolean>());
  /** Fires with whether this window now shows demo data. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: BatonHost,
    private readonly currentSettings: () => BatonSettings,
  ) {
    super();
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, this.active);
  }

  /** The demo directory this window switched to, if any. */
  get override(): string | undefined {
    return this.context.workspaceState.get<string>(STATE_KEY);
  }

  apply(settings: BatonSettings): BatonSettings {
    return withDemoOverride(this.context, settings);
  }

  /** Whether this window's data directory is a demo (switched here, or named by the environment). */
  get active(): boolean {
    return this.marker !== null;
  }

  get marker(): DemoMarker | null {
    return readDemoMarker(this.host.dataDir);
  }

  /** Fills the demo directory with the bundled CLI, then switches this window to it. */
  async explore(dataDir = defaultDemoDataDir()): Promise<string> {
    const target = path.resolve(dataDir);
    if (this.host.dataDir !== target) {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Baton: preparing the demo data…' }, () =>
        this.runCli(['demo', '--data-dir', target, '--json']),
      );
      await this.context.workspaceState.update(STATE_KEY, target);
      await this.host.applySettings(this.apply(this.currentSettings()));
    }
    await this.announce();
    return target;
  }

  /** Back to the data directory of the settings; the demo files stay until removed. */
  async leave(): Promise<void> {
    const wasOverride = this.override;
    await this.context.workspaceState.update(STATE_KEY, undefined);
    if (wasOverride) await this.host.applySettings(this.currentSettings());
    await this.announce();
    if (this.active)
      void vscode.window.showInformationMessage(
        `Baton: ${this.host.dataDir} is a demo directory named by BATON_DATA_DIR or baton.dataDir; change that to leave it.`,
      );
  }

  /** Leaves the demo if this window shows it, then deletes the demo directory (`baton demo --remove`). */
  async remove(dataDir?: string): Promise<void> {
    const target = path.resolve(dataDir ?? this.override ?? defaultDemoDataDir());
    if (this.override === target) await this.leave();
    if (this.host.dataDir === target) throw new Error(`this window still uses ${target}: change BATON_DATA_DIR or baton.dataDir first`);
    const { removed } = JSON.parse(await this.runCli(['demo', '--remove', '--data-dir', target, '--json'])) as { removed: boolean };
    void vscode.window.showInformationMessage(removed ? `Baton: removed the demo data in ${target}.` : `Baton: there is no demo data in ${target}.`);
  }

  private async announce(): Promise<void> {
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY, this.active);
    this.changed.fire(this.active);
  }

  /** The extension's own bundled CLI, with the runtime this window runs on (Electron told to act as Node). */
  private runCli(args: string[]): Promise<string> {
    const cli = path.join(this.context.extensionPath, 'dist', 'cli.js');
    const env = { ...process.env, ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}) };
    return new Promise((resolve, reject) => {
      execFile(process.execPath, [cli, ...args], { env, timeout: CLI_TIMEOUT_MS }, (err, stdout, stderr) => {
        if (err) reject(new Error(stderr.trim().replace(/^error:\s*/, '') || err.message));
        else resolve(stdout);
      });
    });
  }
}

/** Explore a Demo / Leave Demo / Remove Demo Data; failures become notifications and log lines. */
export function registerDemoCommands(demo: DemoMode, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: never[]) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        log.error(`${id}: ${(err as Error).message}`);
        void vscode.window.showErrorMessage(`Baton: ${(err as Error).message}`);
        return undefined;
      }
    });
  return [
    // An explicit directory is for tests and scripts; the palette and the welcome view use the default.
    reg('baton.exploreDemo', async (dataDir?: string) => {
      const dir = await demo.explore(typeof dataDir === 'string' ? dataDir : undefined);
      await vscode.commands.executeCommand('baton.sessions.focus');
      return dir;
    }),
    reg('baton.leaveDemo', () => demo.leave()),
    reg('baton.removeDemo', (dataDir?: string) => demo.remove(typeof dataDir === 'string' ? dataDir : undefined)),
  ];
}

/**
 * With `BATON_DEMO_FOCUS=1` (npm start sets it) and a demo data directory: what a newcomer sees
 * first is Baton. The Sessions view in focus with the demo's featured session selected, and what a
 * new sub-agent of it would inherit open in the editor area, once the store is open.
 */
export async function focusDemoAtStartup(demo: DemoMode, host: BatonHost, log: vscode.LogOutputChannel): Promise<void> {
  if (process.env.BATON_DEMO_FOCUS !== '1') return;
  await host.ready;
  const featured = demo.marker?.featured;
  if (!featured) return;
  try {
    await vscode.commands.executeCommand('baton.sessions.focus');
    const node = await vscode.commands.executeCommand('baton.revealSession', featured);
    if (!node) return;
    // Opened last, and without taking the focus from the tree: nothing of the start moves the focus after it.
    await vscode.commands.executeCommand('baton.previewInherited', node, { preserveFocus: true });
  } catch (err) {
    log.warn(`Demo: could not select ${featured}: ${(err as Error).message}`);
  }
}
