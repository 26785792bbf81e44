// Standard output of the CLI. A failed write (a closed pipe: EPIPE; a full disk or /dev/full:
// ENOSPC) must end the command with one line on stderr and exit code 1, never with an unhandled
// 'error' event and its stack trace. The stream's error is caught, the next write throws it, and
// the command's end waits for everything written so far to be accepted or refused.

export class OutputError extends Error {
  constructor(readonly failure: NodeJS.ErrnoException) {
    const why = failure.code === 'EPIPE' ? 'the reading end was closed (EPIPE)' : failure.code ? `${describe(failure)} (${failure.code})` : failure.message;
    super(`cannot write to standard output: ${why}`);
    this.name = 'OutputError';
  }
}

function describe(err: NodeJS.ErrnoException): string {
  // "ENOSPC: no space left on device, write" -> "no space left on device"
  const m = /^[A-Z]+: ([^,]+)/.exec(err.message);
  return m ? m[1] : err.message;
}

export class Output {
  private failure: NodeJS.ErrnoException | null = null;
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly stream: NodeJS.WritableStream & { writableErrored?: Error | null } = process.stdout) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      this.failure ??= err;
    });
  }

  /** The write error seen so far, if any (some streams record it before emitting 'error'). */
  get error(): OutputError | null {
    const err = this.failure ?? (this.stream.writableErrored as NodeJS.ErrnoException | null | undefined) ?? null;
    return err ? new OutputError(err) : null;
  }

  /** Writes `text` plus a newline (unless it ends in one); throws once a write has failed. */
  line(text: string): void {
    this.write(text.endsWith('\n') || text === '' ? text : text + '\n');
  }

  write(text: string): void {
    const failed = this.error;
    if (failed) throw failed;
    if (text === '') return;
    this.last = new Promise<void>((resolve) => {
      this.stream.write(text, (err?: Error | null) => {
        if (err) this.failure ??= err as NodeJS.ErrnoException;
        resolve();
      });
    });
  }

  /** Resolves once every write was accepted by the system; throws the first write error. */
  async finish(): Promise<void> {
    await this.last;
    const failed = this.error;
    if (failed) throw failed;
  }
}
