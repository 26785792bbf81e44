import { strict as assert } from 'node:assert';
import { bm25FromMatchinfo, matchinfoFromBytes } from '../../src/core/rank';
import { loadSqlJs } from '../../src/store/engine/sqljs';

const K1 = 1.2;
const B = 0.75;

/** Okapi BM25 contribution of one phrase in one column, written out independently of src/core/rank.ts. */
function termScore(N: number, n: number, hits: number, len: number, avg: number): number {
  const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
  const tf = (hits * (K1 + 1)) / (hits + K1 * (1 - B + B * (len / avg)));
  return idf * tf;
}

interface Phrase {
  /** Per column: [hits in this row, hits in all rows, rows with hits]. */
  x: Array<[number, number, number]>;
}

/** Builds matchinfo(t, 'pcnalx'): p, c, n, a[c], l[c], then x[p][c][3]. */
function matchinfo(rows: number, avg: number[], len: number[], phrases: Phrase[]): Uint32Array {
  const out = [phrases.length, avg.length, rows, ...avg, ...len];
  for (const p of phrases) for (const triple of p.x) out.push(...triple);
  return Uint32Array.from(out);
}

/** One phrase, one column. */
const single = (N: number, n: number, hits: number, len: number, avg: number) => matchinfo(N, [avg], [len], [{ x: [[hits, hits, n]] }]);

describe('bm25FromMatchinfo', () => {
  it('matches the hand-computed BM25 for one phrase and one column', () => {
    // N=10 rows, n=2 rows with hits, 3 hits here, row length 10, average 20.
    // idf = ln(1 + 8.5/2.5) = ln(4.4); tf = 3*2.2 / (3 + 1.2*(0.25 + 0.75*0.5)) = 6.6/3.75 = 1.76.
    const expected = -Math.log(4.4) * 1.76;
    assert.ok(Math.abs(expected - -2.6076239920266193) < 1e-12);
    assert.ok(Math.abs(bm25FromMatchinfo(single(10, 2, 3, 10, 20)) - expected) < 1e-12);
  });

  it('agrees with the written-out formula over a grid of values', () => {
    for (const N of [1, 5, 100, 100_000]) {
      for (const n of [1, 2, Math.max(1, Math.floor(N / 2)), N]) {
        if (n > N) continue;
        for (const hits of [1, 2, 7]) {
          for (const [len, avg] of [
            [1, 1],
            [5, 20],
            [40, 10],
            [100, 100],
          ]) {
            const got = bm25FromMatchinfo(single(N, n, hits, len, avg));
            const want = -termScore(N, n, hits, len, avg);
            assert.ok(Math.abs(got - want) < 1e-9, `N=${N} n=${n} hits=${hits} len=${len} avg=${avg}: ${got} vs ${want}`);
          }
        }
      }
    }
  });

  it('is negative for any matching row', () => {
    assert.ok(bm25FromMatchinfo(single(10, 2, 1, 10, 10)) < 0);
    // Even a term present in every row keeps a small positive idf (the +1 inside the log).
    const everywhere = bm25FromMatchinfo(single(10, 10, 1, 10, 10));
    assert.ok(everywhere < 0);
    assert.ok(Math.abs(everywhere - -Math.log(1 + 0.5 / 10.5)) < 1e-12);
  });

  it('is exactly 0 when no phrase hits this row', () => {
    // Compared with === so that -0 and 0 are the same.
    assert.ok(bm25FromMatchinfo(single(10, 2, 0, 10, 10)) === 0);
    assert.ok(bm25FromMatchinfo(matchinfo(10, [10], [10], [])) === 0);
  });

  it('ranks more hits better (lower)', () => {
    const one = bm25FromMatchinfo(single(100, 10, 1, 20, 20));
    const three = bm25FromMatchinfo(single(100, 10, 3, 20, 20));
    const ten = bm25FromMatchinfo(single(100, 10, 10, 20, 20));
    assert.ok(three < one, `${three} < ${one}`);
    assert.ok(ten < three, `${ten} < ${three}`);
    // Term frequency saturates: never more than (k1 + 1) times the idf.
    assert.ok(ten > -Math.log(1 + 90.5 / 10.5) * (K1 + 1));
  });

  it('weighs rarer terms more', () => {
    const rare = bm25FromMatchinfo(single(100, 1, 2, 20, 20));
    const common = bm25FromMatchinfo(single(100, 50, 2, 20, 20));
    assert.ok(rare < common, `${rare} < ${common}`);
    assert.ok(Math.abs(rare - -termScore(100, 1, 2, 20, 20)) < 1e-12);
  });

  it('ranks shorter documents better at equal hits', () => {
    const short = bm25FromMatchinfo(single(100, 10, 2, 5, 20));
    const average = bm25FromMatchinfo(single(100, 10, 2, 20, 20));
    const long = bm25FromMatchinfo(single(100, 10, 2, 80, 20));
    assert.ok(short < average && average < long, `${short} < ${average} < ${long}`);
  });

  it('sums over phrases, skipping phrases without hits here', () => {
    const info = matchinfo(50, [12], [8], [{ x: [[2, 9, 4]] }, { x: [[0, 30, 20]] }, { x: [[1, 1, 1]] }]);
    const want = -(termScore(50, 4, 2, 8, 12) + termScore(50, 1, 1, 8, 12));
    assert.ok(Math.abs(bm25FromMatchinfo(info) - want) < 1e-12);
  });

  it('reads per-column averages, lengths and hits at the right offsets', () => {
    // Two columns with different statistics; two phrases.
    const info = matchinfo(
      20,
      [10, 100],
      [5, 300],
      [
        {
          x: [
            [1, 3, 2],
            [4, 10, 6],
          ],
        },
        {
          x: [
            [0, 0, 0],
            [2, 2, 1],
          ],
        },
      ],
    );
    const want = -(termScore(20, 2, 1, 5, 10) + termScore(20, 6, 4, 300, 100) + termScore(20, 1, 2, 300, 100));
    assert.ok(Math.abs(bm25FromMatchinfo(info) - want) < 1e-12);
  });

  it('treats a zero average length as 1 instead of dividing by zero', () => {
    const got = bm25FromMatchinfo(single(4, 1, 1, 3, 0));
    assert.ok(Number.isFinite(got));
    assert.ok(Math.abs(got - -termScore(4, 1, 1, 3, 1)) < 1e-12);
  });
});

