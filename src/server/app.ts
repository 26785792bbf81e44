// The Baton HTTP server: 127.0.0.1 only, origin and host checks before anything else, bearer
// tokens, JSON errors, request timeouts, graceful close. Used by `baton serve` and, in-process,
// by the VS Code extension.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatonError } from '../core/errors';
import type { Store } from '../store/store';
import type { SessionChange } from '../store/engine';
import type { ServerConfig } from './config';
import { EventHub } from './events';
import { readJsonBody, sendError, sendJson } from './http';
import { MemoryService } from './memoryService';
import { buildRoutes, matchPath, type Route } from './routes';
import { bearerOf, checkOrigin, hashSecret, readScope, requirePermission, sameSecret, type Caller, type Permission } from './security';
import { SessionService } from './sessionService';
import { handleMcp } from './mcp';
import { handleClaudeCodeEvent, type ApiPoster, type ClaudeCodePayload } from '../harnesses/claudeCode/hooks';

export interface ServerOptions {
  store: Store;
  dataDir: string;
  config: ServerConfig;
  /** The admin token (the one in endpoint.json). */
  adminToken: string;
  log?(line: string): void;
}

export interface RunningServer {
  port: number;
  url: string;
  server: http.Server;
  sessions: SessionService;
  memory: MemoryService;
  events: EventHub;
  /** Stop accepting, let in-flight requests finish, end event streams. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions, ports: number[]): Promise<RunningServer> {
  const { store, config } = options;
  const adminHash = hashSecret(options.adminToken);
  const sessions = new SessionService(store, config);
  const memory = new MemoryService(store, options.dataDir);
  const events = new EventHub(async (agentId) => (await store.read('agentPolicy', { agentId })) === 'shared');
  const onChange = (changes: SessionChange[]) => void events.publish(changes);
  store.on('change', onChange);
  const routes = buildRoutes({ store, config, sessions, memory, events });
  let port = 0;
  let inFlight = 0;

  async function authenticate(req: http.IncomingMessage): Promise<Caller> {
    const secret = bearerOf(req);
    if (!secret) throw new BatonError('unauthorized', 'a bearer token is required (Authorization: Bearer <token> from endpoint.json)');
    if (sameSecret(secret, adminHash)) return { tokenId: 'admin', agentId: null, permissions: new Set<Permission>(['remember', 'recall', 'admin']), admin: true };
    const token = await store.read('tokenByHash', { secretHash: hashSecret(secret) });
    if (!token) throw new BatonError('unauthorized', 'invalid or revoked token');
    const permissions = new Set(token.permissions as Permission[]);
    return { tokenId: token.id, agentId: token.agentId, permissions, admin: false };
  }

  function findRoute(method: string, pathname: string): { route: Route; params: Record<string, string> } | null {
    let pathMatched = false;
    for (const route of routes) {
      const params = matchPath(route.path, pathname);
      if (!params) continue;
      pathMatched = true;
      if (route.method === method) return { route, params };
    }
    if (pathMatched) throw new BatonError('invalid_request', `method ${method} is not allowed on ${pathname}`);
    return null;
  }

  /** Calls a POST route in-process as the given caller (for adapters such as Claude Code's HTTP hooks). */
  function internalPoster(caller: Caller): ApiPoster {
    return {
      post: async <T>(route: string, body: unknown) => {
        const found = findRoute('POST', route);
        if (!found) throw new BatonError('not_found', `no route ${route}`);
        if (found.route.permission) requirePermission(caller, found.route.permission);
        return (await found.route.handle({
          req: { headers: {} } as http.IncomingMessage,
          res: {} as http.ServerResponse,
          caller,
          params: found.params,
          query: new URLSearchParams(),
          body: async () => body as Record<string, unknown>,
        })) as T;
      },
    };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<number> {
    checkOrigin(req, port);
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname === '/api/events' && req.method === 'GET') {
      const caller = await authenticate(req);
      requirePermission(caller, 'recall');
      events.attach(res, readScope(caller));
      return 200;
    }
    if (url.pathname === '/mcp') {
      const caller = await authenticate(req);
      requirePermission(caller, 'recall');
      const body = req.method === 'POST' ? await readJsonBody(req, { maxBytes: config.maxBodyBytes }) : undefined;
      await handleMcp(req, res, body, port, { store, sessions, caller });
      return res.statusCode;
    }
    if (url.pathname === '/api/hooks/claude-code' && req.method === 'POST') {
      // Claude Code's HTTP hooks post the raw hook payload; answer with the hook output.
      const caller = await authenticate(req);
      requirePermission(caller, 'remember');
      const payload = await readJsonBody(req, { maxBytes: config.maxBodyBytes });
      sendJson(res, 200, (await handleClaudeCodeEvent(payload as ClaudeCodePayload, internalPoster(caller))) ?? {});
      return 200;
    }
    const found = findRoute(req.method ?? 'GET', url.pathname);
    if (!found) throw new BatonError('not_found', `no route ${req.method} ${url.pathname}`);
    const caller: Caller = found.route.permission === null ? { tokenId: 'none', agentId: null, permissions: new Set(), admin: false } : await authenticate(req);
    if (found.route.permission) requirePermission(caller, found.route.permission);
    let body: Promise<Record<string, unknown>> | null = null;
    const result = await found.route.handle({
      req,
      res,
      caller,
      params: found.params,
      query: url.searchParams,
      body: () => (body ??= readJsonBody(req, { maxBytes: config.maxBodyBytes })),
    });
    sendJson(res, 200, result);
    return 200;
  }

  const server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: 5_000,
      // Node checks those timeouts only this often (30 s by default): slow clients must be cut on time.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(config.headersTimeoutMs / 2))),
    },
    (req, res) => {
    const started = process.hrtime.bigint();
    inFlight++;
    res.on('close', () => inFlight--);
    handle(req, res)
      .catch((err: unknown) => {
        if (err instanceof BatonError && err.code === 'payload_too_large') res.setHeader('connection', 'close');
        const status = sendError(res, err);
        if (!(err instanceof BatonError)) options.log?.(`error ${req.method} ${req.url?.split('?')[0]}: ${(err as Error).message}`);
        return status;
      })
      .then((status) => {
        // Method, path and status only: never bodies, tokens or transcript text.
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        options.log?.(`${req.method} ${req.url?.split('?')[0]} ${status} ${ms.toFixed(1)}ms`);
        if (status === 413) req.resume();
      });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-type: application/json\r\n\r\n{"error":"bad request","code":"invalid_request"}');
    else socket.destroy();
  });

  for (let i = 0; i < ports.length; i++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(ports[i], '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || i === ports.length - 1) throw err;
    }
  }
  port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    server,
    sessions,
    memory,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        store.off('change', onChange);
        events.close();
        server.close(() => resolve());
        server.closeIdleConnections();
        const deadline = Date.now() + 10_000;
        const wait = setInterval(() => {
          if (inFlight === 0 || Date.now() > deadline) {
            clearInterval(wait);
            server.closeAllConnections();
          }
        }, 20);
      }),
  };
}
