// Health report of a data directory: lock holder, snapshots (verified), journal (frames, torn
// tails) and, when the directory is free, a full PRAGMA integrity_check through a real open.

import * as fs from 'node:fs';
import { listJournalFiles, readJournalFile } from './journal';
import { lockHolder, readLock, type LockInfo } from '../node/lock';
import { layout } from '../node/paths';
import { listSnapshots, readSnapshot } from './snapshot';
import { Store } from './store';

export interface DoctorReport {
  dataDir: string;
  exists: boolean;
  lock: { state: 'free' | 'held' | 'stale'; holder: LockInfo | null };
  snapshots: Array<{ file: string; seq: number; bytes: number; valid: boolean; error?: string }>;
  journal: Array<{ file: string; firstSeq: number; bytes: number; frames: number; tornBytes: number }>;
  integrity: string[] | null;
  store: { sessions: number; turns: number; textChars: number; appliedSeq: number } | null;
  problems: string[];
}

export async function runDoctor(dataDir: string): Promise<DoctorReport> {
  const paths = layout(dataDir);
  const report: DoctorReport = {
    dataDir,
    exists: fs.existsSync(dataDir),
    lock: { state: 'free', holder: null },
    snapshots: [],
    journal: [],
    integrity: null,
    store: null,
    problems: [],
  };
  const recorded = readLock(paths.lock);
  const live = lockHolder(paths.lock);
  report.lock = { state: live ? 'held' : recorded ? 'stale' : 'free', holder: recorded };
  for (const snap of listSnapshots(paths.snapshotDir)) {
    const bytes = fs.statSync(snap.path).size;
    try {
      readSnapshot(snap.path);
      report.snapshots.push({ file: snap.path, seq: snap.seq, bytes, valid: true });
    } catch (err) {
      report.snapshots.push({ file: snap.path, seq: snap.seq, bytes, valid: false, error: (err as Error).message });
      report.problems.push(`snapshot ${snap.path} is invalid (${(err as Error).message}); an older one will be used`);
    }
  }
  for (const file of listJournalFiles(paths.journalDir)) {
    const read = readJournalFile(file.path);
    report.journal.push({ file: file.path, firstSeq: file.firstSeq, bytes: read.validBytes + read.droppedBytes, frames: read.frames.length, tornBytes: read.droppedBytes });
    if (read.droppedBytes > 0) report.problems.push(`journal ${file.path} ends in ${read.droppedBytes} torn bytes (dropped at next open)`);
  }
  if (!live && report.exists) {
    const store = await Store.open({ dataDir, holder: 'baton doctor' });
    try {
      report.integrity = await store.read('integrity', {});
      const stats = await store.read('stats', {});
      report.store = { sessions: stats.sessions, turns: stats.turns, textChars: stats.textChars, appliedSeq: store.report.appliedSeq };
      if (report.integrity.join() !== 'ok') report.problems.push(`integrity_check: ${report.integrity.join('; ')}`);
    } finally {
      await store.close();
    }
  }
  return report;
}
