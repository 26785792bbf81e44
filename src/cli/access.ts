// How a CLI command reaches the data: the API client, over HTTP to the running server when one
// holds the data directory (never behind its back), else in-process over the store opened for
// the command's duration (src/server/localApi.ts). Either way the same handlers answer.

import { ApiClient, httpTransport } from '../api/client';
import { liveEndpoint } from '../server/endpoint';
import { openLocalApi } from '../server/localApi';

export interface Access {
  api: ApiClient;
  close(): Promise<void>;
}

export async function openAccess(dataDir: string, holder: string, timeoutMs = 30_000): Promise<Access> {
  const endpoint = liveEndpoint(dataDir);
  if (endpoint) return { api: new ApiClient(httpTransport(endpoint, timeoutMs)), close: async () => undefined };
  const local = await openLocalApi(dataDir, holder);
  return { api: local.client, close: () => local.close() };
}