describe('matchinfoFromBytes', () => {
  it('reads little-endian 32-bit unsigned integers', () => {
    const bytes = Uint8Array.from([1, 0, 0, 0, 0x04, 0x03, 0x02, 0x01, 0xff, 0xff, 0xff, 0xff]);
    assert.deepEqual(Array.from(matchinfoFromBytes(bytes)), [1, 0x01020304, 0xffffffff]);
  });

  it('ignores a trailing partial word', () => {
    const bytes = Uint8Array.from([2, 0, 0, 0, 7, 0, 0]);
    assert.deepEqual(Array.from(matchinfoFromBytes(bytes)), [2]);
  });

  it('handles a view at an unaligned offset into a larger buffer', () => {
    const backing = new Uint8Array(11);
    backing.set([9, 0, 0, 0, 5, 0, 0, 0], 3);
    const view = backing.subarray(3);
    assert.deepEqual(Array.from(matchinfoFromBytes(view)), [9, 5]);
  });

  it('copies: later changes to the input do not affect the result', () => {
    const bytes = Uint8Array.from([3, 0, 0, 0]);
    const info = matchinfoFromBytes(bytes);
    bytes[0] = 99;
    assert.equal(info[0], 3);
  });

  it('returns an empty array for empty input', () => {
    assert.equal(matchinfoFromBytes(new Uint8Array(0)).length, 0);
  });
});

describe('bm25 in real sql.js FTS4', () => {
  // All documents have 4 tokens, so the average is exactly 4 and length does not favour anyone.
  const DOCS: Array<[number, string]> = [
    [1, 'zebra apple apple apple'],
    [2, 'zebra zebra zebra apple'],
    [3, 'apple apple apple apple'],
    [4, 'apple zebra apple apple'],
    [5, 'apple apple banana banana'],
    [6, 'apple apple apple apple'],
  ];

  async function openDb() {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.create_function('bm25', (b: Uint8Array) => bm25FromMatchinfo(matchinfoFromBytes(b)));
    db.run('CREATE VIRTUAL TABLE t USING fts4(text, tokenize=unicode61)');
    for (const [id, text] of DOCS) db.run('INSERT INTO t(docid, text) VALUES (?, ?)', [id, text]);
    return db;
  }

  function ranked(db: Awaited<ReturnType<typeof openDb>>, query: string): Array<[number, number]> {
    const res = db.exec("SELECT docid, bm25(matchinfo(t, 'pcnalx')) AS r FROM t WHERE t MATCH ? ORDER BY r, docid", [query]);
    return res.length === 0 ? [] : res[0].values.map((row) => [Number(row[0]), Number(row[1])]);
  }

  it('puts the document with most occurrences of the rare term first', async () => {
    const db = await openDb();
    try {
      const rows = ranked(db, 'zebra');
      assert.deepEqual(
        rows.map((r) => r[0]),
        [2, 1, 4],
      );
      assert.ok(rows[0][1] < rows[1][1]);
      assert.equal(rows[1][1], rows[2][1], 'equal hits and equal length tie');
    } finally {
      db.close();
    }
  });

  it('a rare term outweighs many occurrences of a term found in every row', async () => {
    const db = await openDb();
    try {
      const rows = ranked(db, 'apple OR zebra');
      assert.equal(rows.length, 6);
      assert.deepEqual(
        rows.slice(0, 3).map((r) => r[0]),
        [2, 1, 4],
      );
      // Document 2: apple once (in all 6 rows), zebra three times (in 3 rows); length 4 = average 4.
      const want = -(termScore(6, 6, 1, 4, 4) + termScore(6, 3, 3, 4, 4));
      assert.ok(Math.abs(rows[0][1] - want) < 1e-9, `${rows[0][1]} vs ${want}`);
      // Documents 3 and 6 (four apples, no zebra) come after every zebra document.
      assert.ok(rows.findIndex((r) => r[0] === 3) > 2);
      assert.ok(rows.findIndex((r) => r[0] === 6) > 2);
    } finally {
      db.close();
    }
  });

  it('scores computed in SQL equal the formula from the matchinfo SQLite returns', async () => {
    const db = await openDb();
    try {
      const res = db.exec("SELECT docid, matchinfo(t, 'pcnalx'), bm25(matchinfo(t, 'pcnalx')) FROM t WHERE t MATCH 'zebra' ORDER BY docid");
      const rows = res[0].values;
      assert.equal(rows.length, 3);
      for (const [docid, blob, score] of rows) {
        const info = Array.from(matchinfoFromBytes(blob as Uint8Array));
        const hits = docid === 2 ? 3 : 1;
        // p=1, c=1, n=6, a=4, l=4, x = [hits here, 5 hits in all rows, 3 rows with hits]
        assert.deepEqual(info, [1, 1, 6, 4, 4, hits, 5, 3]);
        assert.ok(Math.abs(Number(score) - -termScore(6, 3, hits, 4, 4)) < 1e-9);
      }
    } finally {
      db.close();
    }
  });
});
