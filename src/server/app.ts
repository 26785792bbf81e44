// The Baton HTTP server: 127.0.0.1 only, origin and host checks before anything else, bearer
// tokens, JSON errors, request timeouts, graceful close. Used by `baton serve` and, in-process,
// by the VS Code extension. Log lines name the method, the route (its pattern, never the request
// target: that may carry userinfo, a query string or session keys), the status, the duration and,
// for failures, the error class; never bodies, headers or error messages (docs/security.md).

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../core/logger';
import { BatonError, errorClassOf } from '../core/errors';
import type { Store } from '../store/store';
import type { SessionChange } from '../core/agents';
import type { ServerConfig } from './config';
import { EventHub } from './events';
import { readJsonBody, sendError, sendJson } from './http';
import type { MemoryService } from './memoryService';
import { ADMIN_CALLER, inProcessClient } from './dispatch';
import { findRoute, HOOK_HEADER, matchPath, ROUTES, type RouteId } from '../api/routes';
import { HookHealthRecorder } from '../node/hookHealth';
import { logHookProblem } from '../node/endpointCall';
import { HTTP_HOOK_SUFFIX } from '../core/hookHealth';
import { harnessById, hookHarness } from '../harnesses/registry';
import { bearerOf, checkOrigin, hashSecret, readScope, requestTarget, requirePermission, sameSecret, type Caller, type Permission } from './security';
import type { SessionService } from './sessionService';
import { composeServices } from './services';
import { startTranscriptReader } from './transcriptReader';
import { handleMcp } from './mcp';

export interface ServerOptions {
  store: Store;
  dataDir: string;
  config: ServerConfig;
  /** The admin token (the one in endpoint.json). */
  adminToken: string;
  /** Request lines at trace, failures at error; safe parts only (core/logger.ts). */
  logger?: Logger;
}

export interface RunningServer {
  port: number;
  url: string;
  server: http.Server;
  sessions: SessionService;
  memory: MemoryService;
  events: EventHub;
  /** When each harness's hooks last got through (DIR/hook-health.json). */
  hookHealth: HookHealthRecorder;
  /** Stop accepting, let in-flight requests finish (up to 10 s), end event and /mcp streams at once. */
  close(): Promise<void>;
}

