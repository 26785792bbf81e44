// A transcript file named by a hook is read from where the last read stopped (docs/storage.md,
// "Transcript file cursors"). Through the real server and store: every step stores exactly what a
// full re-read of the same file gives (here: the same text sent inline, which is parsed whole),
// with appends that end in a torn line, a truncation, rewrites, and a file larger than the cap.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rawRequest, startTestServer, type TestServer } from '../helpers/server';
import { tempDir } from '../helpers/tmp';

type Line = Record<string, unknown>;

/** Claude Code lines of realistic shape: prompts, an answer split over lines of one message id, tool calls and results. */
function claudeExchange(n: number): Line[] {
  const id = `msg_${n}`;
  const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
  return [
    { type: 'user', uuid: `u${n}`, sessionId: 's', timestamp: at, message: { role: 'user', content: `question ${n} about the zebra module` } },
    { type: 'assistant', uuid: `a${n}`, timestamp: at, message: { id, role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }] } },
    { type: 'assistant', uuid: `b${n}`, timestamp: at, message: { id, role: 'assistant', content: [{ type: 'text', text: `Looking at part ${n}.` }] } },
    { type: 'assistant', uuid: `c${n}`, timestamp: at, message: { id, role: 'assistant', content: [{ type: 'text', text: `Still part ${n}: é ✓.` }] } },
    {
      type: 'assistant',
      uuid: `d${n}`,
      timestamp: at,
      message: { id, role: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'Read', input: { file_path: `/src/f${n}.ts` } }] },
    },
    {
      type: 'user',
      uuid: `e${n}`,
      timestamp: at,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: `export const v${n} = ${n};\n`.repeat(20) }] },
    },
    { type: 'assistant', uuid: `f${n}`, timestamp: at, message: { id: `${id}b`, role: 'assistant', content: [{ type: 'text', text: `Done with ${n}.` }] } },
  ];
}

