// Server-sent events of session changes, for live UIs (the VS Code tree, `baton` followers).
// Each client only hears about sessions its token can see.

import type { ServerResponse } from 'node:http';
import type { Scope } from '../store/queries';

interface Client {
  res: ServerResponse;
  scope: Scope;
}

export class EventHub {
  private readonly clients = new Set<Client>();
  private readonly heartbeat: NodeJS.Timeout;
  private nextId = 1;

  constructor(private readonly visible: (scope: Scope, key: string) => Promise<boolean>, heartbeatMs = 15_000) {
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) client.res.write(': ping\n\n');
    }, heartbeatMs);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  attach(res: ServerResponse, scope: Scope): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write('retry: 2000\n\n');
    const client = { res, scope };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
  }

  async publish(keys: string[]): Promise<void> {
    for (const client of [...this.clients]) {
      const shown = client.scope === 'all' ? keys : (await Promise.all(keys.map(async (k) => ((await this.visible(client.scope, k)) ? k : null)))).filter((k): k is string => k !== null);
      if (shown.length === 0) continue;
      client.res.write(`id: ${this.nextId++}\nevent: sessions\ndata: ${JSON.stringify({ keys: shown, at: new Date().toISOString() })}\n\n`);
    }
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }
}
