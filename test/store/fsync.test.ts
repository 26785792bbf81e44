// File helpers that keep the disk quiet for the journal: gradual removal, paced atomic writes.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { removeGradually, writeFileAtomicPaced } from '../../src/node/fsync';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

describe('fsync helpers (real files)', () => {
  after(cleanupTempDirs);

  it('removeGradually deletes a large file in slices, and a missing file is no error', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'old-snapshot.db');
    fs.writeFileSync(file, Buffer.alloc(10 << 20, 1));
    const sizes: number[] = [];
    const watcher = setInterval(() => fs.existsSync(file) && sizes.push(fs.statSync(file).size), 1);
    await removeGradually(file, 1 << 20, 3);
    clearInterval(watcher);
    assert.equal(fs.existsSync(file), false);
    assert.ok(
      sizes.some((s) => s > 0 && s < 10 << 20),
      `never seen part-truncated: ${sizes.slice(0, 5).join(',')}`,
    );
    await removeGradually(file);
  });

  it('writeFileAtomicPaced writes every chunk in order and leaves no temp file', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'snap.db');
    const a = Buffer.alloc(3 << 20, 0x61);
    const b = Buffer.from('trailer');
    await writeFileAtomicPaced(target, [a, b], { chunkBytes: 1 << 20, pauseMs: 1 });
    assert.deepEqual(fs.readFileSync(target), Buffer.concat([a, b]));
    assert.deepEqual(fs.readdirSync(dir), ['snap.db']);
    assert.equal(fs.statSync(target).mode & 0o777, 0o600);
  });
});
