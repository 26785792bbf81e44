// Checks the CLI makes on the data directory before using it.
//
// Ownership: a command that writes (serve, token, import) refuses a data directory owned by another
// user, and when run as root refuses to create one inside a folder owned by another user. Files
// root created there would belong to root, and the owner's own Baton could then no longer open
// its store. Run the command as the directory's owner instead (or pass another --data-dir).
//
// Permissions: a data directory that other users can enter or read (any group/other bit, e.g. mode
// 0755) gets a warning on stderr; it is left as it is (the mode is the owner's choice to make).
//
// Usability (node/dataDirState.ts): a path Baton cannot use (a file, a folder this user may not
// read) is an error naming the cause for every command. A reading command on a data directory with
// nothing recorded yet answers as an empty store, unless nothing could ever be recorded there (a
// read-only file system, no permission to create it): that cause is the error. A writing command
// checks the same before it creates anything (docs/storage.md, "Where the data directory is").

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { dataDirError, inspectDataDir, recordingProblem } from '../node/dataDirState';

function statOrNull(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}

/** The warning for a data directory open to other users, or null. */
export function permissionWarning(dataDir: string): string | null {
  if (process.platform === 'win32') return null;
  const st = statOrNull(dataDir);
  if (!st || !st.isDirectory() || (st.mode & 0o077) === 0) return null;
  const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
  return `warning: the data directory ${dataDir} is open to other users (mode ${mode}); it holds transcripts and token hashes: run chmod 700 ${JSON.stringify(dataDir)}`;
}

export function warnAboutPermissions(dataDir: string): void {
  const warning = permissionWarning(dataDir);
  if (warning) process.stderr.write(warning + '\n');
}

/** Throws (forbidden) when this process must not write into `dataDir`; see the top of this file. */
export function assertOwnDataDir(dataDir: string): void {
  if (typeof process.geteuid !== 'function') return; // no uids (Windows)
  const me = process.geteuid();
  const st = statOrNull(dataDir);
  if (st) {
    if (st.uid !== me) {
      throw new BatonError(
        'forbidden',
        `the data directory ${dataDir} belongs to uid ${st.uid}, not to this user (uid ${me}); Baton does not write into another user's data directory: run the command as its owner, or pass another --data-dir`,
      );
    }
    return;
  }
  if (me !== 0) return; // an ordinary user can only create what will be theirs
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const parent = statOrNull(dir);
    if (parent) {
      if (parent.uid !== 0) {
        throw new BatonError(
          'forbidden',
          `the data directory ${dataDir} would be created as root inside ${dir}, which belongs to uid ${parent.uid}; run the command as that user, or pass another --data-dir`,
        );
      }
      return;
    }
    if (path.dirname(dir) === dir) return;
  }
}

/** Throws when a reading command cannot read `dataDir`, or when it holds nothing and nothing could be recorded there. */
export function assertReadableDataDir(dataDir: string): void {
  const state = inspectDataDir(dataDir);
  if (state.kind === 'unusable') throw dataDirError(dataDir, state.problem);
  const problem = state.kind === 'empty' ? recordingProblem(dataDir) : null;
  if (problem) throw dataDirError(dataDir, problem);
}

/** Throws when this process must not or cannot write `dataDir` (another user's, a file, read-only, no permission). */
export function assertWritableDataDir(dataDir: string): void {
  const state = inspectDataDir(dataDir);
  if (state.kind === 'unusable') throw dataDirError(dataDir, state.problem);
  assertOwnDataDir(dataDir);
  const problem = recordingProblem(dataDir);
  if (problem) throw dataDirError(dataDir, problem);
}
