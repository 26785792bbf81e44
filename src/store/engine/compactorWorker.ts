// Worker entry: writes one snapshot and exits. Runs beside the store worker, so the live database
// keeps answering while the snapshot is written. Normally the snapshot is the previous one with
// the pages changed since laid over it, fetched from the store thread a window at a time; when
// those pages are not tracked, the state is rebuilt from the previous snapshot and the journal.

import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { compactByPatch, compactByReplay } from './engine';
import { layout } from '../../node/paths';
import { UnusableBaseError } from './snapshot';

/** `window`: shared with the store thread, which lays each window's captured pages straight into it. */
export type CompactorData = { dataDir: string; seq: number } & (
  { kind: 'replay' } | { kind: 'patch'; base: string | null; size: number; window: SharedArrayBuffer }
);

/** From the compactor to the store worker. */
export type CompactorMessage =
  | { type: 'want'; fromPage: number; toPage: number }
  | { type: 'done'; ok: true; file: string }
  | { type: 'done'; ok: false; error: string; unusableBase: boolean };

/** From the store worker to the compactor: the pages asked for are in the window. */
export type OverlaidMessage = { type: 'overlaid' };

const data = workerData as CompactorData;
const port = parentPort!;
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

/** One window at a time: the writer asks for the next window's pages once it gets there. */
function overlay(fromPage: number, toPage: number, into: Uint8Array): Promise<void> {
  if (data.kind !== 'patch' || into.buffer !== data.window || into.byteOffset !== 0) throw new Error('pages are laid into the shared window only');
  return new Promise((resolve) => {
    port.once('message', (_msg: OverlaidMessage) => resolve());
    port.postMessage({ type: 'want', fromPage, toPage } satisfies CompactorMessage);
  });
}

const paths = layout(data.dataDir);
const written = data.kind === 'patch' ? compactByPatch(paths, data, { overlay }, new Uint8Array(data.window)) : compactByReplay(paths, data.seq);
written.then(
  (file) => port.postMessage({ type: 'done', ok: true, file } satisfies CompactorMessage),
  (err: Error) => port.postMessage({ type: 'done', ok: false, error: err.message, unusableBase: err instanceof UnusableBaseError } satisfies CompactorMessage),
);
