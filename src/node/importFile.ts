// Reading a file that `baton import` (or VS Code's chat session watcher) found in a harness's
// folder. Those folders are written by other programs, so a name there may be a FIFO, a device, a
// socket or a symlink to anywhere, and a file may be of any size. Every import reads through here:
// the file is opened once without blocking and without following a symlink swapped in, and what is
// read is decided on that descriptor: a regular file, really under the import's folder, within a
// size cap. Anything else is an ImportFileError, which the importer reports as a warning naming
// the file, and goes on (docs/security.md, "Importing harness history").

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isUnderRoot, SAFE_OPEN_FLAGS } from './safeRead';

/** The most an import reads of one transcript file (a chat session, a rollout, an export). */
export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

/** A small side file (metadata a harness writes beside a transcript). */
export const MAX_IMPORT_META_BYTES = 1024 * 1024;

const CHUNK = 1024 * 1024;

/** Why a file was not read; the message says what it is, never what it holds. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSymbolicLink()) return 'a symlink';
  return 'something else';
}

/** The real path of the folder an import reads (a file source: its folder), against which every file is checked. */
export function importRoot(source: string): string {
  const real = fs.realpathSync(source);
  return fs.statSync(real).isDirectory() ? real : path.dirname(real);
}

/**
 * Where the open descriptor really is: on Linux the kernel's name for it (/proc/self/fd/N, no
 * symlinks in it); elsewhere the name resolved again, accepted only when it is the very file open.
 */
function openedPath(fd: number, opened: fs.Stats, name: string): string | null {
  if (process.platform === 'linux') {
    try {
      const named = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return path.isAbsolute(named) && !named.endsWith(' (deleted)') ? named : null;
    } catch {
      // no /proc: as elsewhere
    }
  }
  try {
    const again = fs.realpathSync(name);
    const now = fs.statSync(again);
    return now.dev === opened.dev && now.ino === opened.ino ? again : null;
  } catch {
    return null;
  }
}

/**
 * Opens `file` for reading when it is a regular file under `root` (a real path, see importRoot) of
 * at most `maxBytes`: its descriptor and size. A symlink is followed only to such a file. Throws
 * ImportFileError otherwise; the caller closes the descriptor.
 */
export function openImportFile(file: string, root: string, maxBytes = MAX_IMPORT_FILE_BYTES): { fd: number; size: number } {
  let named: fs.Stats;
  try {
    named = fs.lstatSync(file);
  } catch (err) {
    throw new ImportFileError(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let target = file;
  if (named.isSymbolicLink()) {
    try {
      target = fs.realpathSync(file);
    } catch {
      throw new ImportFileError('a symlink to nothing');
    }
    if (!isUnderRoot(target, [root])) throw new ImportFileError(`a symlink to outside ${root}`);
  } else if (!named.isFile()) throw new ImportFileError(`not a regular file but ${kindOf(named)}`);
  let fd: number;
  try {
    fd = fs.openSync(target, SAFE_OPEN_FLAGS);
  } catch (err) {
    throw new ImportFileError(`cannot be opened (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    // Decided on what was opened, not on the name looked at before: it may have been swapped.
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new ImportFileError(`not a regular file but ${kindOf(stat)}`);
    const where = openedPath(fd, stat, target);
    if (where === null || !isUnderRoot(where, [root])) throw new ImportFileError(`not a file under ${root}`);
    if (stat.size > maxBytes) throw new ImportFileError(`${stat.size} bytes; an import reads files of at most ${maxBytes} bytes`);
    return { fd, size: stat.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The bytes of `file` (see openImportFile): as long as it was when opened, never more than `maxBytes`. */
export function readImportFile(file: string, root: string, maxBytes = MAX_IMPORT_FILE_BYTES): Buffer {
  const { fd, size } = openImportFile(file, root, maxBytes);
  try {
    const out = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const n = fs.readSync(fd, out, at, Math.min(CHUNK, size - at), at);
      if (n === 0) break; // truncated meanwhile: what is there
      at += n;
    }
    return at === size ? out : out.subarray(0, at);
  } finally {
    fs.closeSync(fd);
  }
}

/** readImportFile as UTF-8 text. */
export function readImportText(file: string, root: string, maxBytes = MAX_IMPORT_FILE_BYTES): string {
  return readImportFile(file, root, maxBytes).toString('utf8');
}
