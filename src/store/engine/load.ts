// Opening a data directory's state: the newest snapshot that verifies, then the journal after it,
// with every sequence number accounted for. Reading changes nothing on disk; what was damaged is
// returned as recovery events, and writes that cannot be found as missing ranges. settleRecovery
// then moves the damaged files aside. The rules are in docs/storage.md.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { bm25FromMatchinfo, matchinfoFromBytes } from '../../core/rank';
import { cleanJournalBytes, listJournalFiles, readJournalFile, scanJournal, type DamagedRange, type JournalFrame } from './journal';
import type { Layout } from '../../node/paths';
import { moveToQuarantine, replaceKeepingOriginal } from './quarantine';
import { accountedSeqs, applyRecord, appliedSeq, setAppliedSeq, settleAccountedSeqs, type StoreRecord } from '../records';
import { describeRange, type MissingRange, type RecoveryEvent } from './recovery';
import { migrate } from '../schema';
import { CorruptSnapshotError, imageHeaderProblem, listSnapshots, readSnapshot } from './snapshot';
import { openWithRoom, roomFor } from './roomyDatabase';

export interface OpenReport {
  snapshot: string | null;
  snapshotSeq: number;
  skippedSnapshots: Array<{ file: string; reason: string }>;
  journalFiles: number;
  replayedFrames: number;
  /** Journal bytes read past the snapshot: what the next open would replay again without a new snapshot. */
  replayedBytes: number;
  /** Interrupted appends at the end of journal files (never acknowledged). */
  droppedTails: Array<{ file: string; bytes: number }>;
  /** Journal files read with damage in them (torn or not): settleRecovery rewrites them without it. */
  damagedJournals: string[];
  appliedSeq: number;
  /** The highest sequence number the files show was written (snapshot and journal names, frames, damaged frames). */
  knownSeq: number;
  /** Writes that should be there but could not be read. Empty when recovery was complete. */
  missing: MissingRange[];
  /** Frames that failed to apply: after missing writes, the ones that depended on them. */
  failedFrames: number[];
  /** Everything found and done about damage, in order. */
  events: RecoveryEvent[];
  migrations: number[];
  openMs: number;
}

export function registerFunctions(db: Database): void {
  db.create_function('bm25', (info: Uint8Array | null) => (info ? bm25FromMatchinfo(matchinfoFromBytes(info)) : 0));
  // The database file lives in memory and durability comes from Baton's own journal, so SQLite's
  // rollback journal need not be a file: keeping it in memory saves a file create, copy and delete
  // per transaction (ROLLBACK still works). No other connection ever opens this file, so the lock
  // is kept (EXCLUSIVE): otherwise every statement outside a transaction checks for a hot journal
  // and re-reads the header through sql.js's JS file system (about 16 µs a statement).
  db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY');
}

function damageText(file: string, d: DamagedRange): string {
  return `${file}: ${d.bytes} damaged bytes at offset ${d.offset}`;
}

/** The newest snapshot up to `uptoSeq` that verifies and holds a Baton database; the ones skipped go into the report. */
function loadNewestSnapshot(SQL: SqlJsStatic, layout: Layout, uptoSeq: number, report: OpenReport): Database | null {
  for (const snap of listSnapshots(layout.snapshotDir)) {
    if (snap.seq > uptoSeq) continue;
    report.knownSeq = Math.max(report.knownSeq, snap.seq);
    try {
      // The SHA-256 in the trailer proves the image is the one written; a full quick_check here
      // would cost seconds at thousands of sessions (`baton doctor` runs integrity_check instead).
      // Read straight into the room the database file grows in: no second copy of the image.
      const { seq, image } = readSnapshot(snap.path, roomFor);
      if (seq !== snap.seq) throw new CorruptSnapshotError(`its trailer names seq ${seq}, its file name ${snap.seq}`);
      const headerProblem = imageHeaderProblem(image.subarray(0, 100), image.length);
      if (headerProblem) throw new CorruptSnapshotError(headerProblem);
      const candidate = openWithRoom(SQL, image);
      let problem: string | null = null;
      try {
        problem = historyProblem(candidate, snap.seq);
      } catch {
        problem = 'not a Baton database';
      } finally {
        if (problem) candidate.close(); // not ours, or not what it claims: free its file
      }
      if (problem) throw new CorruptSnapshotError(problem);
      report.snapshot = snap.path;
      report.snapshotSeq = snap.seq;
      return candidate;
    } catch (err) {
      const reason = (err as Error).message.replace(`${snap.path}: `, '');
      report.skippedSnapshots.push({ file: snap.path, reason: (err as Error).message });
      report.events.push({ kind: 'snapshot-skipped', file: snap.path, message: `snapshot ${snap.path} skipped: ${reason}` });
    }
  }
  return null;
}

