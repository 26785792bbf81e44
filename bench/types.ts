// Types the benchmark's modules share, in a module of their own so none imports another in a circle.

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export type NativeEngine = 'native' | 'native-turns' | 'native-turns-nosync';

export type Log = (message: string) => void;

export interface RunConfig {
  engine: 'sqljs' | NativeEngine;
  sessions: number;
  turns: number;
  queries: number;
  seed: number;
  snapshotRounds: number;
  stallRounds: number;
  opens: number;
}

export interface Diagnosis {
  imageBytes: number;
  open: { readVerifyMs: number; newDatabaseMs: number; quickCheckMs: number; exportMs: number };
  search: Record<'one' | 'two' | 'phrase', { total: Summary; matchCount: Summary; rank: Summary; excerpts: Summary; matchedTurns: number }>;
  write: {
    findSessionRow: Summary;
    findSessionRowPlan: string;
    planDelta40: Summary;
    applyTurns: Summary;
    indexOneTurn: Summary;
  };
}
