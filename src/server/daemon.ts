// `baton serve`: the store and the HTTP endpoint in one process, with endpoint.json for clients
// and a clean shutdown (stop accepting, finish in-flight requests, snapshot, release the lock).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger, type Logger } from '../core/logger';
import { newSecret } from './security';
import { startServer, type RunningServer } from './app';
import { DEFAULT_PORT, loadConfig, type ServerConfig } from './config';
import { removeEndpoint, writeEndpoint } from '../node/endpoint';
import { Store } from '../store/store';

export interface DaemonOptions {
  dataDir: string;
  /** undefined: the default port with fallback; 0: any free port. */
  port?: number;
  config?: Partial<ServerConfig>;
  holder?: string;
  logger?: Logger;
  /** Open the store even when acknowledged writes are missing (`baton serve --accept-loss`). */
  acceptLoss?: boolean;
}

export interface Daemon {
  store: Store;
  server: RunningServer;
  token: string;
  stop(): Promise<void>;
}

/** The roots as the server checks a file against them: resolved through symbolic links; a root not there yet as written. */
function realRoots(roots: string[]): string[] {
  return roots.map((root) => {
    try {
      return fs.realpathSync(root);
    } catch {
      return path.resolve(root);
    }
  });
}

export function candidatePorts(port: number | undefined): number[] {
  if (port !== undefined) return [port];
  return [...Array.from({ length: 10 }, (_, i) => DEFAULT_PORT + i), 0];
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const config = loadConfig(options.dataDir, options.config);
  const logger = options.logger ?? silentLogger;
  const store = await Store.open({ dataDir: options.dataDir, holder: options.holder ?? 'baton serve', acceptLoss: options.acceptLoss });
  store.on('log', (level: 'info' | 'warn' | 'error', message: string) => logger[level](`store ${level}: ${message}`));
  let server: RunningServer;
  const token = newSecret();
  try {
    server = await startServer({ store, dataDir: options.dataDir, config, adminToken: token, logger }, candidatePorts(options.port));
    writeEndpoint(options.dataDir, { url: server.url, port: server.port, pid: process.pid, token, hookRoots: realRoots(config.transcriptRoots) });
    store.lock.setPort(server.port);
  } catch (err) {
    await store.close();
    throw err;
  }
  let stopping: Promise<void> | null = null;
  return {
    store,
    server,
    token,
    stop: () =>
      (stopping ??= (async () => {
        await server.close();
        removeEndpoint(options.dataDir);
        await store.close();
      })()),
  };
}
