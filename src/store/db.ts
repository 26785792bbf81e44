// Thin typed helpers over sql.js statements. Statements are prepared once per database and
// reused: in sql.js preparing is a large share of a small query's cost.

import type { BindParams, Database, SqlValue, Statement } from 'sql.js';

export type Row = Record<string, SqlValue>;

/**
 * What a store module keeps per database (prepared statements, lookup caches): `db`'s entry in
 * `kept`, made by `create` the first time. Weakly keyed, so a closed database takes it along.
 */
export function keptFor<V>(kept: WeakMap<Database, V>, db: Database, create: () => V): V {
  let value = kept.get(db);
  if (value === undefined) {
    value = create();
    kept.set(db, value);
  }
  return value;
}

/** Answers `remembered` keeps per map before it starts over (a bound on memory, not a cache policy). */
const ANSWERS_KEPT = 50_000;

/**
 * `compute`'s answer for `key` in `db`'s map of `kept`, remembered when `lasting` says it cannot
 * change any more (what the store learns about its index: a word found in a shard, a sealed
 * shard's documents).
 */
export function remembered<V>(kept: WeakMap<Database, Map<string, V>>, db: Database, key: string, lasting: (value: V) => boolean, compute: () => V): V {
  const known = keptFor(kept, db, () => new Map<string, V>());
  if (known.has(key)) return known.get(key)!;
  const value = compute();
  if (lasting(value)) {
    if (known.size >= ANSWERS_KEPT) known.clear();
    known.set(key, value);
  }
  return value;
}

const cache = new WeakMap<Database, Map<string, Statement>>();

function statement(db: Database, sql: string): Statement {
  const statements = keptFor(cache, db, () => new Map<string, Statement>());
  let stmt = statements.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    statements.set(sql, stmt);
  }
  return stmt;
}

/** Runs `fn` with a bound cached statement and always resets it, so it is ready for the next use. */
function withStatement<T>(db: Database, sql: string, params: BindParams, fn: (stmt: Statement) => T): T {
  const stmt = statement(db, sql);
  try {
    stmt.bind(params);
    return fn(stmt);
  } finally {
    stmt.reset();
  }
}

const columnNames = new WeakMap<Statement, string[]>();

/**
 * The current row as an object. sql.js's getAsObject asks SQLite for every column's name on every
 * row (a WASM call each); a prepared statement's names are fixed, so they are asked once. (A schema
 * change can re-prepare a `SELECT *` with other columns: a changed count asks again.)
 */
function rowObject(stmt: Statement): Row {
  const values = stmt.get();
  let names = columnNames.get(stmt);
  if (!names || names.length !== values.length) {
    names = stmt.getColumnNames();
    columnNames.set(stmt, names);
  }
  const row: Row = {};
  for (let i = 0; i < values.length; i++) row[names[i]] = values[i];
  return row;
}

export function all<T = Row>(db: Database, sql: string, params: BindParams = []): T[] {
  return withStatement(db, sql, params, (stmt) => {
    const rows: T[] = [];
    while (stmt.step()) rows.push(rowObject(stmt) as T);
    return rows;
  });
}

/**
 * Visits rows in order until `visit` returns false: a caller that needs only the first few rows
 * of a long result (the newest segments of a long transcript) never copies the rest out of WASM.
 */
export function eachRow<T = Row>(db: Database, sql: string, params: BindParams, visit: (row: T) => boolean): void {
  withStatement(db, sql, params, (stmt) => {
    while (stmt.step()) if (!visit(rowObject(stmt) as T)) break;
  });
}

export function one<T = Row>(db: Database, sql: string, params: BindParams = []): T | undefined {
  return withStatement(db, sql, params, (stmt) => (stmt.step() ? (rowObject(stmt) as T) : undefined));
}

export function run(db: Database, sql: string, params: BindParams = []): void {
  withStatement(db, sql, params, (stmt) => {
    stmt.step();
  });
}

/** Forgets the cached statements of a database (before export() or close(), which free them). */
export function forgetStatements(db: Database): void {
  const statements = cache.get(db);
  if (!statements) return;
  for (const stmt of statements.values()) stmt.free();
  cache.delete(db);
}

/** A number kept in the meta table; `fallback` when the key is absent. */
export function metaNumber(db: Database, key: string, fallback: number): number {
  return Number(one<{ value: string }>(db, 'SELECT value FROM meta WHERE key = ?', [key])?.value ?? fallback);
}

/** Stores a number in the meta table. */
export function setMetaNumber(db: Database, key: string, value: number): void {
  run(db, 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, String(value)]);
}

/**
 * Long text to bind where the SQL says CAST(? AS TEXT). sql.js encodes a bound string into the
 * WASM heap one character at a time in JS (about 10 µs a KB); Buffer.from encodes natively and the
 * bytes are copied in at once. The CAST makes the stored value TEXT again (UTF-8 is the database's
 * encoding), so readers see no difference.
 */
export function utf8(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

export function changes(db: Database): number {
  return db.getRowsModified();
}

export function lastId(db: Database): number {
  return Number(db.exec('SELECT last_insert_rowid()')[0].values[0][0]);
}
