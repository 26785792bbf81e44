// Thin typed helpers over sql.js statements. Statements are prepared once per database and
// reused: in sql.js preparing is a large share of a small query's cost.

import type { BindParams, Database, SqlValue, Statement } from 'sql.js';

export type Row = Record<string, SqlValue>;

const cache = new WeakMap<Database, Map<string, Statement>>();

function statement(db: Database, sql: string): Statement {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
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

export function all<T = Row>(db: Database, sql: string, params: BindParams = []): T[] {
  return withStatement(db, sql, params, (stmt) => {
    const rows: T[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as T);
    return rows;
  });
}

export function one<T = Row>(db: Database, sql: string, params: BindParams = []): T | undefined {
  return withStatement(db, sql, params, (stmt) => (stmt.step() ? (stmt.getAsObject() as T) : undefined));
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

export function changes(db: Database): number {
  return db.getRowsModified();
}

export function lastId(db: Database): number {
  return Number(db.exec('SELECT last_insert_rowid()')[0].values[0][0]);
}
