// A transcript a hook payload names is read, checked and parsed on the transcript worker, not on
// the server's main thread (docs/architecture.md, "Threads"): while a prompt-submit reads a large
// file, the main thread stays mostly idle and a search sent at the same time is answered before
// the prompt-submit is. Through the real server on 127.0.0.1 and a real file.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { rawRequest, sleep, startTestServer, type TestServer } from '../helpers/server';
import { tempDir } from '../helpers/tmp';
import { transcriptReaderThread } from '../../src/server/transcriptReader';

const MB = 1024 * 1024;

/**
 * Claude Code lines as its sessions hold them: a short prompt and answer, and a large structured
 * copy of a tool's result beside the message (`toolUseResult`), which the parser reads past.
 */
function largeClaudeTranscript(bytes: number): string {
  const filler = 'x'.repeat(60 * 1024);
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const exchange = [
      { type: 'user', uuid: `u${n}`, sessionId: 's', timestamp: at, message: { role: 'user', content: `question ${n} about the walrus module` } },
      { type: 'assistant', uuid: `a${n}`, timestamp: at, message: { id: `m${n}`, role: 'assistant', content: [{ type: 'text', text: `Answer ${n}.` }] } },
      { type: 'user', uuid: `r${n}`, timestamp: at, toolUseResult: { stdout: filler, n }, message: { role: 'user', content: [{ type: 'text', text: 'ok' }] } },
    ].map((line) => JSON.stringify(line) + '\n');
    for (const line of exchange) size += line.length;
    lines.push(...exchange);
  }
  return lines.join('');
}

describe('transcripts are read off the main thread (real HTTP on 127.0.0.1, a real file)', function () {
  this.timeout(180_000);
  let s: TestServer;
  let root: string;
  before(async () => {
    root = tempDir('baton-transcript-worker-');
    s = await startTestServer({ transcriptRoots: [root], maxTranscriptBytes: 128 * MB });
  });
  after(async () => {
    await s?.daemon.stop();
  });

  const post = (route: string, body: object) =>
    rawRequest({ port: s.port, method: 'POST', path: route, headers: { authorization: `Bearer ${s.token}` }, body, timeoutMs: 120_000 });

  it('a search answers while a prompt-submit reads a 64 MB transcript, and the main thread stays mostly idle meanwhile', async () => {
    // Something to find, stored before the large read starts.
    assert.equal((await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'quiet', userPrompt: 'the walrus module' })).status, 200);
    const file = path.join(root, 'large.jsonl');
    fs.writeFileSync(file, largeClaudeTranscript(64 * MB));

    const before = performance.eventLoopUtilization();
    let hookDone = false;
    const hook = post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'large', transcriptPath: file }).then((res) => {
      hookDone = true;
      return res;
    });
    // Searches one at a time while the hook runs (bounded: at most 200).
    const answeredDuringRead: number[] = [];
    for (let i = 0; i < 200 && !hookDone; i++) {
      const res = await post('/api/sessions/search', { query: 'walrus', limit: 5 });
      assert.equal(res.status, 200, res.text);
      if (!hookDone) answeredDuringRead.push(i);
      await sleep(20);
    }
    const res = await hook;
    const busy = performance.eventLoopUtilization(before);
    assert.equal(res.status, 200, res.text);
    assert.ok(answeredDuringRead.length > 0, 'a search was answered before the prompt-submit that reads the large file');
    // Reading and parsing 64 MB on the main thread keeps it busy most of the time; on the worker,
    // the main thread only moves requests and the parsed turns. Generous: well under half.
    assert.ok(
      busy.utilization < 0.5,
      `the main thread was busy ${(busy.utilization * 100).toFixed(0)}% of the ${busy.active.toFixed(0)} ms it was active in ${(busy.idle + busy.active).toFixed(0)} ms`,
    );

    // What the worker parsed is what was stored.
    const turns = (await s.store.read('turns', { scope: 'all', key: 'large', limit: 10 })).turns;
    assert.equal(turns[0]?.text, 'question 0 about the walrus module');
    assert.ok(turns.length === 10, 'the turns of the large transcript are stored');
  });

  it('a reader thread that dies fails the read in flight with a clear error, and the next read starts a new one', async () => {
    const file = path.join(root, 'dies.jsonl');
    fs.writeFileSync(file, largeClaudeTranscript(64 * MB));
    const reader = transcriptReaderThread();
    assert.ok(reader, 'the server started its reader thread');
    const hook = post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'dies', transcriptPath: file });
    await sleep(50);
    await reader.terminate();
    const res = await hook;
    assert.equal(res.status, 503, res.text);
    assert.match(res.json.error, /transcript reader stopped/);

    const small = path.join(root, 'after.jsonl');
    fs.writeFileSync(small, largeClaudeTranscript(1));
    const again = await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'after', transcriptPath: small });
    assert.equal(again.status, 200, again.text);
    assert.notEqual(transcriptReaderThread(), reader, 'a new thread');
    const turns = (await s.store.read('turns', { scope: 'all', key: 'after', limit: 10 })).turns;
    assert.equal(turns[0]?.text, 'question 0 about the walrus module');
  });
});
