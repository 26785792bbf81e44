// What a sub-agent inherits (docs/inheritance.md), over real HTTP on 127.0.0.1 against a real store
// on disk: extracted constraints and entities, the rolling digest, the total budget.

import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { estimateTokens } from '../../src/core/inherit';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

interface Reply {
  status: number;
  body: any;
}

function client(daemon: Daemon, token = daemon.token) {
  const call = async (method: string, route: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(daemon.server.url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    call,
    post: (route: string, body: unknown) => call('POST', route, body),
    get: (route: string) => call('GET', route),
    patch: (route: string, body: unknown) => call('PATCH', route, body),
    del: (route: string) => call('DELETE', route),
  };
}

const FILLER = 'We looked at the build output and the profiler trace again, nothing unusual showed up in this round.';

describe('what a sub-agent inherits (real HTTP, real store)', function () {
  this.timeout(120_000);
  let daemon: Daemon;
  let api: ReturnType<typeof client>;

  beforeEach(async () => {
    daemon = await startDaemon({ dataDir: tempDir(), port: 0, config: { transcriptRoots: [tempDir('baton-transcripts-')] } });
    api = client(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  async function turn(key: string, userPrompt: string, lastAssistantMessage?: string) {
    const r = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: key, userPrompt, ...(lastAssistantMessage ? { lastAssistantMessage } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  it('a child started after a compaction summary, a later checkpoint and 200 more turns still receives the early constraint and the compaction decisions within the budget', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'p', project: '/repo', title: 'Migrate accounts' });
    await turn('p', 'We are migrating the accounts service to Postgres 16. Never drop the users table, it holds production data.');
    for (let i = 0; i < 5; i++) await turn('p', `Step ${i}: ${FILLER}`, `Done with step ${i}. ${FILLER}`);
    const compacted = await api.post('/api/hooks/compaction-complete', {
      harness: 'claude-code',
      sessionKey: 'p',
      summary: 'Decisions: keep the accounts schema as is; migrate with pg_dump then pg_restore; run migrate.ts behind a feature flag. ' + 'Detail of the investigation. '.repeat(4000),
    });
    assert.equal(compacted.status, 200, JSON.stringify(compacted.body));
    for (let i = 0; i < 10; i++) await turn('p', `Checkpoint work ${i}: ${FILLER}`, `Answer ${i}: ${FILLER}`);
    const extracted = await api.post('/api/hooks/session-checkpoint-extract', { harness: 'claude-code', sessionKey: 'p' });
    assert.equal(extracted.status, 200);
    assert.ok(extracted.body.queued, JSON.stringify(extracted.body));
    for (let i = 0; i < 100; i++) await turn('p', `Later turn ${i}: ${FILLER}`, `Later answer ${i}: ${FILLER}`);

    const child = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'c', parentSessionKey: 'p' });
    assert.equal(child.status, 200);
    const block: string = child.body.inject;
    assert.match(block, /Active constraints:\n {2}- rules: We are migrating the accounts service to Postgres 16\.|Never drop the users table/);
    assert.ok(block.includes('Never drop the users table'), block);
    assert.ok(block.includes('Decisions: keep the accounts schema as is; migrate with pg_dump then pg_restore'), 'the compaction decisions survive the later checkpoint');
    assert.ok(block.includes('Checkpoint work'), 'the checkpoint since the compaction is in the digest too');
    assert.ok(block.includes('Later answer 99'), 'the newest tail is there');
    assert.ok(estimateTokens(block) <= 2000, `within the budget: ${estimateTokens(block)} tokens`);
    assert.match(block, /\nBudget: ~\d+ of 2000 tokens \(cut: checkpoint summary\)$/);
    const preview = await api.get('/api/sessions/p/inherited');
    assert.equal(preview.body.block, block, 'the preview is the same bytes');
    assert.equal(preview.body.budget.maxTokens, 2000);
    assert.deepEqual(preview.body.budget.cut, ['checkpoint summary']);
  });

  it('a 100,000-character compaction summary is cut to the budget on a sentence boundary with a marker', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'big', project: '/repo' });
    await turn('big', 'Start.');
    await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'big', summary: 'One decision was taken here. '.repeat(3500) });
    const child = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'big-child', parentSessionKey: 'big' });
    assert.ok(child.body.inject.length <= 8000, `${child.body.inject.length} characters`);
    assert.match(child.body.inject, /One decision was taken here\. \[…cut\]/);
  });

  it('extracts constraints from agent turns too, once each, and focal entities named repeatedly', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'e', project: '/repo' });
    await turn('e', 'Look at src/auth/login.ts and the refreshToken function. The bug is in login.ts when refreshToken expires.', 'I will not touch the config. You must not commit generated files in dist. ' + FILLER);
    await turn('e', 'Also check login.ts again for refreshToken usage. ' + FILLER.repeat(3), 'You must not commit generated files in dist. ' + FILLER.repeat(2));
    const r = await api.post('/api/hooks/session-checkpoint-extract', { harness: 'claude-code', sessionKey: 'e' });
    assert.ok(r.body.queued);
    const again = await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'e', summary: 'Fixed the refresh path.' });
    assert.equal(again.status, 200);
    const preview = await api.get('/api/sessions/e/inherited');
    const constraints: string[] = preview.body.sections.constraints;
    assert.deepEqual(constraints.filter((c) => c.includes('must not commit generated files')).length, 1, JSON.stringify(constraints));
    assert.ok(preview.body.sections.focalEntities.includes('login.ts'), JSON.stringify(preview.body.sections));
    assert.ok(preview.body.sections.focalEntities.includes('refreshToken'));
  });
});
