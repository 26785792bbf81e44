// Health report of a data directory, read-only: it takes no lock and writes nothing, so it works
// on a read-only directory and beside a running server. It checks the lock holder, every snapshot
// (verified), every journal file (frames, damage), and, when no live process holds the directory,
// loads the state in memory the way an open would (docs/storage.md) to compare what it reaches
// with the highest sequence number the files show was written, and runs PRAGMA integrity_check.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { listJournalFiles, readJournalFile } from './engine/journal';
import { loadDatabase } from './engine/load';
import { lockHolder, readLock, type LockInfo } from '../node/lock';
import { layout } from '../node/paths';
import { quarantineDir } from './engine/quarantine';
import { READ_QUERIES } from './reads';
import { ACCEPT_LOSS_COMMAND, describeRange, type MissingRange, type RecoveryEvent } from './engine/recovery';
import { listSnapshots, SNAPSHOT_TRAILER_BYTES, verifySnapshotFile } from './engine/snapshot';
import { storageStatus, storeLimitBytes, type StorageStatus } from './engine/sizeLimit';
import { loadSqlJs } from './engine/sqljs';

export interface DoctorReport {
  dataDir: string;
  exists: boolean;
  lock: { state: 'free' | 'held' | 'stale'; holder: LockInfo | null };
  snapshots: Array<{ file: string; seq: number; bytes: number; valid: boolean; error?: string }>;
  journal: Array<{ file: string; firstSeq: number; bytes: number; frames: number; tornBytes: number; damagedBytes: number; repairedFrames: number }>;
  /** What an open would do, as loaded in memory (null while a live process holds the directory). */
  recovery: { snapshot: string | null; appliedSeq: number; knownSeq: number; missing: MissingRange[]; events: RecoveryEvent[] } | null;
  integrity: string[] | null;
  store: { sessions: number; turns: number; textChars: number; appliedSeq: number } | null;
  /** Files moved aside by earlier recoveries. */
  quarantine: string[];
  /** What is worth knowing but needs nothing done (a stale lock: the next open takes it over). */
  notes: string[];
  /** The database file against its size limit: of the state loaded, else of the newest valid snapshot. */
  storage: StorageStatus | null;
  problems: string[];
  /** Worth knowing, not wrong (the exit code stays 0): a store nearing its size limit. */
  warnings: string[];
}

/** `limitBytes`: the store's size limit (default storeLimitBytes(), as the store uses). */
export async function runDoctor(dataDir: string, options: { limitBytes?: number } = {}): Promise<DoctorReport> {
  const limitBytes = storeLimitBytes(options.limitBytes);
  const paths = layout(dataDir);
  const report: DoctorReport = {
    dataDir,
    exists: fs.existsSync(dataDir),
    lock: { state: 'free', holder: null },
    snapshots: [],
    journal: [],
    recovery: null,
    integrity: null,
    store: null,
    quarantine: [],
    notes: [],
    storage: null,
    problems: [],
    warnings: [],
  };
  const recorded = readLock(paths.lock);
  const live = lockHolder(paths.lock);
  report.lock = { state: live ? 'held' : recorded || fs.existsSync(paths.lock) ? 'stale' : 'free', holder: recorded };
  // A note, not a problem: the next open (a server, a writing command) takes it over by itself.
  if (report.lock.state === 'stale') {
    report.notes.push(
      recorded
        ? `stale lock left by ${recorded.holder} (pid ${recorded.pid}, not running); the next open takes it over`
        : `unreadable lock file ${paths.lock}; the next open takes it over`,
    );
  }
  checkSnapshots(paths.snapshotDir, report);
  checkJournal(paths.journalDir, live !== null, report);
  const quarantine = quarantineDir(dataDir);
  if (fs.existsSync(quarantine)) report.quarantine = fs.readdirSync(quarantine).map((name) => path.join(quarantine, name));
  if (!live && report.exists) await checkState(dataDir, report, limitBytes);
  checkStorage(report, limitBytes);
  return report;
}

/** How full the store is: a problem at the limit (writes are refused), a warning before it. */
function checkStorage(report: DoctorReport, limitBytes: number): void {
  if (!report.storage) {
    const newest = report.snapshots.find((s) => s.valid);
    if (!newest) return;
    const imageBytes = Math.max(0, newest.bytes - SNAPSHOT_TRAILER_BYTES);
    report.storage = storageStatus(imageBytes, imageBytes, limitBytes);
  }
  if (report.storage.state === 'full') report.problems.push(report.storage.message!);
  else if (report.storage.state === 'warning') report.warnings.push(report.storage.message!);
}

