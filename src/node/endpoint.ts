// endpoint.json, the server's side: how local clients (hook commands, the CLI, other VS Code
// windows) find and authenticate to the running server. Written atomically with mode 0600: it
// holds the token. Callers find it through node/endpointCall.ts.

import * as fs from 'node:fs';
import { readEndpoint, type EndpointInfo } from './endpointCall';
import { writeFileAtomic } from './fsync';
import { layout } from './paths';

// The reading side lives with the callers; re-exported for the server's own modules.
export { liveEndpoint, readEndpoint, type EndpointInfo } from './endpointCall';

export function writeEndpoint(dataDir: string, info: EndpointInfo): void {
  writeFileAtomic(layout(dataDir).endpoint, JSON.stringify(info, null, 2) + '\n', 0o600);
  fs.chmodSync(layout(dataDir).endpoint, 0o600);
}

export function removeEndpoint(dataDir: string, pid = process.pid): void {
  const info = readEndpoint(dataDir);
  if (info && info.pid === pid) fs.rmSync(layout(dataDir).endpoint, { force: true });
}
