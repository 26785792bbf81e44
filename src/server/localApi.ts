// The API in-process, for a command that runs while no server holds the data directory: the very
// handlers the server dispatches to, called as the user (like the admin token), over either the
// store opened for the command's duration or, for a command that only reads, a lock-free view of
// the files (src/store/lockFreeReadView.ts) that answers any write with an error. A CLI command or the
// importer thus runs the same rules whether a server is up or not.

import { ApiClient, httpTransport, type ApiAccess } from '../api/client';
import { liveEndpoint } from '../node/endpoint';
import { BatonError } from '../core/errors';
import { ReadView } from '../store/lockFreeReadView';
import type { RecoveryEvent } from '../store/engine/recovery';
import type { StorageStatus } from '../store/engine/sizeLimit';
import { Store, type StoreAccess } from '../store/store';
import type { ReadArgs, ReadName } from '../store/reads';
import { loadConfig } from './config';
import { ADMIN_CALLER, inProcessClient } from './dispatch';
import { composeServices } from './services';

export interface LocalApi {
  client: ApiClient;
  close(): Promise<void>;
}

/** `onRecovery`: told each recovery event of the open (file names and numbers only, docs/storage.md). */
export type LocalOpen = ({ readOnly: true } | { holder: string }) & { onRecovery?(message: string): void };

export async function openLocalApi(dataDir: string, opts: LocalOpen): Promise<LocalApi> {
  // Before the store opens: a broken config.json then leaves nothing open behind it.
  const config = loadConfig(dataDir);
  let store: StoreAccess;
  let events: RecoveryEvent[] = [];
  let storage: () => Promise<StorageStatus | null> = async () => null;
  let close: () => Promise<void>;
  if ('readOnly' in opts) {
    const view = await ReadView.open(dataDir);
    events = view.report.events;
    for (const event of events) opts.onRecovery?.(event.message);
    store = {
      read: async <N extends ReadName>(name: N, args: ReadArgs<N>) => view.read(name, args),
      write: async () => {
        throw new BatonError('unavailable', 'this command only reads the store');
      },
    };
    close = async () => view.close();
  } else {
    const opened = await Store.open({ dataDir, holder: opts.holder });
    events = opened.report.events;
    for (const event of events) opts.onRecovery?.(event.message);
    store = opened;
    storage = async () => (await opened.status()).storage;
    close = () => opened.close();
  }
  const { runs, dispatch } = composeServices({ store, config, dataDir, recovery: () => events, storage, readOnly: 'readOnly' in opts });
  // Holding the store now: runs a crashed process left unfinished are failed, their children ended (docs/runs.md).
  if (!('readOnly' in opts)) {
    try {
      await runs.reconcile();
    } catch (err) {
      await close();
      throw err;
    }
  }
  // Runs started in-process live as long as this process holds the store: closing waits for them.
  return {
    client: inProcessClient(dispatch, ADMIN_CALLER),
    close: async () => {
      await runs.drain();
      await close();
    },
  };
}

/**
 * "The running server, else the store itself", the one place that decides it: over HTTP when a
 * server holds the data directory (never behind its back), else in-process (openLocalApi).
 */
export async function openApi(dataDir: string, opts: LocalOpen, timeoutMs = 30_000): Promise<ApiAccess> {
  const endpoint = liveEndpoint(dataDir);
  if (endpoint) return { api: new ApiClient(httpTransport(endpoint, timeoutMs)), via: 'server', close: async () => undefined };
  const local = await openLocalApi(dataDir, opts);
  return { api: local.client, via: 'store', close: () => local.close() };
}
