// A bound on how many children run at once: a run waits (pending) for a free slot. Slots are
// shared fairly between the agents waiting for one (docs/runs.md, "Bounds"): a freed slot goes to
// the waiting agent served least recently, so one agent's long queue never holds another agent's
// run back behind it.

interface Waiter {
  grant(): void;
}

export class Slots {
  private used = 0;
  /** Who waits, per agent, oldest first. */
  private readonly waiting = new Map<string, Waiter[]>();
  /** When each agent last got a slot (a grant counter), for the turn order. */
  private readonly lastServed = new Map<string, number>();
  private grants = 0;

  constructor(readonly max: number) {}

  /** How many runs wait for a slot. */
  get queued(): number {
    let n = 0;
    for (const queue of this.waiting.values()) n += queue.length;
    return n;
  }

  /**
   * Resolves with a release function once a slot is free for `key` (an agent); rejects if
   * `signal` aborts first. Releasing twice frees one slot only.
   */
  acquire(signal: AbortSignal, key = ''): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('aborted while waiting for a free slot'));
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.used--;
        this.grantNext();
      };
      const entry: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.used++;
          this.lastServed.delete(key);
          this.lastServed.set(key, this.grants++);
          resolve(release);
        },
      };
      const onAbort = () => {
        const queue = this.waiting.get(key);
        const at = queue?.indexOf(entry) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.waiting.delete(key);
        }
        reject(new Error('aborted while waiting for a free slot'));
      };
      if (this.used < this.max && this.waiting.size === 0) return entry.grant();
      signal.addEventListener('abort', onAbort, { once: true });
      const queue = this.waiting.get(key);
      if (queue) queue.push(entry);
      else this.waiting.set(key, [entry]);
      this.grantNext();
    });
  }

  /** Gives free slots to the waiting agents in turn: the one served least recently first. */
  private grantNext(): void {
    while (this.used < this.max && this.waiting.size) {
      let turn: string | undefined;
      for (const key of this.waiting.keys()) if (turn === undefined || (this.lastServed.get(key) ?? -1) < (this.lastServed.get(turn) ?? -1)) turn = key;
      const queue = this.waiting.get(turn!)!;
      const entry = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(turn!);
      entry.grant();
    }
    // Only the order among agents matters: forget those that are long idle.
    if (this.lastServed.size > 1024) for (const key of [...this.lastServed.keys()].slice(0, 512)) if (!this.waiting.has(key)) this.lastServed.delete(key);
  }
}
