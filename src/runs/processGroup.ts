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

/** Whether any process of group `pgid` still runs (a zombie waiting to be reaped does not). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(PROCESS_GROUPS ? -pgid : pgid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return PROCESS_GROUPS ? groupHasLiveMember(pgid) : true;
}

/**
 * Linux: whether a process of the group is not a zombie. Dead members of the group wait to be
 * reaped by init, which in a container may take seconds; they hold nothing open. Without /proc,
 * every member counts.
 */
function groupHasLiveMember(pgid: number): boolean {
  if (!fs.existsSync('/proc/self/stat')) return true;
  return processIds().some((pid) => processGroupOf(pid) === pgid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(PROCESS_GROUPS ? -pgid : pgid, signal);
  } catch {
    // Gone already.
  }
}

/** The pid of every process this user may see (Linux: /proc), or none where there is no /proc. */
function processIds(): number[] {
  try {
    return fs
      .readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .map(Number);
  } catch {
    return [];
  }
}

/** The process group of a running process (field 5 of /proc/PID/stat), or null (also for a zombie). */
function processGroupOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name: state (field 3), ppid (4), pgrp (5).
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || state === 'X' ? null : Number(pgrp);
  } catch {
    return null;
  }
}

/**
 * The process groups of every running process started with `NAME=v` in its environment, for any
 * of `values` (Linux: /proc/PID/environ, readable for this user's own processes only). A run's
 * child and all it starts inherit BATON_RUN_ID, so this finds them after a crash even when the
 * process Baton started has gone and left its descendants running. One pass over /proc.
 */
export function groupsWithEnvironment(name: string, values: readonly string[]): number[] {
  if (values.length === 0) return [];
  const wanted = new Set(values.map((v) => `${name}=${v}`));
  const prefix = Buffer.from(`${name}=`);
  const own = processGroupOf(process.pid);
  const groups = new Set<number>();
  for (const pid of processIds()) {
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (environ.indexOf(prefix) < 0) continue;
    if (
      !environ
        .toString('utf8')
        .split('\0')
        .some((entry) => wanted.has(entry))
    )
      continue;
    const pgid = processGroupOf(pid);
    if (pgid && pgid > 1 && pgid !== own) groups.add(pgid);
  }
  return [...groups];
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
