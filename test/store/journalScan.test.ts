// The journal scan's rules on real frame bytes (docs/storage.md): resynchronising after a damaged
// frame, reading back a frame whose length field alone is damaged, and telling an interrupted
// append at the end from a damaged complete frame.

import { strict as assert } from 'node:assert';
import { cleanJournalBytes, encodeFrame, scanJournal } from '../../src/store/engine/journal';

const frame = (seq: number) => encodeFrame({ seq, records: [{ note: `frame ${seq} `.repeat(3) }] });
const journal = (n: number) => Buffer.concat(Array.from({ length: n }, (_, i) => frame(i + 1)));
/** Byte offset of frame `seq` (1-based) in journal(n). */
const offsetOf = (seq: number) => Array.from({ length: seq - 1 }, (_, i) => frame(i + 1).length).reduce((a, b) => a + b, 0);

describe('journal scan', () => {
  it('reads a clean journal whole', () => {
    const read = scanJournal(journal(5));
    assert.deepEqual(
      read.frames.map((f) => f.seq),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(read.damage, []);
    assert.equal(read.droppedBytes, 0);
  });

  it('resumes after a damaged payload at the next valid frame', () => {
    const data = journal(5);
    data[offsetOf(3) + 20] ^= 0x55;
    const read = scanJournal(data);
    assert.deepEqual(
      read.frames.map((f) => f.seq),
      [1, 2, 4, 5],
    );
    assert.deepEqual(read.damage, [{ offset: offsetOf(3), bytes: frame(3).length, atEnd: false, torn: false }]);
  });

  it('resumes after a damaged checksum field and after garbage inserted between frames', () => {
    const data = journal(4);
    data[offsetOf(2) + 5] ^= 0x01;
    assert.deepEqual(
      scanJournal(data).frames.map((f) => f.seq),
      [1, 3, 4],
    );
    const inserted = Buffer.concat([journal(2), Buffer.from('garbage in between'), frame(3)]);
    const read = scanJournal(inserted);
    assert.deepEqual(
      read.frames.map((f) => f.seq),
      [1, 2, 3],
    );
    assert.equal(read.damage[0].bytes, 'garbage in between'.length);
  });

  it('reads back a frame whose length field alone is damaged, in the middle and at the end', () => {
    for (const seq of [2, 4]) {
      for (const flip of [0x01, 0x80]) {
        const data = journal(4);
        data[offsetOf(seq)] ^= flip;
        const read = scanJournal(data);
        assert.deepEqual(
          read.frames.map((f) => f.seq),
          [1, 2, 3, 4],
          `seq ${seq} flip ${flip}`,
        );
        assert.deepEqual(
          read.frames.filter((f) => f.lengthRepaired).map((f) => f.seq),
          [seq],
        );
        assert.ok(cleanJournalBytes(data, read.frames).equals(journal(4)), 'the clean copy has the right length again');
      }
    }
  });

  it('calls an incomplete last frame, zeros or garbage at the end torn, and a damaged complete last frame not', () => {
    const cut = journal(3).subarray(0, offsetOf(3) + 12);
    assert.deepEqual(scanJournal(cut).damage, [{ offset: offsetOf(3), bytes: 12, atEnd: true, torn: true }]);
    const zeroed = journal(3);
    zeroed.fill(0, offsetOf(3) + 10);
    assert.equal(scanJournal(zeroed).damage[0].torn, true);
    const garbage = Buffer.concat([journal(2), Buffer.from([5, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9])]);
    assert.equal(scanJournal(garbage).damage[0].torn, true);
    const flipped = journal(3);
    flipped[flipped.length - 7] ^= 0x20;
    assert.deepEqual(scanJournal(flipped).damage, [{ offset: offsetOf(3), bytes: frame(3).length, atEnd: true, torn: false }]);
  });
});
