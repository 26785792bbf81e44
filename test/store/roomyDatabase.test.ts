// The database file with room to grow, on the real sql.js: the room is really there (so growth
// copies nothing), and a database opened this way reads, grows, exports and reopens intact.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import type { Database } from 'sql.js';
import { fileImage, MIN_ROOM_BYTES, openWithRoom, roomFor, trackerOf } from '../../src/store/engine/roomyDatabase';
import { readSnapshot, writeSnapshot } from '../../src/store/engine/snapshot';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const MB = 1024 * 1024;

function rows(db: { exec(sql: string): Array<{ values: unknown[][] }> }, sql: string): unknown[][] {
  return db.exec(sql)[0]?.values ?? [];
}

/** Inserts `count` rows into t(body) in one transaction, so the file grows by many pages at once. */
function addRows(db: Database, count: number, body: (i: number) => string): void {
  db.exec('BEGIN');
  for (let i = 0; i < count; i++) db.run('INSERT INTO t (body) VALUES (?)', [body(i)]);
  db.exec('COMMIT');
}

describe('database file with room to grow (real sql.js)', () => {
  it('asks for at least 2 GiB, or four times the image, and never more than a typed array can span', () => {
    assert.equal(roomFor(10 * MB), MIN_ROOM_BYTES);
    assert.equal(roomFor(600 * MB), 2400 * MB);
    assert.equal(roomFor(1500 * MB), 4 * 1024 * MB);
  });

  it('puts the file inside a buffer of that size: the address space is taken, the memory is not', async () => {
    const SQL = await loadSqlJs();
    const before = process.memoryUsage();
    const db = openWithRoom(SQL);
    try {
      const after = process.memoryUsage();
      // If sql.js stopped copying a new file with slice(), the room would be missing and this fails.
      // The file's own buffer is asked, not the process's total of array buffers: in a long run,
      // other tests' buffers are collected meanwhile and that total can shrink by more than the room.
      assert.ok(trackerOf(db), 'the file lives in its room');
      assert.ok(fileImage(db).buffer.byteLength >= MIN_ROOM_BYTES, `the file's buffer spans ${fileImage(db).buffer.byteLength} bytes`);
      assert.ok(after.rss - before.rss < 256 * MB, `resident memory grew by ${after.rss - before.rss} bytes`);
    } finally {
      db.close();
    }
  });

  it('a new database grows past its first page, exports, and reopens with every row', async () => {
    const SQL = await loadSqlJs();
    const db = openWithRoom(SQL);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    const body = 'x'.repeat(4000);
    addRows(db, 5000, (i) => `${i}:${body}`);
    const image = db.export();
    db.close();
    assert.ok(image.length > 16 * MB, `image is ${image.length} bytes`);

    const reopened = openWithRoom(SQL, image);
    try {
      assert.deepEqual(rows(reopened, 'PRAGMA integrity_check'), [['ok']]);
      assert.deepEqual(rows(reopened, 'SELECT count(*), min(id), max(id) FROM t'), [[5000, 1, 5000]]);
      assert.deepEqual(rows(reopened, 'SELECT body FROM t WHERE id = 4321'), [[`4320:${body}`]]);
    } finally {
      reopened.close();
    }
  });

  it("a database opened from an image keeps it, grows in place, and leaves the caller's image untouched", async () => {
    const SQL = await loadSqlJs();
    const seed = openWithRoom(SQL);
    seed.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO t (body) VALUES ('first')");
    const image = seed.export();
    seed.close();
    const original = Uint8Array.from(image);

    const db = openWithRoom(SQL, image);
    try {
      addRows(db, 2000, () => 'y'.repeat(3000));
      assert.deepEqual(Uint8Array.from(image), original, 'the image passed in was written to');
      const grown = db.export();
      assert.ok(grown.length > image.length * 100);
      const copy = new SQL.Database(grown);
      assert.deepEqual(rows(copy, 'PRAGMA integrity_check'), [['ok']]);
      assert.deepEqual(rows(copy, 'SELECT count(*), (SELECT body FROM t WHERE id = 1) FROM t'), [[2001, 'first']]);
      copy.close();
    } finally {
      db.close();
    }
  });
});

describe('snapshot read into the room (real sql.js, real files)', () => {
  after(cleanupTempDirs);

  it('opens a snapshot without copying it: the database takes over the buffer the file was read into', async () => {
    const SQL = await loadSqlJs();
    const seed = openWithRoom(SQL);
    seed.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    addRows(seed, 4000, () => 'z'.repeat(4000));
    const file = writeSnapshot(tempDir(), 7, seed.export());
    seed.close();

    const { seq, image } = readSnapshot(file, roomFor);
    assert.equal(seq, 7);
    const before = process.memoryUsage().arrayBuffers;
    const db = openWithRoom(SQL, image);
    try {
      const grown = process.memoryUsage().arrayBuffers - before;
      assert.ok(grown < image.length / 4, `opening allocated ${grown} bytes for a ${image.length}-byte image`);
      assert.deepEqual(rows(db, 'PRAGMA integrity_check'), [['ok']]);
      db.run('INSERT INTO t (body) VALUES (?)', ['after']);
      assert.deepEqual(rows(db, 'SELECT count(*), max(body) FROM t'), [[4001, 'zzzz'.repeat(1000)]]);
    } finally {
      db.close();
    }
  });

  it('still rejects a snapshot whose image does not match its checksum', () => {
    const file = writeSnapshot(tempDir(), 3, new Uint8Array(8192).fill(7));
    const bytes = fs.readFileSync(file);
    bytes[100] ^= 1;
    fs.writeFileSync(file, bytes);
    assert.throws(() => readSnapshot(file, () => 1 << 20), /checksum mismatch/);
  });
});

describe('snapshot image straight from the file (real sql.js)', () => {
  it('holds what export() gives, byte for byte but for the counters a backup bumps, and takes no copy', async () => {
    const SQL = await loadSqlJs();
    const db = openWithRoom(SQL);
    try {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX t_body ON t (body)');
      addRows(db, 3000, (i) => `${i} ${'w'.repeat(2000)}`);
      db.exec('DELETE FROM t WHERE id % 3 = 0'); // free pages stay in the file: they must match too
      const before = process.memoryUsage().arrayBuffers;
      const image = fileImage(db);
      assert.ok(process.memoryUsage().arrayBuffers - before < image.length / 4, 'fileImage copied the file');
      const exported = db.export();
      assert.equal(image.length, exported.length);
      // export() goes through SQLite's backup, which bumps the copy's change counter, schema
      // cookie and version-valid-for number (header bytes 24–27, 40–43, 92–95); all else is equal.
      const bumped = new Set([24, 25, 26, 27, 40, 41, 42, 43, 92, 93, 94, 95]);
      const differing = [];
      for (let i = 0; i < image.length; i++) if (image[i] !== exported[i] && !bumped.has(i)) differing.push(i);
      assert.deepEqual(differing.slice(0, 10), [], 'fileImage differs from export()');
      const copy = new SQL.Database(Uint8Array.from(image));
      assert.deepEqual(rows(copy, 'PRAGMA integrity_check'), [['ok']]);
      assert.deepEqual(rows(copy, 'SELECT count(*) FROM t'), [[2000]]);
      copy.close();
    } finally {
      db.close();
    }
  });

  it('falls back to export() for a database opened without room', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.exec("CREATE TABLE t (x); INSERT INTO t VALUES ('plain')");
    const image = fileImage(db);
    assert.deepEqual(rows(new SQL.Database(image), 'SELECT x FROM t'), [['plain']]);
    db.close();
  });
});