/**
 * What is wrong with a snapshot's database against what the snapshot claims, or null: it must be a
 * Baton database holding exactly the writes up to `seq`, every one of them accounted for. A
 * snapshot rebuilt from only part of the journal is consistent with itself but falls short here.
 */
function historyProblem(db: Database, seq: number): string | null {
  if (Number(db.exec('PRAGMA user_version')[0].values[0][0]) < 1) return 'not a Baton database';
  const applied = appliedSeq(db);
  if (applied !== seq) return `its database holds the writes up to seq ${applied}, its name says ${seq}`;
  const accounted = accountedSeqs(db);
  if (accounted !== null && accounted !== applied)
    return `its database accounts for ${accounted} of the ${applied} writes it claims to hold (it was rebuilt without the writes before a gap)`;
  return null;
}

/**
 * Opens a database from the newest valid snapshot and replays the journal after it, resuming
 * after damaged bytes at the next valid frame. Every sequence number between the snapshot and the
 * highest one the files show was written must be found; those that are not are `missing`.
 */
export function loadDatabase(SQL: SqlJsStatic, layout: Layout, uptoSeq = Infinity): { db: Database; report: OpenReport } {
  const started = Date.now();
  const report: OpenReport = {
    snapshot: null,
    snapshotSeq: 0,
    skippedSnapshots: [],
    journalFiles: 0,
    replayedFrames: 0,
    replayedBytes: 0,
    droppedTails: [],
    damagedJournals: [],
    appliedSeq: 0,
    knownSeq: 0,
    missing: [],
    failedFrames: [],
    events: [],
    migrations: [],
    openMs: 0,
  };
  const db = loadNewestSnapshot(SQL, layout, uptoSeq, report) ?? openWithRoom(SQL);
  registerFunctions(db);
  report.migrations = migrate(db);
  if (accountedSeqs(db) === null) settleAccountedSeqs(db, appliedSeq(db)); // kept from here on
  const files = listJournalFiles(layout.journalDir);
  report.journalFiles = files.length;
  let seq = appliedSeq(db);
  // Why the next gap, if one is found, is there.
  let cause =
    report.skippedSnapshots.length > 0
      ? `snapshot ${report.skippedSnapshots.map((s) => path.basename(s.file)).join(' and ')} could not be used and the journal does not reach back that far`
      : null;
  const gap = (to: number, fallback: string) => {
    if (to > seq) report.missing.push({ from: seq + 1, to, cause: cause ?? fallback });
    cause = null;
  };
  let lastFile: string | null = null;
  for (let i = 0; i < files.length && seq < uptoSeq; i++) {
    const file = files[i];
    const next = files[i + 1];
    if (next && next.firstSeq - 1 <= seq) continue; // wholly inside the snapshot
    if (file.firstSeq > uptoSeq) break;
    report.knownSeq = Math.max(report.knownSeq, Math.min(uptoSeq, file.firstSeq - 1));
    const read = readJournalFile<StoreRecord>(file.path);
    lastFile = file.path;
    report.replayedBytes += read.validBytes;
    if (read.damage.length > 0) report.damagedJournals.push(file.path);
    let d = 0; // the next damaged range not yet reported
    const reportDamageBefore = (offset: number) => {
      for (; d < read.damage.length && read.damage[d].offset < offset; d++) {
        const range = read.damage[d];
        if (range.torn) {
          report.droppedTails.push({ file: file.path, bytes: range.bytes });
          report.events.push({
            kind: 'torn-tail',
            file: file.path,
            message: `journal ${file.path}: ${range.bytes} bytes of an interrupted append at offset ${range.offset} dropped (never acknowledged)`,
          });
          continue;
        }
        report.events.push({
          kind: 'journal-damage',
          file: file.path,
          message: `journal ${damageText(file.path, range)}${range.atEnd ? ' (at the end of the file)' : '; reading resumed at the next valid frame'}`,
        });
        cause = damageText(file.path, range);
      }
    };
    for (const frame of read.frames) {
      if (frame.seq > uptoSeq) break;
      reportDamageBefore(frame.payloadStart);
      if (frame.lengthRepaired) {
        report.events.push({
          kind: 'frame-repaired',
          file: file.path,
          message: `journal ${file.path}: frame seq ${frame.seq} at offset ${frame.payloadStart - 8} had a damaged length field; its payload matched its checksum and was replayed`,
        });
      }
      if (frame.seq <= seq) continue;
      gap(frame.seq - 1, `no journal file holds them (${file.path} continues at seq ${frame.seq})`);
      if (!applyFrame(db, frame)) report.failedFrames.push(frame.seq);
      seq = frame.seq;
      report.replayedFrames++;
    }
    reportDamageBefore(Infinity);
    const tail = read.damage[read.damage.length - 1];
    if (tail && tail.atEnd && !tail.torn && !read.frames.some((f) => f.seq > uptoSeq)) {
      // A complete frame that fails its checksum at the end may be the next acknowledged write; the
      // next file (if any) tells, by where it starts.
      if (!next) report.knownSeq = Math.max(report.knownSeq, Math.min(uptoSeq, seq + 1));
      cause = `${damageText(file.path, tail)} (at the end of the file, where seq ${seq + 1} would follow)`;
    }
  }
  report.knownSeq = Math.max(report.knownSeq, seq);
  if (report.knownSeq > seq) gap(report.knownSeq, lastFile ? `the journal ends at seq ${seq} (${lastFile})` : `no journal file holds them`);
  report.appliedSeq = seq;
  report.openMs = Date.now() - started;
  return { db, report };
}

