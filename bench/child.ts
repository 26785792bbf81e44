// Entry point of one benchmark process (one engine at one size), so each run has its own memory
// high-water mark. run.ts bundles this file with esbuild beside the production store workers
// (dist/storeWorker.js, dist/compactorWorker.js, dist/sql-wasm.wasm) and forks it.

import { runNative } from './native';
import { runSqljs } from './sqljs';
import type { RunConfig } from './types';

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.BENCH_CHILD_CONFIG ?? '{}') as RunConfig;
  const t0 = Date.now();
  const log = (message: string) => process.stderr.write(`  [${cfg.engine} N=${cfg.sessions} +${((Date.now() - t0) / 1000).toFixed(0)}s] ${message}\n`);
  const result = cfg.engine !== 'sqljs' ? await runNative(cfg, log) : await runSqljs(cfg, log);
  process.send!(result, undefined, undefined, () => process.exit(0));
}

main().catch((err: Error) => {
  process.stderr.write(`benchmark child failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