function codexExchange(n: number): Line[] {
  const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
  const lines: Line[] = [
    { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `codex question ${n}` }] } },
    { timestamp: at, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['ls', `d${n}`] }) } },
    { timestamp: at, type: 'response_item', payload: { type: 'function_call_output', output: JSON.stringify({ output: `file${n}\n`, metadata: {} }) } },
    { timestamp: at, type: 'event_msg', payload: { type: 'agent_message', message: `answer ${n}` } },
    { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${n}` }] } },
  ];
  return n === 0 ? [{ timestamp: at, type: 'session_meta', payload: { id: 'thread', cwd: '/p' } }, ...lines] : lines;
}

const jsonl = (lines: Line[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');

describe('transcript files are read incrementally', function () {
  this.timeout(60_000);
  let s: TestServer;
  let root: string;

  before(async () => {
    root = tempDir('baton-incr-');
    s = await startTestServer({ transcriptRoots: [root] });
  });
  after(async () => {
    await s?.daemon.stop();
  });

  const post = async (route: string, body: object) => {
    const res = await rawRequest({ port: s.port, method: 'POST', path: route, headers: { authorization: `Bearer ${s.token}` }, body });
    assert.equal(res.status, 200, res.text);
    return res.json;
  };
  const stored = async (key: string) => (await s.store.read('turns', { scope: 'all', key, limit: 100_000 })).turns.map((t) => `${t.role}: ${t.text}`);

  /** One hook step on both sessions: the incremental one names the file, the reference sends its whole text. */
  async function step(harness: string, file: string, prefix: string, payload: object = {}) {
    await post('/api/hooks/user-prompt-submit', { harness, sessionKey: `${prefix}-incr`, transcriptPath: file, ...payload });
    await post('/api/hooks/user-prompt-submit', { harness, sessionKey: `${prefix}-full`, transcript: fs.readFileSync(file, 'utf8'), ...payload });
    assert.deepEqual(await stored(`${prefix}-incr`), await stored(`${prefix}-full`), `${prefix}: incremental and full reads store the same turns`);
  }

  const cursorOf = (prefix: string, file: string) => s.store.read('transcriptFile', { agentId: 'default', key: `${prefix}-incr`, path: fs.realpathSync(file) });

  for (const [harness, exchange] of [
    ['claude-code', claudeExchange],
    ['codex', codexExchange],
  ] as const) {
    it(`${harness}: appends, a torn last line, a truncation and a rewrite store what a full re-read stores`, async () => {
      const prefix = harness;
      const file = path.join(root, `${harness}.jsonl`);
      fs.writeFileSync(file, jsonl([...exchange(0), ...exchange(1)]));
      await step(harness, file, prefix);
      const first = await cursorOf(prefix, file);
      assert.equal(first?.offset, fs.statSync(file).size, 'the whole file was consumed');

      // An append whose last line is torn: only complete lines are consumed.
      const next = jsonl(exchange(2));
      const torn = JSON.stringify(exchange(3)[0]);
      fs.appendFileSync(file, next + torn.slice(0, 25));
      await step(harness, file, prefix, { userPrompt: 'question 3 about the zebra module' });
      assert.equal((await cursorOf(prefix, file))?.offset, first!.offset + Buffer.byteLength(next), 'the torn line waits');

      // The rest of the torn line and more: read from where the last read stopped.
      fs.appendFileSync(file, torn.slice(25) + '\n' + jsonl(exchange(3).slice(1)) + jsonl(exchange(4)));
      // Bytes before the offset changed in place (same size, same file, same last 4 KB): an
      // incremental read never sees them, a full one would. Kept out of the reference's copy.
      const early = fs.readFileSync(file);
      const marker = early.indexOf('question 0');
      const withEdit = Buffer.from(early);
      withEdit.write('QUESTION 0', marker);
      fs.writeFileSync(file, withEdit);
      await post('/api/hooks/user-prompt-submit', { harness, sessionKey: `${prefix}-incr`, transcriptPath: file });
      fs.writeFileSync(file, early);
      await post('/api/hooks/user-prompt-submit', { harness, sessionKey: `${prefix}-full`, transcript: early.toString('utf8') });
      assert.deepEqual(await stored(`${prefix}-incr`), await stored(`${prefix}-full`), 'only the appended bytes were read');
      assert.ok(!(await stored(`${prefix}-incr`)).some((t) => t.includes('QUESTION 0')));

      // Truncated (the harness cut its file): read again in full, nothing stored twice.
      fs.truncateSync(file, Buffer.byteLength(jsonl([...exchange(0), ...exchange(1)])));
      fs.appendFileSync(file, jsonl(exchange(5)));
      await step(harness, file, prefix);

      // Rewritten as a new file (compaction, /clear): a new identity, read again in full.
      const fresh = path.join(root, `${harness}.new`);
      fs.writeFileSync(fresh, jsonl([...exchange(6), ...exchange(7)]));
      fs.renameSync(fresh, file);
      await step(harness, file, prefix, { lastAssistantMessage: `Done with 7.` });
      // The same size, different bytes before the offset (rewritten in place).
      const same = fs.readFileSync(file, 'utf8').replace(/question 7/g, 'question 8');
      fs.writeFileSync(file, same);
      await step(harness, file, prefix);
      fs.appendFileSync(file, jsonl(exchange(9)));
      await step(harness, file, prefix);
    });
  }

  it('claude-code: an answer whose lines straddle two reads is merged as a full read merges it', async () => {
    const file = path.join(root, 'straddle.jsonl');
    const lines = claudeExchange(0);
    fs.writeFileSync(file, jsonl(lines.slice(0, 3)));
    await step('claude-code', file, 'straddle');
    fs.appendFileSync(file, jsonl(lines.slice(3)));
    await step('claude-code', file, 'straddle');
    assert.ok((await stored('straddle-incr')).some((t) => t === 'assistant: Looking at part 0.\n\nStill part 0: é ✓.'));
  });

  it('a file larger than the cap keeps being recorded, a cap at a time, and ends as a full read', async () => {
    const small = await startTestServer({ transcriptRoots: [root], maxTranscriptBytes: 8 * 1024 });
    try {
      const file = path.join(root, 'big.jsonl');
      const all: Line[] = [];
      for (let n = 0; n < 30; n++) all.push(...claudeExchange(n));
      fs.writeFileSync(file, jsonl(all));
      assert.ok(fs.statSync(file).size > 4 * 8 * 1024);
      const send = async (body: object) => {
        const res = await rawRequest({
          port: small.port,
          method: 'POST',
          path: '/api/hooks/user-prompt-submit',
          headers: { authorization: `Bearer ${small.token}` },
          body,
        });
        assert.equal(res.status, 200, res.text);
        return res.json as { turnCount: number };
      };
      const catchUp = async () => {
        const counts: number[] = [];
        for (let i = 0; i < 40; i++) {
          counts.push((await send({ harness: 'claude-code', sessionKey: 'big', transcriptPath: file })).turnCount);
          const cursor = await small.store.read('transcriptFile', { agentId: 'default', key: 'big', path: fs.realpathSync(file) });
          if (cursor?.offset === fs.statSync(file).size) break;
        }
        return counts;
      };
      const counts = await catchUp();
      assert.ok(counts.length > 3, `several calls were needed: ${counts.join(',')}`);
      assert.ok(counts[0] > 0, 'the first call already recorded the first cap');
      const turns = (key: string) => small.store.read('turns', { scope: 'all', key, limit: 100_000 }).then((r) => r.turns.map((t) => `${t.role}: ${t.text}`));
      const whole = await startTestServer({ transcriptRoots: [root] });
      try {
        const reference = async () => {
          const res = await rawRequest({
            port: whole.port,
            method: 'POST',
            path: '/api/hooks/user-prompt-submit',
            headers: { authorization: `Bearer ${whole.token}` },
            body: { harness: 'claude-code', sessionKey: 'big', transcript: fs.readFileSync(file, 'utf8') },
          });
          assert.equal(res.status, 200, res.text);
          return (await whole.store.read('turns', { scope: 'all', key: 'big', limit: 100_000 })).turns.map((t) => `${t.role}: ${t.text}`);
        };
        assert.deepEqual(await turns('big'), await reference());
        // Rewritten whole (a new file under the same name) with more at its end: read again a cap
        // at a time, recognising what is stored by hash: nothing twice, the new turns once.
        const rewritten = path.join(root, 'big.next');
        fs.writeFileSync(rewritten, jsonl([...claudeExchange(99), ...all, ...claudeExchange(30), ...claudeExchange(31)]));
        fs.renameSync(rewritten, file);
        const again = await catchUp();
        assert.ok(again.length > 3, `read again a cap at a time: ${again.join(',')}`);
        const after = await turns('big');
        assert.deepEqual(after, await reference());
        assert.equal(new Set(after).size, after.length, 'no turn stored twice');
      } finally {
        await whole.daemon.stop();
      }
    } finally {
      await small.daemon.stop();
    }
  });

  it('a file whose first caps hold no turns at all is still read on to its turns', async () => {
    const small = await startTestServer({ transcriptRoots: [root], maxTranscriptBytes: 4 * 1024 });
    try {
      const file = path.join(root, 'no-turns-first.jsonl');
      const snapshots = Array.from({ length: 40 }, (_, i) => ({ type: 'file-history-snapshot', messageId: `m${i}`, snapshot: { files: 'x'.repeat(300) } }));
      fs.writeFileSync(file, jsonl([...snapshots, ...claudeExchange(0)]));
      let turnCount = 0;
      for (let i = 0; i < 20 && turnCount === 0; i++) {
        const res = await rawRequest({
          port: small.port,
          method: 'POST',
          path: '/api/hooks/user-prompt-submit',
          headers: { authorization: `Bearer ${small.token}` },
          body: { harness: 'claude-code', sessionKey: 'late-turns', transcriptPath: file },
        });
        assert.equal(res.status, 200, res.text);
        turnCount = res.json.turnCount;
      }
      assert.equal(turnCount, 5, 'the exchange after the snapshots was reached');
    } finally {
      await small.daemon.stop();
    }
  });

  it('a hook that reads its own file sends chunks: from the cursor the server names, refused when they do not continue it', async () => {
    // A path the server has never seen and cannot open: only the bytes in the body count.
    const foreign = '/nonexistent-config/projects/p/session.jsonl';
    const text = jsonl([...claudeExchange(0), ...claudeExchange(1), ...claudeExchange(2)]);
    const bytes = Buffer.from(text);
    const body = (offset: number, end: number, tailMark: string, eof: boolean) => ({
      harness: 'claude-code',
      sessionKey: 'chunk-incr',
      transcriptChunk: { path: foreign, offset, data: bytes.subarray(offset, end).toString('base64'), tailMark, eof },
    });
    const cursor = async () =>
      (await post('/api/hooks/transcript-cursor', { harness: 'claude-code', sessionKey: 'chunk-incr', path: foreign })) as { offset: number; tailMark: string };
    assert.deepEqual(await cursor(), { offset: 0, tailMark: '' }, 'nothing read yet');

    // The first piece ends inside a line: only its complete lines count.
    const cut = text.indexOf('question 1') + 5;
    await post('/api/hooks/user-prompt-submit', body(0, cut, '', false));
    const first = await cursor();
    // Complete lines only, ending before a line that starts afresh (so no answer is split).
    const complete = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n', cut) + 1));
    assert.ok(first.offset > 0 && first.offset <= complete, `${first.offset} of ${complete}`);
    assert.equal(bytes[first.offset - 1], 0x0a);

    // A chunk that does not start where the server stopped, or whose tail differs, is refused (409) and changes nothing.
    for (const wrong of [body(first.offset + 1, bytes.length, first.tailMark, true), body(first.offset, bytes.length, 'x', true)]) {
      const res = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/hooks/user-prompt-submit',
        headers: { authorization: `Bearer ${s.token}` },
        body: wrong,
      });
      assert.equal(res.status, 409, res.text);
    }
    await post('/api/hooks/user-prompt-submit', body(first.offset, bytes.length, first.tailMark, true));
    await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'chunk-full', transcript: text });
    assert.deepEqual(await stored('chunk-incr'), await stored('chunk-full'));
    assert.equal((await cursor()).offset, bytes.length);

    // Rewritten: the hook sends it again from 0; what is stored is recognised by hash.
    const rewritten = Buffer.from(jsonl([...claudeExchange(1), ...claudeExchange(3)]));
    await post('/api/hooks/user-prompt-submit', {
      harness: 'claude-code',
      sessionKey: 'chunk-incr',
      transcriptChunk: { path: foreign, offset: 0, data: rewritten.toString('base64'), tailMark: '', eof: true },
    });
    await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'chunk-full', transcript: rewritten.toString('utf8') });
    assert.deepEqual(await stored('chunk-incr'), await stored('chunk-full'));
  });

  it('hooks of one session at the same moment store every turn once', async () => {
    const file = path.join(root, 'concurrent.jsonl');
    fs.writeFileSync(file, jsonl(claudeExchange(0)));
    await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'concurrent-incr', transcriptPath: file });
    for (let n = 1; n < 4; n++) {
      fs.appendFileSync(file, jsonl(claudeExchange(n)));
      await Promise.all(
        Array.from({ length: 6 }, () => post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'concurrent-incr', transcriptPath: file })),
      );
    }
    await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'concurrent-full', transcript: fs.readFileSync(file, 'utf8') });
    assert.deepEqual(await stored('concurrent-incr'), await stored('concurrent-full'));
  });

  it('the cursor survives a restart: the next read starts where the last one stopped', async () => {
    const file = path.join(root, 'restart.jsonl');
    fs.writeFileSync(file, jsonl(claudeExchange(0)));
    await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'restart-incr', transcriptPath: file });
    const before = await cursorOf('restart', file);
    const dataDir = s.dataDir;
    await s.daemon.stop();
    const { startDaemon } = await import('../../src/server/daemon');
    const { lineLogger } = await import('../../src/core/logger');
    const daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [root] }, logger: lineLogger(() => undefined) });
    s = { ...s, daemon, port: daemon.server.port, token: daemon.token, store: daemon.store };
    assert.deepEqual(await cursorOf('restart', file), before);
  });
});
