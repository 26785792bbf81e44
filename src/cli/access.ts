// How a CLI command reaches the data: the API client of server/localApi.ts (the running server,
// else in-process through the same handlers). A read-only command reads a lock-free view of the
// files (src/store/readView.ts): it never creates, locks or changes anything, so reading never
// gets in a writer's way. A writing command opens the store, after checking who owns the directory.

import { liveEndpoint } from '../node/endpoint';
import type { ApiAccess } from '../api/client';
import { openApi } from '../server/localApi';
import { hasBatonData, noDataError } from '../store/readView';
import { assertOwnDataDir, warnAboutPermissions } from './dataDirChecks';
import { printRecoveryLine } from './openStore';

export type Access = ApiAccess;

export async function openAccess(dataDir: string, opts: { mode: 'read' } | { mode: 'write'; holder: string }, timeoutMs = 30_000): Promise<Access> {
  if (opts.mode === 'read' && !hasBatonData(dataDir)) throw noDataError(dataDir);
  warnAboutPermissions(dataDir);
  if (opts.mode === 'write' && !liveEndpoint(dataDir)) assertOwnDataDir(dataDir);
  return openApi(
    dataDir,
    opts.mode === 'read' ? { readOnly: true, onRecovery: printRecoveryLine } : { holder: opts.holder, onRecovery: printRecoveryLine },
    timeoutMs,
  );
}
