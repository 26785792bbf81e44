// Inline message lists (OpenCode's plugin) cost what is new: a client sends only the messages
// after the point the last reply named (`transcriptFrom`), and a whole list whose covered part is
// unchanged is parsed from that point on. Through the real server: both store exactly what the
// whole list parsed afresh stores (the same list sent as a JSON string takes that path).

import { strict as assert } from 'node:assert';
import { hashText } from '../../src/core/hash';
import { rawRequest, startTestServer, type TestServer } from '../helpers/server';

type Message = { info: { role: string; time: { created: number } }; parts: unknown[] };

function message(n: number, role: 'user' | 'assistant', extra = ''): Message {
  const parts: unknown[] = [{ type: 'text', text: `${role} message ${n}${extra}` }];
  if (role === 'assistant') parts.push({ type: 'tool', tool: 'read', state: { input: { path: `/f${n}` }, output: `line ${n}\n`.repeat(5) } });
  return { info: { role, time: { created: 1_700_000_000_000 + n } }, parts };
}

describe('inline message lists are cheap to re-send', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.daemon.stop();
  });

  const send = (body: object) =>
    rawRequest({ port: s.port, method: 'POST', path: '/api/hooks/user-prompt-submit', headers: { authorization: `Bearer ${s.token}` }, body });
  const stored = async (key: string) => (await s.store.read('turns', { scope: 'all', key, limit: 10_000 })).turns.map((t) => `${t.role}: ${t.text}`);

  it('a delta from the last reply and a whole re-send both store what a fresh parse of the whole list stores', async () => {
    const list: Message[] = [];
    let cursor: { messages: number; mark: string } | undefined;
    for (let n = 0; n < 12; n++) {
      list.push(message(n, n % 2 === 0 ? 'user' : 'assistant'));
      // The assistant's last message grows while it answers: the next list changes it.
      if (n === 7) list[list.length - 1] = message(n, 'assistant', ' (so far)');
      if (n === 8) list[7] = message(7, 'assistant', ' (done)');
      const reference = await send({ harness: 'opencode', sessionKey: 'ref', transcript: JSON.stringify(list) });
      assert.equal(reference.status, 200, reference.text);
      const whole = await send({ harness: 'opencode', sessionKey: 'whole', transcript: list });
      assert.equal(whole.status, 200, whole.text);
      assert.deepEqual(whole.json.transcriptCursor, { messages: list.length, mark: hashText(JSON.stringify(list[list.length - 1])) });
      // The client's side: only what follows the point named, when that message is unchanged here.
      const resumable = cursor && list.length >= cursor.messages && hashText(JSON.stringify(list[cursor.messages - 1])) === cursor.mark;
      const delta = await send(
        resumable
          ? { harness: 'opencode', sessionKey: 'delta', transcript: list.slice(cursor!.messages), transcriptFrom: cursor }
          : { harness: 'opencode', sessionKey: 'delta', transcript: list },
      );
      assert.equal(delta.status, 200, delta.text);
      cursor = delta.json.transcriptCursor;
      assert.deepEqual(await stored('whole'), await stored('ref'), `whole re-send, step ${n}`);
      assert.deepEqual(await stored('delta'), await stored('ref'), `delta, step ${n}`);
    }
    assert.ok((await stored('ref')).some((t) => t.includes('(done)')));
  });

  it('a delta that does not continue what is stored is refused (409) and changes nothing', async () => {
    const list = [message(0, 'user'), message(1, 'assistant')];
    const first = await send({ harness: 'opencode', sessionKey: 'wrong', transcript: list });
    assert.equal(first.status, 200, first.text);
    const before = await stored('wrong');
    for (const transcriptFrom of [
      { messages: 1, mark: first.json.transcriptCursor.mark },
      { messages: 2, mark: 'nope' },
    ]) {
      const res = await send({ harness: 'opencode', sessionKey: 'wrong', transcript: [message(2, 'user')], transcriptFrom });
      assert.equal(res.status, 409, res.text);
    }
    assert.deepEqual(await stored('wrong'), before);
  });
});