function firstHeader(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function startServer(options: ServerOptions, ports: number[]): Promise<RunningServer> {
  const { store, config } = options;
  const logger = options.logger ?? silentLogger;
  const adminHash = hashSecret(options.adminToken);
  const { sessions, memory, runs, work, dispatch } = composeServices({
    store,
    config,
    dataDir: options.dataDir,
    logger,
    recovery: () => store.report.events,
    storage: async () => (await store.status()).storage,
  });
  // The reader of the files hooks name is ready before the first hook (docs/architecture.md, "Threads");
  // an in-process API (a CLI command) starts it only if a call reads one.
  startTranscriptReader();
  const events = new EventHub(async (agentId) => (await store.read('agentPolicy', { agentId })) === 'shared');
  // Before any request: runs a crashed server left unfinished are failed, their children ended (docs/runs.md).
  await runs.reconcile();
  const onChange = (changes: SessionChange[]) => void events.publish(changes);
  store.on('change', onChange);
  const hookHealth = new HookHealthRecorder(options.dataDir);
  let port = 0;
  /** Requests not yet answered, long-lived streams included. */
  const active = new Set<http.ServerResponse>();
  /** Long-lived responses (SSE at /api/events, GET /mcp): ended at close, never waited for. */
  const streams = new Set<http.ServerResponse>();
  let closing: Promise<void> | null = null;

  function openStream(res: http.ServerResponse): void {
    if (closing) throw new BatonError('unavailable', 'the server is shutting down');
    streams.add(res);
    res.on('close', () => streams.delete(res));
  }

  async function authenticate(req: http.IncomingMessage): Promise<Caller> {
    const secret = bearerOf(req);
    if (!secret) throw new BatonError('unauthorized', 'a bearer token is required (Authorization: Bearer <token> from endpoint.json)');
    if (sameSecret(secret, adminHash)) return ADMIN_CALLER;
    const token = await store.read('tokenByHash', { secretHash: hashSecret(secret) });
    if (!token) throw new BatonError('unauthorized', 'invalid or revoked token');
    const permissions = new Set(token.permissions as Permission[]);
    return { tokenId: token.id, agentId: token.agentId, permissions, admin: false };
  }

  /** What a log line may say about a request: filled in by handle() as it learns the route. */
  interface LogInfo {
    route: string;
    /** POST /api/hooks/:harness: the harness the path names, and whether a hook command relayed it. */
    harness?: string;
    relayed?: boolean;
  }

  /** The route pattern a path belongs to (`/api/sessions/:key`), whatever the method; never the path itself. */
  function routeLabel(pathname: string): string {
    if (pathname === '/api/events' || pathname === '/mcp') return pathname;
    for (const route of Object.values(ROUTES)) {
      try {
        if (matchPath(route.path, pathname) !== null) return route.path;
      } catch {
        return route.path; // an undecodable parameter: the route is known, the request is refused later
      }
    }
    return '(no route)';
  }

  /** A hook call that got through: the hook command and plugin name harness and event in a header; HTTP hooks (Harness.httpHooks) in the body. */
  function noteHook(req: http.IncomingMessage, id: RouteId, params: Record<string, string>, body: unknown): void {
    const header = firstHeader(req, HOOK_HEADER);
    if (header) {
      const [harness, event] = header.split(' ');
      if (harness && event && harnessById(harness)) hookHealth.record(harness, event);
    } else if (id === 'harnessHook') {
      const harness = hookHarness(params.harness);
      const event = (body as { hook_event_name?: unknown } | undefined)?.hook_event_name;
      if (harness && typeof event === 'string' && harness.hooks.events.includes(event)) hookHealth.record(harness.id, event);
    }
  }

  /**
   * An HTTP hook whose token was refused (revoked, or another data directory's): the harness logs
   * nothing and goes on, so the server writes the hooks.log line `baton doctor` reports.
   */
  function noteRefusedHttpHook(log: LogInfo, status: number): void {
    // A relayed hook command logs its own refusal; only a harness's own HTTP hooks need the server's line.
    const harness = log.route === ROUTES.harnessHook.path && !log.relayed ? hookHarness(log.harness) : undefined;
    if (harness?.httpHooks) logHookProblem(options.dataDir, harness.id, 'other-event', `HTTP ${status}: the HTTP hook's token was refused ${HTTP_HOOK_SUFFIX}`);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, log: LogInfo): Promise<number> {
    const url = requestTarget(req, port);
    log.route = routeLabel(url.pathname);
    checkOrigin(req, port);
    if (url.pathname === '/api/events' && req.method === 'GET') {
      const caller = await authenticate(req);
      requirePermission(caller, 'recall');
      openStream(res);
      events.attach(res, readScope(caller));
      return 200;
    }
    if (url.pathname === '/mcp') {
      const caller = await authenticate(req);
      requirePermission(caller, 'recall');
      const body = req.method === 'POST' ? await readJsonBody(req, { maxBytes: config.maxBodyBytes }) : undefined;
      // A GET opens a stream for server-initiated messages, held until the client leaves.
      if (req.method === 'GET') openStream(res);
      // Every tool goes through the API's own handlers, as this caller and with this request's headers.
      await handleMcp(req, res, body, { caller, api: inProcessClient(dispatch, caller, (name) => firstHeader(req, name)) });
      return res.statusCode;
    }
    const found = findRoute(req.method ?? 'GET', url.pathname);
    if (found.id === 'harnessHook') Object.assign(log, { harness: found.params.harness, relayed: firstHeader(req, HOOK_HEADER) !== undefined });
    if (!found.id) {
      if (found.methodMismatch) throw new BatonError('invalid_request', `method ${req.method} is not allowed on ${url.pathname}`);
      throw new BatonError('not_found', `no route ${req.method} ${url.pathname}`);
    }
    const caller: Caller =
      ROUTES[found.id].permission === null ? { tokenId: 'none', agentId: null, permissions: new Set(), admin: false } : await authenticate(req);
    if (ROUTES[found.id].permission) requirePermission(caller, ROUTES[found.id].permission!);
    const body = req.method === 'POST' ? await readJsonBody(req, { maxBytes: config.maxBodyBytes }) : undefined;
    const result = await dispatch(
      found.id,
      { body, query: Object.fromEntries(url.searchParams) },
      { caller, params: found.params, header: (name) => firstHeader(req, name) },
    );
    noteHook(req, found.id, found.params, body);
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
      active.add(res);
      res.on('close', () => active.delete(res));
      const info: LogInfo = { route: '(no route)' };
      const method = methodLabel(req.method);
      handle(req, res, info)
        .catch((err: unknown) => {
          if (err instanceof BatonError && err.code === 'payload_too_large') res.setHeader('connection', 'close');
          const status = sendError(res, err);
          if (status === 401 || status === 403) noteRefusedHttpHook(info, status);
          if (!(err instanceof BatonError)) logger.error(`error ${method} ${info.route}: ${errorClassOf(err)}`);
          return status;
        })
        .then((status) => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          logger.trace(`${method} ${info.route} ${status} ${ms.toFixed(1)}ms`);
          if (status === 413) req.resume();
        });
    },
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Node's parser refused the bytes before any route saw them: its error code only.
    logger.warn(`client error: ${errorClassOf(err)}`);
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-type: application/json\r\n\r\n{"error":"bad request","code":"invalid_request"}');
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
  // Jobs left pending by an earlier server are resumed now (docs/memory.md, "Background jobs").
  work.jobs.start();

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    server,
    sessions,
    memory,
    events,
    hookHealth,
    close: () =>
      (closing ??= (async () => {
        // Running children end first, so their runs are recorded failed while the store is open.
        await runs.close();
        // The job in progress finishes (or is resumed at the next start) before the store closes.
        const jobsStopped = work.jobs.stop();
        await new Promise<void>((resolve) => {
          store.off('change', onChange);
          // Streams never finish on their own: end them now rather than wait out the deadline.
          events.close();
          for (const res of streams) if (!res.writableEnded) res.destroy();
          server.close(() => void jobsStopped.then(() => resolve()));
          server.closeIdleConnections();
          const deadline = Date.now() + 10_000;
          const wait = setInterval(() => {
            if ([...active].every((res) => streams.has(res)) || Date.now() > deadline) {
              clearInterval(wait);
              server.closeAllConnections();
            }
          }, 20);
        });
        hookHealth.flushPending();
      })()),
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT']);

/** The request method for a log line: a known one, else a placeholder (never arbitrary request bytes). */
function methodLabel(method: string | undefined): string {
  return method && METHODS.has(method) ? method : 'OTHER';
}
