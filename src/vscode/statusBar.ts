// The status bar item: leader or follower, the endpoint's port, the number of live sessions; a
// click opens Baton's menu.

import * as vscode from 'vscode';
import type { BatonHost } from './host';
import { Disposable, toDisposable } from '../core/disposable';

export class StatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('baton.status', vscode.StatusBarAlignment.Left, 50));
  private pending: NodeJS.Timeout | null = null;
  liveCount: number | null = null;

  constructor(
    private readonly host: BatonHost,
    /** Whether the window shows demo data: said first, so nobody mistakes it for their own. */
    private readonly demo: () => boolean = () => false,
  ) {
    super();
    this._register(toDisposable(() => this.pending && clearTimeout(this.pending)));
    this.item.name = 'Baton';
    this.item.command = 'baton.showMenu';
    this._register(host.onDidChangeRole(() => this.update()));
    this._register(host.onDidChangeSessions(() => this.schedule()));
    this.update();
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      void this.update();
    }, 300);
  }

  async update(): Promise<void> {
    const { role, port } = this.host;
    if (role === 'starting') {
      this.item.text = '$(loading~spin) Baton';
      this.item.tooltip = 'Baton is opening its store…';
      return;
    }
    if (role === 'stopped' || !this.host.client) {
      this.item.text = '$(circle-slash) Baton';
      this.item.tooltip = 'Baton is not running';
      return;
    }
    try {
      const [live, total] = await Promise.all([this.host.client.count('live'), this.host.client.count('all')]);
      this.liveCount = live;
      const icon = this.demo() ? 'beaker' : role === 'leader' ? 'broadcast' : 'plug';
      const label = this.demo() ? 'Baton: demo data ·' : 'Baton';
      this.item.text = `$(${icon}) ${label} ${role === 'leader' ? 'leader' : 'follower'} :${port} · ${live} live`;
      this.item.tooltip = new vscode.MarkdownString(
        `**Baton** — ${role === 'leader' ? 'this window holds the store' : 'following the window or daemon that holds the store'}\n\nEndpoint: \`127.0.0.1:${port}\`\n\nSessions: ${total} (${live} live)\n\nData: \`${this.host.dataDir}\`${this.demo() ? ' (demo data: Baton: Leave Demo)' : ''}`,
      );
    } catch (err) {
      this.item.text = `$(warning) Baton ${role}`;
      this.item.tooltip = `Baton: ${(err as Error).message}`;
    }
  }
}
