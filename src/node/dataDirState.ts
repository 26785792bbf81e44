// What stands at a data directory's path, found without creating or changing anything: a store, or
// nothing recorded yet (no folder, or a folder without a journal or snapshots), or something Baton
// cannot use, named by its cause (a file where the folder should be, a folder this user may not
// read). Read commands answer "nothing yet" for the second; the third is an error everywhere.
// recordingProblem says why Baton could not record there (a read-only file system, no permission),
// before anything tries to and fails with a misleading error (Node's recursive mkdir reports
// ENOENT on a read-only file system). docs/storage.md ("Where the data directory is") says what each command does in each case.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { layout } from './paths';

export type DataDirState =
  | { kind: 'store' }
  /** Nothing recorded yet: `exists` tells whether the folder itself is there. */
  | { kind: 'empty'; exists: boolean }
  /** A path Baton cannot use as its data directory; `problem` names why. */
  | { kind: 'unusable'; problem: string };

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** Why `err` (from looking at `what`) keeps Baton out, in words; errno codes kept for searching. */
function cause(err: unknown, what: string): string {
  switch (code(err)) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied reading ${what}${userNote()}`;
    case 'EROFS':
      return `${what} is on a read-only file system`;
    case 'ELOOP':
      return `${what} is a loop of symbolic links`;
    case 'ENAMETOOLONG':
      return `the path ${what} is too long`;
    default:
      return `${what} cannot be read (${code(err) ?? (err as Error).message})`;
  }
}

function userNote(): string {
  return typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
}

/** The nearest existing folder at or above `dir`, or the problem on the way (a file where a folder should be, no permission). */
function nearestExisting(dir: string): { dir: string } | { problem: string } {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      const st = fs.statSync(at);
      return st.isDirectory() ? { dir: at } : { problem: `${at} is a file, not a folder` };
    } catch (err) {
      if (code(err) !== 'ENOENT' && code(err) !== 'ENOTDIR') return { problem: cause(err, at) };
    }
    if (path.dirname(at) === at) return { problem: `no folder of ${dir} exists` };
  }
}

/** What is at `dataDir`; reads only metadata, never creates. */
export function inspectDataDir(dataDir: string): DataDirState {
  let st: fs.Stats;
  try {
    st = fs.statSync(dataDir);
  } catch (err) {
    if (code(err) !== 'ENOENT' && code(err) !== 'ENOTDIR') return { kind: 'unusable', problem: cause(err, dataDir) };
    const above = nearestExisting(path.dirname(dataDir));
    return 'problem' in above ? { kind: 'unusable', problem: above.problem } : { kind: 'empty', exists: false };
  }
  if (!st.isDirectory()) return { kind: 'unusable', problem: `${dataDir} is a file, not a folder` };
  try {
    fs.accessSync(dataDir, fs.constants.R_OK | fs.constants.X_OK);
  } catch (err) {
    return { kind: 'unusable', problem: cause(err, dataDir) };
  }
  const paths = layout(dataDir);
  for (const dir of [paths.journalDir, paths.snapshotDir]) {
    try {
      if (fs.statSync(dir).isDirectory()) return { kind: 'store' };
    } catch (err) {
      if (code(err) !== 'ENOENT') return { kind: 'unusable', problem: cause(err, dir) };
    }
  }
  return { kind: 'empty', exists: true };
}

/** Why Baton could not create or write `dataDir` (a read-only file system, no permission), or null when it could. */
export function recordingProblem(dataDir: string): string | null {
  const state = inspectDataDir(dataDir);
  if (state.kind === 'unusable') return state.problem;
  const exists = state.kind === 'store' || state.exists;
  const target = exists ? { dir: dataDir } : nearestExisting(path.dirname(dataDir));
  if ('problem' in target) return target.problem;
  try {
    fs.accessSync(target.dir, fs.constants.W_OK | fs.constants.X_OK);
    return null;
  } catch (err) {
    const where = exists ? dataDir : `${target.dir} (where ${dataDir} would be created)`;
    if (code(err) === 'EROFS') return `${where} is on a read-only file system`;
    if (code(err) === 'EACCES' || code(err) === 'EPERM') return `permission denied writing ${where}${userNote()}`;
    return cause(err, where);
  }
}

/** The error for a data directory Baton cannot use or record in. */
export function dataDirError(dataDir: string, problem: string): BatonError {
  return new BatonError('unavailable', `cannot use the data directory ${dataDir}: ${problem}`);
}
