// Watching real processes from tests: whether a pid still runs, waiting (bounded) for one to end
// or for a file a child writes (its pid, a marker).

import * as fs from 'node:fs';

/** Whether a process with this pid runs (on Linux, a zombie waiting to be reaped does not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return !fs.existsSync('/proc/self');
  }
}

/** Resolves true once the process is gone, false if it still runs after `ms`. */
export async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The pid a child wrote into `file` (waiting for it at most `ms`). */
export async function pidFrom(file: string, ms = 10_000): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    if (/^\d+$/.test(text)) return Number(text);
    if (Date.now() > deadline) throw new Error(`no pid in ${file} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Kills a process left behind by a failing test, so it does not outlive the suite. */
export function killQuietly(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