/** Applies one frame in a transaction; false when it could not apply (and nothing of it did). */
/** 3,4,5,9 → "3-5, 9". */
function compactList(seqs: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < seqs.length;) {
    let j = i;
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j] + 1) j++;
    parts.push(i === j ? `${seqs[i]}` : `${seqs[i]}-${seqs[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

function applyFrame(db: Database, frame: JournalFrame<StoreRecord>): boolean {
  db.exec('BEGIN');
  try {
    for (const rec of frame.records) applyRecord(db, rec);
    setAppliedSeq(db, frame.seq, 1);
    db.exec('COMMIT');
    return true;
  } catch {
    db.exec('ROLLBACK');
    // Without missing writes before it, a record that cannot apply failed the same way when it was
    // first written and was never acknowledged.
    setAppliedSeq(db, frame.seq, 1);
    return false;
  }
}

/**
 * After a load that is to be used: moves every skipped snapshot into quarantine and replaces every
 * damaged journal file by a copy holding only its valid frames (the original goes into quarantine),
 * so the damage is reported once, not at every open. Adds what it did to `report.events`.
 */
export function settleRecovery(layout: Layout, report: OpenReport): void {
  for (const range of report.missing) {
    report.events.push({ kind: 'loss-accepted', message: `opened without ${describeRange(range)} (${range.cause})` });
  }
  const dependent = report.missing.length > 0 ? report.failedFrames.filter((seq) => seq > report.missing[0].from) : [];
  if (dependent.length > 0) {
    report.events.push({
      kind: 'loss-accepted',
      message: `${dependent.length} later write(s) could not be applied without the missing ones: seq ${compactList(dependent)}`,
    });
  }
  for (const file of report.damagedJournals) {
    const data = fs.readFileSync(file);
    const read = scanJournal(data);
    const kept = replaceKeepingOriginal(layout.dataDir, file, cleanJournalBytes(data, read.frames));
    report.events.push({
      kind: 'journal-rewritten',
      file,
      message: `journal ${file} rewritten with its ${read.frames.length} valid frame(s); the original is in ${kept}`,
    });
  }
  for (const skipped of report.skippedSnapshots) {
    if (!fs.existsSync(skipped.file)) continue;
    const moved = moveToQuarantine(layout.dataDir, skipped.file);
    report.events.push({ kind: 'quarantined', file: skipped.file, message: `damaged snapshot ${skipped.file} moved to ${moved}` });
  }
}
