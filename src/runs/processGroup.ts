// A run's child lives in a process group of its own (docs/runs.md, "Ending a child"): whatever it
// starts in turn (a shell's background job, an MCP server) is in that group, so ending the run
// ends all of it, not only the process Baton started. A process is recognised later (after a
// restart) by its identity: the boot it belongs to and its start time, so a recycled pid is never
// taken for the child it replaced.

import * as fs from 'node:fs';

/** Whether signals go to whole groups here (POSIX); elsewhere only the child itself is signalled. */
export const PROCESS_GROUPS = process.platform !== 'win32';

/** How long a group has after SIGTERM before it gets SIGKILL. */
export const KILL_GRACE_MS = 2000;
const POLL_MS = 50;

/**
 * `boot id:start time` of a live process (Linux: /proc/sys/kernel/random/boot_id and field 22 of
 * /proc/PID/stat, in clock ticks since boot), or null when it does not run or this system has no
 * /proc. Two processes with the same identity are the same process.
 */
export function processIdentity(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or ')': count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTime = fields[22 - 3];
    if (!startTime || !/^\d+$/.test(startTime)) return null;
    return `${bootId()}:${startTime}`;
  } catch {
    return null;
  }
}

let cachedBootId: string | undefined;
function bootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = 'unknown-boot';
    }
  }
  return cachedBootId;
}

/** Whether any process of group `pgid` still exists. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(PROCESS_GROUPS ? -pgid : pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(PROCESS_GROUPS ? -pgid : pgid, signal);
  } catch {
    // Gone already.
  }
}

/**
 * Ends group `pgid`: SIGTERM, then SIGKILL to whatever is left after `graceMs`. Resolves once the
 * group is empty or SIGKILL has been sent (which cannot be ignored), never later.
 */
export async function endGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!groupAlive(pgid)) return;
  }
  signalGroup(pgid, 'SIGKILL');
}
