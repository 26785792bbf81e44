// Server-sent events of session changes, for live UIs (the VS Code tree, `baton` followers).
// Each client only hears about sessions its token can see.

import type { ServerResponse } from 'node:http';
import type { Scope, SessionChange } from '../core/agents';

interface Client {
  res: ServerResponse;
  scope: Scope;
}

export class EventHub {
  private readonly clients = new Set<Client>();
  private readonly heartbeat: NodeJS.Timeout;
  private nextId = 1;

  constructor(
    private readonly isShared: (agentId: string) => Promise<boolean>,
    heartbeatMs = 15_000,
  ) {
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

  /** A client hears of a change when its scope covers the session's agent: its own, or a shared one. */
  async publish(changes: SessionChange[]): Promise<void> {
    // Looking up read policies costs a store round trip: only when a scoped listener needs them.
    if (![...this.clients].some((client) => client.scope !== 'all')) {
      for (const client of [...this.clients])
        this.write(
          client,
          changes.map((c) => c.key),
        );
      return;
    }
    const shared = new Map<string, boolean>();
    for (const c of changes) if (!shared.has(c.agentId)) shared.set(c.agentId, await this.isShared(c.agentId));
    for (const client of [...this.clients]) {
      const scope = client.scope;
      this.write(
        client,
        changes.filter((c) => scope === 'all' || c.agentId === scope.agentId || shared.get(c.agentId)).map((c) => c.key),
      );
    }
  }

  private write(client: { res: ServerResponse }, keys: string[]): void {
    const shown = [...new Set(keys)];
    if (shown.length === 0) return;
    client.res.write(`id: ${this.nextId++}\nevent: sessions\ndata: ${JSON.stringify({ keys: shown, at: new Date().toISOString() })}\n\n`);
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }
}
