// endpoint.json: how local clients (hook commands, the CLI, other VS Code windows) find and
// authenticate to the running server. Written atomically with mode 0600: it holds the token.

import * as fs from 'node:fs';
import { writeFileAtomic } from './fsync';
import { lockHolder } from './lock';
import { layout } from './paths';

export interface EndpointInfo {
  url: string;
  port: number;
  pid: number;
  token: string;
}

export function writeEndpoint(dataDir: string, info: EndpointInfo): void {
  writeFileAtomic(layout(dataDir).endpoint, JSON.stringify(info, null, 2) + '\n', 0o600);
  fs.chmodSync(layout(dataDir).endpoint, 0o600);
}

export function readEndpoint(dataDir: string): EndpointInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(layout(dataDir).endpoint, 'utf8')) as EndpointInfo;
    return typeof info.port === 'number' && typeof info.token === 'string' ? info : null;
  } catch {
    return null;
  }
}

/** The endpoint of the live holder of the data directory, or null when nobody serves it. */
export function liveEndpoint(dataDir: string): EndpointInfo | null {
  const info = readEndpoint(dataDir);
  const holder = lockHolder(layout(dataDir).lock);
  return info && holder && holder.pid === info.pid ? info : null;
}

export function removeEndpoint(dataDir: string, pid = process.pid): void {
  const info = readEndpoint(dataDir);
  if (info && info.pid === pid) fs.rmSync(layout(dataDir).endpoint, { force: true });
}
