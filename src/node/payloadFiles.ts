// The one way to read a file that a request names (a hook payload's transcript, a sub-agent's meta
// file, a run's files): see "Reading files a request names" in docs/security.md. The name is
// resolved once and must lie under an allowed root, so nothing outside the roots is ever opened;
// the file is then opened once, without following a symlink in its last component and without
// blocking on a FIFO or a device, and everything is decided on that open descriptor: where it
// really is (the kernel's name for it, under a root), what it is (a regular file) and how big it is.
// Only the descriptor is read, asynchronously (libuv's threadpool), in chunks, within a deadline:
// swapping the path or a folder on it between the check and the read changes nothing, and no such
// read ever holds the event loop.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isUnderRoot, SAFE_OPEN_FLAGS } from './safeRead';

const C = fs.constants;
/** A folder, read only, never through a symlink in its last component, never blocking. */
const DIR_FLAGS = C.O_RDONLY | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0) | (C.O_DIRECTORY ?? 0);
const CHUNK = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Why a file was not given. `missing`, `outside` and `unreadable` are told apart only for callers
 * whose requester may know (a run's files, chosen by the user): a hook's answer must not differ
 * between them (PayloadFiles and the transcript reader give one answer for all three).
 * `not-a-file` and `too-large` are only ever said of a file proven to be under a root.
 */
export type RefusalReason = 'missing' | 'outside' | 'unreadable' | 'not-a-file' | 'too-large' | 'timed-out';

export class FileRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    /** The size of a file under a root that is too large. */
    readonly size?: number,
  ) {
    super(`file refused: ${reason}`);
    this.name = 'FileRefused';
  }
}

export interface FileRules {
  /** Folders the file must really lie in (each taken by its real path); null: anywhere (a hook command reading its own harness's files). */
  roots: readonly string[] | null;
  /** Larger files are refused before anything is read (default: no limit; a caller that reads by position bounds each read instead). */
  maxBytes?: number;
  /** The open and every read must be done within this (default 10 s): a file system that hangs costs a refusal, not a thread. */
  timeoutMs?: number;
}

/** An open file: its identity, its size when opened, and reads by position (async, in chunks). */
export interface OpenedFile {
  /** Its real path (the name it was opened by). */
  path: string;
  /** device:inode, to tell a replaced file from the one read before. */
  identity: string;
  size: number;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out = await Promise.all(roots.map((root) => fs.promises.realpath(root).catch(() => null)));
  return out.filter((r): r is string => r !== null);
}

