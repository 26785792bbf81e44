// How a CLI command reaches the data: the API client of server/localApi.ts (the running server,
// else in-process through the same handlers). A read-only command reads a lock-free view of the
// files (src/store/lockFreeReadView.ts): it never creates, locks or changes anything, so reading never
// gets in a writer's way, and a data directory with nothing recorded yet reads as empty. A writing
// command opens the store, after checking who owns the directory and that it can be written.

import { liveEndpoint } from '../node/endpointCall';
import type { ApiAccess } from '../api/client';
import { openApi } from '../server/localApi';
import { assertReadableDataDir, assertWritableDataDir, warnAboutPermissions } from './dataDirChecks';
import { printRecoveryLine } from './openStore';

export type Access = ApiAccess;

export async function openAccess(dataDir: string, opts: { mode: 'read' } | { mode: 'write'; holder: string }, timeoutMs = 30_000): Promise<Access> {
  if (opts.mode === 'read') assertReadableDataDir(dataDir);
  warnAboutPermissions(dataDir);
  if (opts.mode === 'write' && !liveEndpoint(dataDir)) assertWritableDataDir(dataDir);
  return openApi(
    dataDir,
    opts.mode === 'read' ? { readOnly: true, onRecovery: printRecoveryLine } : { holder: opts.holder, onRecovery: printRecoveryLine },
    timeoutMs,
  );
}
