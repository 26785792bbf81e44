// A bound on how many children run at once: a run waits (pending) for a free slot. Slots are
// shared fairly between the agents waiting for one (docs/runs.md, "Bounds"): a freed slot goes to
// the agent whose turn it is, round robin, so one agent's queue never holds another's run back
// for longer than one run per waiting agent.

interface Waiter {
  grant(): void;
}

export class Slots {
  private used = 0;
  /** Who waits, per agent, oldest first; the map's order is whose turn comes next. */
  private readonly waiting = new Map<string, Waiter[]>();

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

  /** Gives free slots to the waiting agents in turn: the agent served goes to the back of the line. */
  private grantNext(): void {
    while (this.used < this.max) {
      const next = this.waiting.entries().next();
      if (next.done) return;
      const [key, queue] = next.value;
      const entry = queue.shift()!;
      this.waiting.delete(key);
      if (queue.length) this.waiting.set(key, queue);
      entry.grant();
    }
  }
}