/** Rejects with `timed-out` once `deadline` passes; whatever `work` still yields later is handed to `late` (to close it). */
function byDeadline<T>(work: Promise<T>, deadline: number, late?: (value: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        expired = true;
        reject(new FileRefused('timed-out'));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  work.then(
    (value) => {
      if (expired) late?.(value);
    },
    () => undefined,
  );
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}

/**
 * Where an open descriptor really is, from the kernel (Linux: /proc/self/fd/N names the file the
 * descriptor refers to, with no symlinks in it). readlink, not realpath: realpath would walk that
 * name again through the file system, which is exactly the lookup a swap can change. null when
 * the system offers no such name.
 */
async function descriptorPath(fd: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return await fs.promises.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Whether the open file lies under a root. With the kernel's name for the descriptor, that name
 * decides. Otherwise the path is resolved again now and must both lie under a root and name the
 * very file that is open (same device and inode): a swap after the open makes them differ.
 */
async function openedUnderRoot(fd: number, opened: fs.Stats, real: string, roots: readonly string[]): Promise<boolean> {
  const named = await descriptorPath(fd);
  if (named !== null) {
    // Not a path at all (pipe:[…], anon_inode:…) or a file removed since: refused.
    if (!path.isAbsolute(named) || named.endsWith(' (deleted)')) return false;
    return isUnderRoot(named, roots);
  }
  try {
    const again = await fs.promises.realpath(real);
    if (!isUnderRoot(again, roots)) return false;
    const now = await fs.promises.stat(again);
    return now.dev === opened.dev && now.ino === opened.ino;
  } catch {
    return false;
  }
}

/**
 * The first look, by name: the real path, which must lie under a root. Nothing is opened here and
 * nothing outside the roots is ever opened; it decides nothing by itself (the descriptor is
 * checked again once open).
 */
async function resolveUnderRoots(requested: string, roots: readonly string[] | null, deadline: number): Promise<string> {
  if (!path.isAbsolute(requested)) throw new FileRefused('unreadable');
  let real: string;
  try {
    real = await byDeadline(fs.promises.realpath(requested), deadline);
  } catch (err) {
    if (err instanceof FileRefused) throw err;
    throw new FileRefused((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable');
  }
  if (roots !== null && !isUnderRoot(real, roots)) throw new FileRefused('outside');
  return real;
}

/**
 * Opens a file a request names, with every protection above, and hands it to `use` while it is
 * open; closes it after. Throws FileRefused when the path is relative, does not lead to a regular
 * file under a root, is larger than `maxBytes`, or the file system does not answer in time.
 */
export async function withPayloadFile<T>(requested: string, rules: FileRules, use: (file: OpenedFile) => Promise<T>): Promise<T> {
  const deadline = Date.now() + (rules.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxBytes = rules.maxBytes ?? Infinity;
  const roots = rules.roots === null ? null : await realRoots(rules.roots);
  const real = await resolveUnderRoots(requested, roots, deadline);
  let handle: fs.promises.FileHandle;
  try {
    handle = await byDeadline(fs.promises.open(real, SAFE_OPEN_FLAGS), deadline, (late) => void late.close().catch(() => undefined));
  } catch (err) {
    // Gone, swapped for a symlink (ELOOP), not permitted, …: all the same to the caller.
    throw err instanceof FileRefused ? err : new FileRefused('unreadable');
  }
  try {
    const stat = await byDeadline(handle.stat(), deadline);
    if (roots !== null && !(await openedUnderRoot(handle.fd, stat, real, roots))) throw new FileRefused('outside');
    if (!stat.isFile()) throw new FileRefused('not-a-file');
    if (stat.size > maxBytes) throw new FileRefused('too-large', stat.size);
    return await use({
      path: real,
      identity: `${stat.dev}:${stat.ino}`,
      size: stat.size,
      read: (offset, length) => readAt(handle, offset, length, deadline),
    });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Reads up to `length` bytes at `offset` in CHUNK pieces (each one async and within the deadline), stopping at the end of the file. */
async function readAt(handle: fs.promises.FileHandle, offset: number, length: number, deadline: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < length) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, length - total));
    const { bytesRead } = await byDeadline(handle.read(buf, 0, buf.length, offset + total), deadline);
    if (bytesRead === 0) break;
    total += bytesRead;
    chunks.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total);
}

/** One entry of a folder a request names. */
export interface FolderEntry {
  name: string;
  isFile: boolean;
  mtimeMs: number;
}

/**
 * The entries of a folder a request names, under the same rules: the folder is opened once
 * (O_DIRECTORY, O_NOFOLLOW) and, on Linux, listed through its descriptor, so a folder swapped for
 * a symlink after the check is not what gets listed. Entries are looked at without following
 * symlinks (a symlink is not a file here). Throws FileRefused as withPayloadFile does.
 */
export async function listPayloadFolder(requested: string, rules: FileRules): Promise<FolderEntry[]> {
  const deadline = Date.now() + (rules.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const roots = rules.roots === null ? null : await realRoots(rules.roots);
  const real = await resolveUnderRoots(requested, roots, deadline);
  let handle: fs.promises.FileHandle;
  try {
    handle = await byDeadline(fs.promises.open(real, DIR_FLAGS), deadline, (late) => void late.close().catch(() => undefined));
  } catch (err) {
    throw err instanceof FileRefused ? err : new FileRefused('unreadable');
  }
  try {
    const stat = await byDeadline(handle.stat(), deadline);
    if (roots !== null && !(await openedUnderRoot(handle.fd, stat, real, roots))) throw new FileRefused('outside');
    if (!stat.isDirectory()) throw new FileRefused('not-a-file');
    // Linux: the descriptor's own entry names exactly the folder that was opened and checked.
    const base = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : real;
    const names = await byDeadline(fs.promises.readdir(base), deadline);
    const entries: FolderEntry[] = [];
    for (const name of names) {
      const entry = await byDeadline(fs.promises.lstat(path.join(base, name)), deadline).catch((err: unknown) => {
        if (err instanceof FileRefused) throw err;
        return null; // removed meanwhile
      });
      if (entry) entries.push({ name, isFile: entry.isFile(), mtimeMs: entry.mtimeMs });
    }
    return entries;
  } catch (err) {
    throw err instanceof FileRefused ? err : new FileRefused('unreadable');
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * What a hook mapping reads of the files its payload names, all through withPayloadFile. Every
 * method answers the same (null, false, []) whether a file is missing, outside the roots, not a
 * regular file, too large or too slow: its answer says nothing about a file outside the roots.
 * Inside the server the roots are the transcript roots (docs/security.md); the hook command,
 * running inside the harness, reads its harness's files anywhere (`PayloadFiles.anywhere()`).
 */
export class PayloadFiles {
  constructor(private readonly rules: FileRules) {}

  /** No roots: the hook command, reading the files its own harness names (still never blocking, bounded). */
  static anywhere(maxBytes = 64 * 1024 * 1024): PayloadFiles {
    return new PayloadFiles({ roots: null, maxBytes, timeoutMs: 2000 });
  }

  private cap(maxBytes: number): FileRules {
    return { ...this.rules, maxBytes: Math.min(maxBytes, this.rules.maxBytes ?? Infinity) };
  }

  private async attempt<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch {
      return fallback;
    }
  }

  /**
   * Whether the file may be named on to the API (which reads it under its own rules). With roots:
   * only a regular file under them, so a path outside is treated exactly as a missing one. Without
   * roots (the hook command): anything that exists, looked at without opening it; the server
   * decides whether it reads it.
   */
  present(file: string | undefined): Promise<boolean> {
    if (!file) return Promise.resolve(false);
    if (this.rules.roots === null)
      return this.attempt(() => byDeadline(fs.promises.stat(file), Date.now() + (this.rules.timeoutMs ?? DEFAULT_TIMEOUT_MS)).then(() => true), false);
    return this.attempt(() => withPayloadFile(file, this.rules, async () => true), false);
  }

  /** The whole text of a file of at most `maxBytes`; null otherwise. */
  text(file: string | undefined, maxBytes: number): Promise<string | null> {
    if (!file) return Promise.resolve(null);
    return this.attempt(() => withPayloadFile(file, this.cap(maxBytes), async (f) => Buffer.from(await f.read(0, f.size)).toString('utf8')), null);
  }

  /** The last `maxBytes` of a file of any size (its start when it is smaller); null when it cannot be read. */
  tail(file: string | undefined, maxBytes: number): Promise<string | null> {
    if (!file) return Promise.resolve(null);
    const rules = { ...this.rules, maxBytes: undefined };
    return this.attempt(
      () =>
        withPayloadFile(file, rules, async (f) => {
          const from = Math.max(0, f.size - maxBytes);
          return Buffer.from(await f.read(from, f.size - from)).toString('utf8');
        }),
      null,
    );
  }

  /** The first line of a file (without its newline), reading at most `maxBytes`; null when it cannot be read. */
  firstLine(file: string | undefined, maxBytes: number): Promise<string | null> {
    if (!file) return Promise.resolve(null);
    const rules = { ...this.rules, maxBytes: undefined };
    return this.attempt(
      () =>
        withPayloadFile(file, rules, async (f) => {
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < Math.min(f.size, maxBytes); at += CHUNK) {
            const piece = await f.read(at, Math.min(CHUNK, maxBytes - at));
            if (piece.length === 0) break;
            const end = Buffer.from(piece).indexOf(0x0a);
            chunks.push(end >= 0 ? piece.subarray(0, end) : piece);
            if (end >= 0) break;
          }
          return Buffer.concat(chunks).toString('utf8');
        }),
      null,
    );
  }

  /** A folder's entries; [] when it cannot be listed. */
  list(dir: string | undefined): Promise<FolderEntry[]> {
    if (!dir) return Promise.resolve([]);
    return this.attempt(() => listPayloadFolder(dir, this.rules), []);
  }
}
