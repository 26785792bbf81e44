// Keeps this workspace's VS Code agent-mode chats in Baton even without Baton's hooks: VS Code saves
// each chat session as workspaceStorage/<hash>/chatSessions/<id>.jsonl, where <hash> is this
// workspace's storage folder (the parent of the extension's own `context.storageUri`). The folder
// is imported once at start and again (debounced) whenever a file in it changes; the import is
// idempotent and leaves sessions the hooks recorded live alone (docs/harnesses.md, "VS Code agent mode").
// Which harnesses save sessions there, and how they are read, comes from the registry: each
// importer with a `workspace` folder gets a watcher of its own.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApiAccess } from '../api/client';
import { Disposable, toDisposable } from '../core/disposable';
import type { HarnessImporter } from '../harnesses/harness';
import { HARNESSES } from '../harnesses/registry';
import type { BatonHost } from './host';

/** Chat session files are rewritten on every save: wait until VS Code has finished with one. */
const DEBOUNCE_MS = 2000;

export class ChatSessionImport extends Disposable {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    readonly folder: string,
    private readonly host: BatonHost,
    private readonly log: vscode.LogOutputChannel,
    private readonly importer: HarnessImporter & { workspace: NonNullable<HarnessImporter['workspace']> },
  ) {
    super();
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder), importer.workspace.pattern)));
    const queue = (uri: vscode.Uri) => this.queue(uri.fsPath);
    this._register(watcher.onDidCreate(queue));
    this._register(watcher.onDidChange(queue));
    this._register(toDisposable(() => clearTimeout(this.timer)));
    for (const file of importer.workspace.files(folder)) this.queue(file);
  }

  /** One import per harness that saves sessions into this workspace's storage; none without a file workspace storage. */
  static forWorkspace(context: vscode.ExtensionContext, host: BatonHost, log: vscode.LogOutputChannel): ChatSessionImport[] {
    const storage = context.storageUri;
    if (storage?.scheme !== 'file') return [];
    const workspaceStorage = path.dirname(storage.fsPath);
    return HARNESSES.flatMap((h) => {
      const importer = h.importer;
      if (!importer?.workspace) return [];
      return [new ChatSessionImport(importer.workspace.folder(workspaceStorage), host, log, { ...importer, workspace: importer.workspace })];
    });
  }

  queue(file: string): void {
    this.pending.add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), DEBOUNCE_MS);
  }

  /** Imports what is queued now (tests call it instead of waiting); resolves when done. */
  flush(): Promise<void> {
    const files = [...this.pending];
    this.pending.clear();
    this.running = this.running.then(() => this.importFiles(files));
    return this.running;
  }

  private async importFiles(files: string[]): Promise<void> {
    if (this.isDisposed || files.length === 0) return;
    let client;
    try {
      client = await this.host.requireClient();
    } catch (err) {
      this.log.warn(`Chat session import waits for the store: ${(err as Error).message}`);
      return;
    }
    const open = async (): Promise<ApiAccess> => ({ api: client, via: 'server', close: async () => {} });
    for (const file of files) {
      try {
        const result = await this.importer.run(file, { open, onWarning: (m) => this.log.warn(m) });
        if (result.turnsAdded > 0) this.log.info(`Imported ${path.basename(file)}: ${result.sessions} session(s), ${result.turnsAdded} turn(s) added`);
      } catch (err) {
        this.log.warn(`Chat session import of ${path.basename(file)}: ${(err as Error).message}`);
      }
    }
  }
}
