// The run manager moved to src/runs/runManager.ts (the server, the CLI and VS Code share it).
// This re-export keeps the one remaining import of the old path working until it is updated.
export type { RunManager } from '../runs/runManager';
