// Worker entry: writes one snapshot (see compactTo) and exits. Runs beside the store worker, so the
// live database keeps answering while the snapshot is exported and written.

import { parentPort, workerData } from 'node:worker_threads';
import { compactTo } from './engine';
import { layout } from './paths';

const { dataDir, uptoSeq } = workerData as { dataDir: string; uptoSeq: number };
compactTo(layout(dataDir), uptoSeq).then(
  (file) => parentPort!.postMessage({ ok: true, file }),
  (err: Error) => parentPort!.postMessage({ ok: false, error: err.message }),
);
