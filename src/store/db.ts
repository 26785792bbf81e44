// Thin typed helpers over sql.js statements.

import type { BindParams, Database, SqlValue } from 'sql.js';

export type Row = Record<string, SqlValue>;

export function all<T = Row>(db: Database, sql: string, params: BindParams = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: T[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as T);
    return rows;
  } finally {
    stmt.free();
  }
}

export function one<T = Row>(db: Database, sql: string, params: BindParams = []): T | undefined {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    return stmt.step() ? (stmt.getAsObject() as T) : undefined;
  } finally {
    stmt.free();
  }
}

export function run(db: Database, sql: string, params: BindParams = []): void {
  db.run(sql, params);
}

export function changes(db: Database): number {
  return db.getRowsModified();
}

export function lastId(db: Database): number {
  return Number(db.exec('SELECT last_insert_rowid()')[0].values[0][0]);
}
