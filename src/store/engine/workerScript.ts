// Starts a worker entry point: the bundled .js beside dist/*.js, or the .ts source when running
// from source (tests, under tsx), in which case the worker registers tsx's require hook first.

import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

export function spawnWorker(name: 'storeWorker' | 'compactorWorker', workerData: unknown): Worker {
  if (__filename.endsWith('.ts')) {
    const script = path.join(__dirname, name + '.ts');
    return new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { eval: true, workerData });
  }
  return new Worker(path.join(__dirname, name + '.js'), { workerData });
}
