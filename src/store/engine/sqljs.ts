// Loads sql.js with its .wasm from next to the bundle (dist/) or from node_modules in development.

import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

function wasmPath(): string {
  const beside = path.join(__dirname, 'sql-wasm.wasm');
  if (fs.existsSync(beside)) return beside;
  return require.resolve('sql.js/dist/sql-wasm.wasm');
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const wasmBinary = fs.readFileSync(wasmPath());
    return initSqlJs({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer });
  })();
  return loading;
}
