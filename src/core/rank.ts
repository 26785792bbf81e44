// BM25 computed from FTS4 matchinfo(t, 'pcnalx') — FTS4 has no built-in ranking function.
// Layout (32-bit unsigned ints): p (phrases), c (columns), n (rows), a[c] (avg tokens per column),
// l[c] (tokens in this row's column), then x[p][c][3] (hits this row, hits all rows, rows with hits).

const K1 = 1.2;
const B = 0.75;

/** Returns a negative score: lower is better, matching SQLite's `ORDER BY rank` convention. */
export function bm25FromMatchinfo(info: Uint32Array): number {
  const phrases = info[0];
  const columns = info[1];
  const rows = info[2];
  const avgOffset = 3;
  const lenOffset = avgOffset + columns;
  const xOffset = lenOffset + columns;
  let score = 0;
  for (let p = 0; p < phrases; p++) {
    for (let c = 0; c < columns; c++) {
      const base = xOffset + 3 * (p * columns + c);
      const hitsHere = info[base];
      const rowsWithHits = info[base + 2];
      if (hitsHere === 0) continue;
      const idf = Math.log(1 + (rows - rowsWithHits + 0.5) / (rowsWithHits + 0.5));
      const avgLen = info[avgOffset + c] || 1;
      const len = info[lenOffset + c];
      const tf = (hitsHere * (K1 + 1)) / (hitsHere + K1 * (1 - B + (B * len) / avgLen));
      score += idf * tf;
    }
  }
  return -score;
}

/** sql.js hands BLOBs to user functions as Uint8Array; matchinfo is native-endian u32 (little on WASM). */
export function matchinfoFromBytes(bytes: Uint8Array): Uint32Array {
  const copy = new Uint8Array(bytes.length - (bytes.length % 4));
  copy.set(bytes.subarray(0, copy.length));
  return new Uint32Array(copy.buffer);
}
