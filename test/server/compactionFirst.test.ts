// A compaction summary can reach Baton before any transcript of its session does (a harness that
// compacts a resumed conversation, or whose prompt hook is not installed). Through the real server
// and store: the summary still becomes the session's checkpoint, and a child started after it
// inherits the summary, whether the session was only started or not known at all.

import { strict as assert } from 'node:assert';
import { bearer, rawRequest, startTestServer, type RawResponse, type TestServer } from '../helpers/server';

describe('a compaction before any transcript still leaves a checkpoint a later child inherits (real server)', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.daemon.stop();
  });

  const post = (route: string, body: object): Promise<RawResponse> => rawRequest({ port: s.port, method: 'POST', path: route, headers: bearer(s.token), body });
  const ok = (res: RawResponse, what: string): RawResponse => {
    assert.equal(res.status, 200, `${what}: ${res.status} ${res.text}`);
    return res;
  };

  async function childInherits(parent: string, summary: string): Promise<void> {
    const child = ok(
      await post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: `${parent}/child`, parentSessionKey: parent }),
      'child start',
    );
    assert.equal(child.json.parentSessionKey, parent);
    assert.ok(child.json.inject.includes(summary), `the child's inherited block carries the summary:\n${child.json.inject}`);
  }

  it('a session started but with no turns yet: the compaction is its checkpoint', async () => {
    ok(await post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'started-only' }), 'start');
    const summary = 'We settled on ORCHID-31: blue-green deploys behind the canary gate.';
    const done = ok(await post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'started-only', summary }), 'compaction');
    assert.equal(done.json.success, true);
    const checkpoint = await s.store.read('latestCheckpoint', { scope: 'all', key: 'started-only' });
    assert.equal(checkpoint?.digest, summary);
    await childInherits('started-only', summary);
  });

  it('a session no hook has named yet: the compaction records it, and its checkpoint is the summary', async () => {
    const summary = 'The plan is KESTREL-9: migrate the billing tables first, then the ledger.';
    const done = ok(await post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'unseen', project: '/repo', summary }), 'compaction');
    assert.equal(done.json.success, true);
    const session = ok(await rawRequest({ port: s.port, path: '/api/sessions/unseen', headers: bearer(s.token) }), 'session').json;
    assert.equal(session.harness, 'claude-code');
    assert.equal(session.project, '/repo');
    assert.equal(session.turnCount, 0);
    const checkpoint = await s.store.read('latestCheckpoint', { scope: 'all', key: 'unseen' });
    assert.equal(checkpoint?.digest, summary);
    await childInherits('unseen', summary);
    // The transcript that arrives later lands in the same session, after the checkpoint.
    const later = ok(
      await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'unseen', userPrompt: 'carry on with the ledger' }),
      'prompt',
    );
    assert.equal(later.json.turnCount, 1);
  });
});
