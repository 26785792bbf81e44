// Hosts Baton inside the extension host: the store and the hook endpoint in-process on the
// embedded sql.js store. Start-up work happens in the background, never in activate().

import * as vscode from 'vscode';
import { startDaemon, type Daemon } from '../server/daemon';
import { resolveDataDir } from '../store/paths';

export class BatonHost implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  private daemon: Daemon | null = null;
  private starting: Promise<Daemon | null> | null = null;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Baton', { log: true });
    this.disposables.push(this.log);
    this.disposables.push(vscode.commands.registerCommand('baton.showLog', () => this.log.show()));
  }

  get dataDir(): string {
    const configured = vscode.workspace.getConfiguration('baton').get<string>('dataDir');
    return resolveDataDir({ flag: configured || undefined });
  }

  /** Starts the store and endpoint in the background; resolves with the daemon (or null on failure). */
  start(): Promise<Daemon | null> {
    this.starting ??= startDaemon({ dataDir: this.dataDir, holder: `VS Code window (pid ${process.pid})`, log: (line) => this.log.debug(line) }).then(
      (daemon) => {
        this.daemon = daemon;
        this.log.info(`Baton endpoint ${daemon.server.url}, data in ${this.dataDir}`);
        return daemon;
      },
      (err: Error) => {
        this.log.error(`Baton could not start: ${err.message}`);
        void vscode.window.showErrorMessage(`Baton could not start: ${err.message}`);
        return null;
      },
    );
    return this.starting;
  }

  get running(): Daemon | null {
    return this.daemon;
  }

  async stop(): Promise<void> {
    const daemon = await this.starting;
    this.starting = null;
    this.daemon = null;
    await daemon?.stop();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    void this.stop();
  }
}
