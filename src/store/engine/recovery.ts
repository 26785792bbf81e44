// What opening a data directory found and did about damage: a list of recovery events that the
// caller shows (serve prints them, the VS Code host notifies), and the refusal raised when
// acknowledged writes would be missing. The rules are in docs/storage.md.

import * as path from 'node:path';

export type RecoveryEventKind =
  /** An interrupted append at the end of a journal file: never acknowledged, nothing lost. */
  | 'torn-tail'
  /** Damaged bytes inside a journal file; the scan went on at the next valid frame. */
  | 'journal-damage'
  /** A frame whose length field was damaged, read back intact because its checksum still matched. */
  | 'frame-repaired'
  /** A snapshot that failed its checksum (or is not a database); an older one or the journal was used. */
  | 'snapshot-skipped'
  /** A damaged file moved aside into the quarantine directory. */
  | 'quarantined'
  /** A journal file replaced by a copy holding only its valid frames (the original is in quarantine). */
  | 'journal-rewritten'
  /** A fresh snapshot written at open, so that two generations exist again after damage. */
  | 'snapshot-written'
  /** A snapshot just written failed its check when read back: it went into quarantine, the journal it covers stays. */
  | 'snapshot-failed'
  /** Writes known to be missing, opened anyway because the loss was accepted. */
  | 'loss-accepted';

export interface RecoveryEvent {
  kind: RecoveryEventKind;
  /** One line for people: file names, byte offsets and sequence numbers only, never stored text. */
  message: string;
  file?: string;
}

/** Sequence numbers (inclusive) that should be in the store but could not be read, and why. */
export interface MissingRange {
  from: number;
  to: number;
  /** Names the damaged or absent files. */
  cause: string;
}

export function describeRange(range: { from: number; to: number }): string {
  return range.from === range.to ? `write seq ${range.from}` : `writes seq ${range.from}-${range.to}`;
}

/** The command that opens a damaged store anyway. */
export const ACCEPT_LOSS_COMMAND = 'baton serve --accept-loss';

/** Opening refused: acknowledged writes would be missing. Nothing on disk was changed. */
export class DataLossError extends Error {
  constructor(
    readonly dataDir: string,
    readonly missing: MissingRange[],
  ) {
    super(
      `refusing to open ${dataDir}: acknowledged data would be missing:\n` +
        missing.map((m) => `  ${describeRange(m)}: ${m.cause}`).join('\n') +
        `\nNo file was changed or moved. \`baton doctor\` shows the details; to open anyway without these writes` +
        ` (damaged files are moved to ${path.join(dataDir, 'quarantine')}), run: ${ACCEPT_LOSS_COMMAND}`,
    );
    this.name = 'DataLossError';
  }
}
