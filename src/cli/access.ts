// How a CLI command reaches the data: the API client, over HTTP to the running server when one
// holds the data directory (never behind its back), else in-process through the same handlers
// (src/server/localApi.ts). A read-only command then reads a lock-free view of the files
// (src/store/readView.ts): it never creates, locks or changes anything, so reading never gets in
// a writer's way. A writing command opens the store, after checking who owns the directory.

import { ApiClient, httpTransport } from '../api/client';
import { liveEndpoint } from '../server/endpoint';
import { openLocalApi } from '../server/localApi';
import { hasBatonData, noDataError } from '../store/readView';
import { assertOwnDataDir, warnAboutPermissions } from './dataDirChecks';

export interface Access {
  api: ApiClient;
  close(): Promise<void>;
}

export async function openAccess(dataDir: string, opts: { mode: 'read' } | { mode: 'write'; holder: string }, timeoutMs = 30_000): Promise<Access> {
  if (opts.mode === 'read' && !hasBatonData(dataDir)) throw noDataError(dataDir);
  warnAboutPermissions(dataDir);
  const endpoint = liveEndpoint(dataDir);
  if (endpoint) return { api: new ApiClient(httpTransport(endpoint, timeoutMs)), close: async () => undefined };
  if (opts.mode === 'write') assertOwnDataDir(dataDir);
  const local = await openLocalApi(dataDir, opts.mode === 'read' ? { readOnly: true } : { holder: opts.holder });
  return { api: local.client, close: () => local.close() };
}
