// The API in-process, for a command that runs while no server holds the data directory: the
// store opened for the command's duration and the very handlers the server dispatches to, called
// as the user (like the admin token). A CLI command or the importer thus runs the same rules
// whether a server is up or not.

import { ApiClient, type Transport } from '../api/client';
import { Store } from '../store/store';
import { loadConfig } from './config';
import { ADMIN_CALLER, createDispatch } from './dispatch';
import { MemoryService } from './memoryService';
import { SessionService } from './sessionService';

export interface LocalApi {
  client: ApiClient;
  store: Store;
  close(): Promise<void>;
}

export async function openLocalApi(dataDir: string, holder: string): Promise<LocalApi> {
  const store = await Store.open({ dataDir, holder });
  const config = loadConfig(dataDir);
  const dispatch = createDispatch({ store, config, sessions: new SessionService(store, config), memory: new MemoryService(store, dataDir) });
  const transport: Transport = {
    send: (id, input) => dispatch(id, { body: input.body ?? {}, query: input.query }, { caller: ADMIN_CALLER, params: input.params, header: () => undefined }),
  };
  return { client: new ApiClient(transport), store, close: () => store.close() };
}
