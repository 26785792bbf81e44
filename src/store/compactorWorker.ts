// Worker entry: writes one snapshot (see compactTo) and exits. Runs beside the store worker, so the
// live database keeps answering while the snapshot is exported and written.

import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { compactTo } from './engine';
import { layout } from './paths';

const { dataDir, uptoSeq } = workerData as { dataDir: string; uptoSeq: number };
// On Linux a nice value belongs to a thread: this lowers the compactor alone, so on a busy machine
// the store thread answering hooks gets the CPU first. Elsewhere it may apply to the process or
// fail; the compactor works either way.
if (process.platform === 'linux') {
  try {
    os.setPriority(0, 10);
  } catch {
    // not permitted: run at normal priority
  }
}
compactTo(layout(dataDir), uptoSeq).then(
  (file) => parentPort!.postMessage({ ok: true, file }),
  (err: Error) => parentPort!.postMessage({ ok: false, error: err.message }),
);
