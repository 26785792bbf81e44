// A run's files as its child reads them (docs/runs.md, "What the child is told"): read from a real
// workspace on disk, then rendered into the prompt; and the bound on children running at once.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { childPrompt, runBrief } from '../../src/core/runs';
import { readRunFiles } from '../../src/runs/runFiles';
import { Slots } from '../../src/runs/slots';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

describe("a run's files", () => {
  after(cleanupTempDirs);

  it('never cuts a UTF-8 character in half at the budget, and says the file was cut', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'greek.txt'), 'αβγ'); // 6 bytes, 2 each
    const [cut] = await readRunFiles(ws, ['greek.txt'], 5);
    assert.equal(cut.status, 'truncated');
    assert.equal(cut.content, 'αβ');
    assert.equal(cut.bytes, 6);
    const [whole] = await readRunFiles(ws, ['greek.txt'], 6);
    assert.deepEqual(whole, { path: 'greek.txt', status: 'included', content: 'αβγ', bytes: 6 });
  });

  it('names directories, absolute paths outside, and every file when there is no usable workspace', async () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, 'dir'));
    fs.writeFileSync(path.join(ws, 'a.txt'), 'A');
    assert.deepEqual(
      (await readRunFiles(ws, ['dir', '/etc/hostname', path.join(ws, 'a.txt')], 100)).map((f) => f.status),
      ['not a file', 'outside', 'included'],
    );
    assert.deepEqual(await readRunFiles(undefined, ['a.txt'], 100), [{ path: 'a.txt', status: 'no workspace' }]);
    assert.deepEqual(await readRunFiles('relative/dir', ['a.txt'], 100), [{ path: 'a.txt', status: 'no workspace' }]);
    assert.deepEqual(await readRunFiles(path.join(ws, 'gone'), ['a.txt'], 100), [{ path: 'a.txt', status: 'no workspace' }]);
  });

  it('a file holding a code fence cannot close the fence it is shown in', () => {
    const text = 'before\n```\nafter\n';
    const brief = runBrief('S-1', [{ path: 'doc.md', status: 'included', content: text, bytes: text.length }]);
    assert.equal(brief, `## Spec\n\nThis task belongs to spec S-1.\n\n## Files\n\n### doc.md, 17 bytes\n\n\`\`\`\`\n${text}\`\`\`\``);
    assert.equal(childPrompt('', 'do it', brief), `${brief}\n\n## Task\n\ndo it`);
    assert.equal(childPrompt('', 'do it'), 'do it', 'no spec, no files, nothing inherited: just the task');
  });
});

describe('Slots', () => {
  it('hands out at most max at once, in order; a waiter that gives up leaves the queue', async () => {
    const slots = new Slots(1);
    const never = new AbortController().signal;
    const first = await slots.acquire(never);
    const quitter = new AbortController();
    const gaveUp = slots.acquire(quitter.signal);
    let secondHeld = false;
    const second = slots.acquire(never).then((release) => {
      secondHeld = true;
      return release;
    });
    quitter.abort();
    await assert.rejects(gaveUp, /aborted while waiting/);
    await new Promise((r) => setImmediate(r));
    assert.equal(secondHeld, false, 'still held by the first');
    first();
    (await second)();
    assert.equal(secondHeld, true);
  });
});
