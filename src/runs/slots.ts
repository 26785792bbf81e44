// A bound on how many children run at once: a run waits (pending) for a free slot.

export class Slots {
  private used = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(readonly max: number) {}

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('aborted while waiting for a free slot'));
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.used--;
        this.waiting.shift()?.grant();
      };
      const entry = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.used++;
          resolve(release);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new Error('aborted while waiting for a free slot'));
      };
      if (this.used < this.max) return entry.grant();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }
}