function checkSnapshots(dir: string, report: DoctorReport): void {
  for (const snap of listSnapshots(dir)) {
    const bytes = fs.statSync(snap.path).size;
    try {
      verifySnapshotFile(snap.path, { seq: snap.seq });
      report.snapshots.push({ file: snap.path, seq: snap.seq, bytes, valid: true });
    } catch (err) {
      report.snapshots.push({ file: snap.path, seq: snap.seq, bytes, valid: false, error: (err as Error).message });
    }
  }
  for (const snap of report.snapshots.filter((s) => !s.valid)) {
    const older = report.snapshots.find((s) => s.valid && s.seq < snap.seq);
    const newer = report.snapshots.find((s) => s.valid && s.seq > snap.seq);
    const fallback = newer
      ? `the newer snapshot ${path.basename(newer.file)} is used; this one no longer backs it up`
      : older
        ? `the older snapshot ${path.basename(older.file)} (seq ${older.seq}) and the journal after it are used instead`
        : 'no valid older snapshot exists: only the journal can rebuild the state';
    report.problems.push(`snapshot ${snap.file} is damaged (${snap.error!.replace(`${snap.file}: `, '')}); ${fallback}`);
  }
}

function checkJournal(dir: string, held: boolean, report: DoctorReport): void {
  const files = listJournalFiles(dir);
  files.forEach((file, i) => {
    const read = readJournalFile(file.path);
    const torn = read.damage.filter((d) => d.torn);
    const damaged = read.damage.filter((d) => !d.torn);
    const repaired = read.frames.filter((f) => f.lengthRepaired);
    report.journal.push({
      file: file.path,
      firstSeq: file.firstSeq,
      bytes: read.size,
      frames: read.frames.length,
      tornBytes: torn.reduce((n, d) => n + d.bytes, 0),
      damagedBytes: damaged.reduce((n, d) => n + d.bytes, 0),
      repairedFrames: repaired.length,
    });
    const writing = held && i === files.length - 1; // the holder may be appending right now
    for (const d of torn) {
      report.problems.push(
        `journal ${file.path} ends in ${d.bytes} bytes of an interrupted append at offset ${d.offset} (never acknowledged)${writing ? ', or a write in progress' : '; the next open moves the file to quarantine and keeps its valid frames'}`,
      );
    }
    for (const d of damaged) report.problems.push(`journal ${file.path} has ${d.bytes} damaged bytes at offset ${d.offset}${d.atEnd ? ' (at the end)' : ''}`);
    for (const f of repaired) report.problems.push(`journal ${file.path}: frame seq ${f.seq} has a damaged length field (its payload is intact)`);
  });
}

/** Loads the state in memory as an open would (nothing is written) and checks it. */
async function checkState(dataDir: string, report: DoctorReport, limitBytes: number): Promise<void> {
  const SQL = await loadSqlJs();
  const { db, report: loaded } = loadDatabase(SQL, layout(dataDir));
  try {
    report.recovery = { snapshot: loaded.snapshot, appliedSeq: loaded.appliedSeq, knownSeq: loaded.knownSeq, missing: loaded.missing, events: loaded.events };
    for (const range of loaded.missing) {
      report.problems.push(
        `${describeRange(range)} missing (${range.cause}); \`baton serve\` refuses to start, \`${ACCEPT_LOSS_COMMAND}\` starts without them`,
      );
    }
    // A snapshot whose file verifies but whose database is not what it claims (fewer writes than its
    // seq): the load skipped it, and it is as damaged as one with a bad checksum.
    for (const skipped of loaded.skippedSnapshots) {
      const entry = report.snapshots.find((s) => s.file === skipped.file);
      if (!entry?.valid) continue;
      entry.valid = false;
      entry.error = skipped.reason;
      report.problems.push(`snapshot ${skipped.file} is damaged (${skipped.reason.replace(`${skipped.file}: `, '')}); an open skips it`);
    }
    report.integrity = READ_QUERIES.integrity(db);
    const pageSize = Number(db.exec('PRAGMA page_size')[0].values[0][0]);
    const pages = Number(db.exec('PRAGMA page_count')[0].values[0][0]);
    const free = Number(db.exec('PRAGMA freelist_count')[0].values[0][0]);
    report.storage = storageStatus(pages * pageSize, (pages - free) * pageSize, limitBytes);
    const stats = READ_QUERIES.stats(db);
    report.store = { sessions: stats.sessions, turns: stats.turns, textChars: stats.textChars, appliedSeq: loaded.appliedSeq };
    if (report.integrity.join() !== 'ok') report.problems.push(`integrity_check: ${report.integrity.join('; ')}`);
  } catch (err) {
    report.problems.push(`the state could not be checked: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}
