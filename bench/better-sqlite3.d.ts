// Minimal typings for the parts of better-sqlite3 the benchmark uses (no @types package is installed).

declare module 'better-sqlite3' {
  class Database {
    constructor(filename: string, options?: Database.Options);
    prepare<R = unknown>(sql: string): Database.Statement<R>;
    exec(sql: string): this;
    pragma(source: string, options?: { simple?: boolean }): unknown;
    transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
    close(): this;
  }
  namespace Database {
    interface Options {
      readonly?: boolean;
      fileMustExist?: boolean;
      timeout?: number;
    }
    interface RunResult {
      changes: number;
      lastInsertRowid: number | bigint;
    }
    interface Statement<R = unknown> {
      run(...params: unknown[]): RunResult;
      get(...params: unknown[]): R | undefined;
      all(...params: unknown[]): R[];
    }
  }
  export = Database;
}
