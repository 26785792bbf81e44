// One writer per data directory. The lock file names its holder (pid, port) so a second process
// can say who holds it, find the holder's endpoint, or take over when the holder has died.

import * as fs from 'node:fs';
import { fsyncDir } from './fsync';
import * as path from 'node:path';

export interface LockInfo {
  pid: number;
  port: number | null;
  startedAt: string;
  holder: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly info: LockInfo,
  ) {
    super(
      `The data directory ${path.dirname(lockPath)} is in use by ${info.holder} (pid ${info.pid}` +
        (info.port ? `, port ${info.port}` : '') +
        `, since ${info.startedAt}). Stop it, or use it through its endpoint.`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** A lock left by a process that is no longer running, which this process cannot take over. */
export class StaleLockError extends Error {
  constructor(
    readonly lockPath: string,
    readonly info: LockInfo | null,
    cause: Error,
  ) {
    super(
      `The data directory ${path.dirname(lockPath)} has a stale lock` +
        (info ? ` left by ${info.holder} (pid ${info.pid}, not running)` : ' (unreadable)') +
        `, and it cannot be taken over: ${cause.message}`,
    );
    this.name = 'StaleLockError';
  }
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(lockPath: string): LockInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** The live holder of the lock, or null when free or stale. */
export function lockHolder(lockPath: string): LockInfo | null {
  const info = readLock(lockPath);
  return info && isAlive(info.pid) ? info : null;
}

export class DataDirLock {
  private released = false;
  private constructor(
    readonly lockPath: string,
    private info: LockInfo,
  ) {}

  /** Takes the lock or throws DataDirLockedError naming the live holder. Stale locks are taken over. */
  static acquire(lockPath: string, holder: string): DataDirLock {
    fs.mkdirSync(path.dirname(lockPath), { recursive: true, mode: 0o700 });
    const info: LockInfo = { pid: process.pid, port: null, startedAt: new Date().toISOString(), holder };
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const fd = fs.openSync(lockPath, 'wx', 0o600);
        fs.writeSync(fd, JSON.stringify(info));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fsyncDir(path.dirname(lockPath));
        return new DataDirLock(lockPath, info);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const existing = readLock(lockPath);
      if (existing && existing.pid === process.pid) {
        throw new DataDirLockedError(lockPath, existing);
      }
      if (existing && isAlive(existing.pid)) throw new DataDirLockedError(lockPath, existing);
      // Stale (dead pid) or unreadable (a torn write by a holder that died): move it aside atomically,
      // so two processes racing for a stale lock cannot both delete each other's fresh lock.
      const aside = `${lockPath}.stale.${process.pid}`;
      try {
        fs.renameSync(lockPath, aside);
        const moved = readLock(aside);
        if (moved && existing && (moved.pid !== existing.pid || moved.startedAt !== existing.startedAt)) {
          // We moved a lock someone else took a moment ago: put it back and let them keep it.
          fs.renameSync(aside, lockPath);
          continue;
        }
        fs.rmSync(aside, { force: true });
      } catch (err) {
        // ENOENT: another process took it first; retry. Anything else (a read-only file system, no
        // permission) would otherwise end as "in use" by a process that is not running.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StaleLockError(lockPath, existing, err as Error);
      }
    }
    const existing = readLock(lockPath);
    throw new DataDirLockedError(lockPath, existing ?? { pid: -1, port: null, startedAt: '?', holder: 'unknown' });
  }

  get holderInfo(): LockInfo {
    return { ...this.info };
  }

  /** Records the port the holder serves on, so others can find it. */
  setPort(port: number | null): void {
    this.info = { ...this.info, port };
    const tmp = `${this.lockPath}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.info), { mode: 0o600 });
    fs.renameSync(tmp, this.lockPath);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    const current = readLock(this.lockPath);
    if (current && current.pid === process.pid) fs.rmSync(this.lockPath, { force: true });
  }
}
