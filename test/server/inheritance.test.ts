// What a sub-agent inherits (docs/inheritance.md), over real HTTP on 127.0.0.1 against a real store
// on disk: extracted constraints and entities, the rolling digest, the total budget.

import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { BatonClient } from '../../src/client/batonClient';
import { estimateTokens } from '../../src/core/inherit';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { CORPUS, QUESTIONS } from '../fixtures/questionCorpus';
import { jsonClient as client, runCliAsync as runCli } from '../helpers/jsonClient';

const FILLER = 'We looked at the build output and the profiler trace again, nothing unusual showed up in this round.';

describe('what a sub-agent inherits (real HTTP, real store)', function () {
  this.timeout(120_000);
  let daemon: Daemon;
  let dataDir: string;
  let api: ReturnType<typeof client>;

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-transcripts-')] } });
    api = client(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  async function turn(key: string, userPrompt: string, lastAssistantMessage?: string) {
    const r = await api.post('/api/hooks/user-prompt-submit', {
      harness: 'claude-code',
      sessionKey: key,
      userPrompt,
      ...(lastAssistantMessage ? { lastAssistantMessage } : {}),
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  it('a child started after a compaction summary, a later checkpoint and 200 more turns still receives the early constraint and the compaction decisions within the budget', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'p', project: '/repo', title: 'Migrate accounts' });
    await turn('p', 'We are migrating the accounts service to Postgres 16. Never drop the users table, it holds production data.');
    for (let i = 0; i < 5; i++) await turn('p', `Step ${i}: ${FILLER}`, `Done with step ${i}. ${FILLER}`);
    const compacted = await api.post('/api/hooks/compaction-complete', {
      harness: 'claude-code',
      sessionKey: 'p',
      summary:
        'Decisions: keep the accounts schema as is; migrate with pg_dump then pg_restore; run migrate.ts behind a feature flag. ' +
        'Detail of the investigation. '.repeat(4000),
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
    assert.ok(
      block.includes('Decisions: keep the accounts schema as is; migrate with pg_dump then pg_restore'),
      'the compaction decisions survive the later checkpoint',
    );
    assert.ok(block.includes('Checkpoint work'), 'the checkpoint since the compaction is in the digest too');
    assert.ok(block.includes('Later answer 99'), 'the newest tail is there');
    assert.ok(estimateTokens(block) <= 2000, `within the budget: ${estimateTokens(block)} tokens`);
    assert.match(block, /\nBudget: ~\d+ of 2000 tokens \(cut: checkpoint summary\)$/);
    const preview = await api.get('/api/sessions/p/inherited');
    assert.equal(preview.body.block, block, 'the preview is the same bytes');
    assert.equal(preview.body.budget.maxTokens, 2000);
    assert.deepEqual(preview.body.budget.cut, ['checkpoint summary']);
  });

  it('a child started with a task gets the early parent turn its task needs, stamped with the parent turn it was taken at; without a task it does not', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'p', project: '/repo', title: 'Random logouts' });
    await turn('p', 'Users are logged out at random since Tuesday. Check the auth service.');
    await turn('p', 'Carry on.', 'Found it: the JWT clock skew tolerance is 0 s in src/auth/verify.ts, and the mobile app clock runs up to 20 s ahead.');
    for (let i = 0; i < 40; i++) await turn('p', `CSV export step ${i}: ${FILLER}`, `Export column ${i} done. ${FILLER}`);
    const turns = await api.get('/api/sessions/p/turns?from=1&limit=2000');
    const last = turns.body.turns[turns.body.turns.length - 1];
    const stamp = `Taken at turn ${last.seq} of the parent (${last.at ?? (await api.get('/api/sessions/p')).body.updatedAt})`;

    const task = 'Fix the JWT clock skew that logs mobile users out';
    const child = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'c-task', parentSessionKey: 'p', task });
    assert.equal(child.status, 200, JSON.stringify(child.body));
    const block: string = child.body.inject;
    assert.ok(block.includes('the JWT clock skew tolerance is 0 s in src/auth/verify.ts'), block);
    assert.ok(block.includes('Relevant and recent context (for the task):'), block);
    assert.ok(block.includes('Export column 39 done.'), 'the newest turn stays');
    assert.match(block, /\[… \d+ turns left out …\]/);
    assert.ok(block.split('\n').includes(stamp), block);
    assert.ok(child.body.inherited.estimatedTokens <= 2000);

    const plain = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'c-plain', parentSessionKey: 'p' });
    assert.ok(!plain.body.inject.includes('clock skew'), 'the newest part alone does not reach it');
    assert.ok(plain.body.inject.split('\n').includes(stamp));

    // The preview shows the same block for the same task, and says which turns were chosen for it.
    const preview = await api.get(`/api/sessions/p/inherited?task=${encodeURIComponent(task)}`);
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.block, block);
    const needed = turns.body.turns.find((t: { text: string }) => t.text.includes('clock skew tolerance')).seq;
    assert.ok(preview.body.selection.relevant.includes(needed), JSON.stringify(preview.body.selection));
    // The client the VS Code preview uses passes the task the same way.
    const viaClient = await new BatonClient({ url: daemon.server.url, port: daemon.server.port, pid: process.pid, token: daemon.token }).inherited('p', {
      task,
    });
    assert.equal(viaClient.block, block);
    // Two children spawned at once with different tasks: each gets the turns of its own task.
    await turn('p', 'Also: the CSV export breaks on invoices with a comma in the customer name; quote every field.');
    for (let i = 0; i < 30; i++) await turn('p', `Layout pass ${i}: ${FILLER}`);
    const [jwt, csv] = await Promise.all([
      api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'c-jwt', parentSessionKey: 'p', task }),
      api.post('/api/hooks/session-start', {
        harness: 'claude-code',
        sessionKey: 'c-csv',
        parentSessionKey: 'p',
        task: 'Quote CSV fields with a comma in the customer name',
      }),
    ]);
    assert.ok(jwt.body.inject.includes('clock skew tolerance is 0 s') && !jwt.body.inject.includes('comma in the customer name'), jwt.body.inject);
    assert.ok(csv.body.inject.includes('comma in the customer name; quote every field') && !csv.body.inject.includes('clock skew tolerance'), csv.body.inject);
    const tooLong = await api.post('/api/hooks/session-start', {
      harness: 'claude-code',
      sessionKey: 'c-long',
      parentSessionKey: 'p',
      task: 'x'.repeat(20_001),
    });
    assert.equal(tooLong.status, 400);
    assert.ok(tooLong.body.error);
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
    await turn(
      'e',
      'Look at src/auth/login.ts and the refreshToken function. The bug is in login.ts when refreshToken expires.',
      'I will not touch the config. You must not commit generated files in dist. ' + FILLER,
    );
    await turn(
      'e',
      'Also check login.ts again for refreshToken usage. ' + FILLER.repeat(3),
      'You must not commit generated files in dist. ' + FILLER.repeat(2),
    );
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

  it('the recency fallback picks the most recently active session with turns, never a just-started sibling, and says the parent was inferred', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'main', project: '/repo', title: 'Main work' });
    await turn('main', 'Refactor the payment module.');
    // A sibling sub-agent that just started (0 turns) is newer than the main session.
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'sib', project: '/repo', harnessAgentId: 'agent-1' });
    const sub = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'sub2', project: '/repo', harnessAgentId: 'agent-2' });
    assert.equal(sub.body.lineageSource, 'project-recency');
    assert.equal(sub.body.parentSessionKey, 'main');
    assert.match(sub.body.inject, /Main work \(claude-code session main\) — parent inferred from recent activity/);
    assert.match(sub.body.inject, /Refactor the payment module/);
  });

  it('the runtime-path claim is enforced on compaction-complete, checkpoint-extract and remember (409)', async () => {
    await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'claimed', project: '/repo', runtimePath: 'plugin' });
    await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'claimed', userPrompt: 'x'.repeat(600), runtimePath: 'plugin' });
    const compaction = await api.post('/api/hooks/compaction-complete', {
      harness: 'openclaw',
      sessionKey: 'claimed',
      summary: 'replaced',
      runtimePath: 'legacy',
    });
    assert.equal(compaction.status, 409, JSON.stringify(compaction.body));
    const extract = await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'claimed', runtimePath: 'legacy' });
    assert.equal(extract.status, 409);
    const remember = await api.post('/api/hooks/remember', { harness: 'openclaw', sessionKey: 'claimed', content: 'a fact', runtimePath: 'legacy' });
    assert.equal(remember.status, 409, JSON.stringify(remember.body));
    assert.equal((await api.get('/api/sessions/claimed/inherited')).body.sections.checkpoint, null, 'the checkpoint was not replaced');
    const same = await api.post('/api/hooks/compaction-complete', { harness: 'openclaw', sessionKey: 'claimed', summary: 'kept', runtimePath: 'plugin' });
    assert.equal(same.status, 200);
  });

  it('the runtime-path claim is enforced on every write route that names a claimed session, by body or header (409), and nothing is written', async () => {
    await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'claimed', project: '/repo', runtimePath: 'plugin' });
    await api.post('/api/hooks/user-prompt-submit', {
      harness: 'openclaw',
      sessionKey: 'claimed',
      userPrompt: 'Never skip the ledger check.',
      runtimePath: 'plugin',
    });
    const rule = await api.post('/api/constraints', { sessionKey: 'claimed', content: 'Always keep amounts in cents.' });
    assert.equal(rule.status, 200);
    // Lifecycle hooks take the claim in their own store write; entities are the agent's, not a
    // session's; a spawn writes a new child session, never its parent; the transcript cursor only
    // reads where the hook's own chunks stopped (the write that follows is a lifecycle hook); a spawn
    // call's note writes nothing to the store (the child's start that takes it is a lifecycle hook).
    const notSessionWrites = new Set([
      'sessionStart',
      'subagentSpawn',
      'transcriptCursor',
      'userPromptSubmit',
      'sessionEnd',
      'harnessHook',
      'editEntity',
      'spawnRun',
      'createToken',
      'revokeToken',
    ]);
    const writes: Record<string, { method: string; path: string; body: unknown }> = {
      remember: { method: 'POST', path: '/api/hooks/remember', body: { harness: 'openclaw', sessionKey: 'claimed', content: 'a fact' } },
      preCompaction: { method: 'POST', path: '/api/hooks/pre-compaction', body: { harness: 'openclaw', sessionKey: 'claimed' } },
      compactionComplete: { method: 'POST', path: '/api/hooks/compaction-complete', body: { harness: 'openclaw', sessionKey: 'claimed', summary: 'replaced' } },
      checkpointExtract: { method: 'POST', path: '/api/hooks/session-checkpoint-extract', body: { harness: 'openclaw', sessionKey: 'claimed' } },
      synthesis: { method: 'POST', path: '/api/hooks/synthesis', body: { sessionKey: 'claimed' } },
      synthesisComplete: { method: 'POST', path: '/api/hooks/synthesis/complete', body: { sessionKey: 'claimed', content: '# MEMORY' } },
      bypass: { method: 'POST', path: '/api/sessions/claimed/bypass', body: { enabled: true } },
      upsertRun: { method: 'POST', path: '/api/runs', body: { sessionKey: 'claimed', runner: 'cli', status: 'pending' } },
      deliverRuns: { method: 'POST', path: '/api/runs/deliver', body: { parentSessionKey: 'claimed' } },
      addConstraint: { method: 'POST', path: '/api/constraints', body: { sessionKey: 'claimed', content: 'Never do X.' } },
      editConstraint: { method: 'POST', path: `/api/constraints/${rule.body.id}`, body: { active: false } },
      addEntity: { method: 'POST', path: '/api/entities', body: { sessionKey: 'claimed', name: 'ledger' } },
      archiveTurns: { method: 'POST', path: '/api/sessions/claimed/archive', body: { from: 1, to: 1, summary: 'the rule' } },
    };
    const { ROUTES } = await import('../../src/api/routes');
    const uncovered = Object.entries(ROUTES)
      .filter(([id, r]) => r.permission === 'remember' && !notSessionWrites.has(id) && !(id in writes))
      .map(([id]) => id);
    assert.deepEqual(uncovered, [], 'every write route is in this matrix');
    const before = await api.get('/api/sessions/claimed/inherited');
    for (const [id, w] of Object.entries(writes)) {
      const refused = await api.call(w.method, w.path, w.body, { 'x-baton-runtime-path': 'legacy' });
      assert.equal(refused.status, 409, `${id}: ${JSON.stringify(refused.body)}`);
      assert.match(refused.body.error, /claimed by the plugin runtime path/, id);
    }
    const after = await api.get('/api/sessions/claimed/inherited');
    assert.equal(after.body.block, before.body.block, 'nothing was written');
    assert.equal((await api.get('/api/sessions/claimed')).body.bypassed, false);
    // The path holding the claim writes as before.
    assert.equal((await api.call('POST', '/api/sessions/claimed/bypass', { enabled: false }, { 'x-baton-runtime-path': 'plugin' })).status, 200);
    assert.equal((await api.call('POST', `/api/constraints/${rule.body.id}`, { active: false }, { 'x-baton-runtime-path': 'plugin' })).status, 200);
  });

  /**
   * Lets the plugin runtime path take the claim on `key` (a session-start over HTTP, a request of its
   * own) once, right after the route's store step `name` of `kind` answered: between two steps of a
   * write route that is already running.
   */
  function claimAfter(kind: 'read' | 'write', name: string, key: string): void {
    const store = daemon.store as unknown as Record<string, (n: string, a: unknown) => Promise<unknown>>;
    const original = store[kind].bind(daemon.store);
    let armed = true;
    store[kind] = async (n, a) => {
      const value = await original(n, a);
      if (armed && n === name) {
        armed = false;
        const taken = await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: key, runtimePath: 'plugin' });
        assert.equal(taken.status, 200, JSON.stringify(taken.body));
      }
      return value;
    };
  }

  it('a claim another runtime path takes while a write route runs is honoured at its write: 409 and nothing written', async () => {
    await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'race', project: '/repo' });
    // POST /api/constraints reads the session, then writes the rule: the claim lands in between.
    claimAfter('read', 'writableSession', 'race');
    const refused = await api.call('POST', '/api/constraints', { sessionKey: 'race', content: 'Never ship on Fridays.' }, { 'x-baton-runtime-path': 'legacy' });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.error, /session race is claimed by the plugin runtime path/);
    const rules = await api.get('/api/constraints?sessionKey=race');
    assert.deepEqual(
      rules.body.constraints.map((r: { content: string }) => r.content),
      [],
      'the rule was not written',
    );
    assert.equal((await api.get('/api/sessions/race')).body.runtimePath, 'plugin');
  });

  it('a route making several writes is refused at the write that meets the claim (earlier writes stay), and applies none when the claim is held from the start', async () => {
    await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'race', project: '/repo' });
    // POST /api/entities writes the entity, then its focus in the session: the claim lands in between.
    claimAfter('write', 'setEntity', 'race');
    const entitiesOf = async (query: string) => (await api.get(`/api/entities${query}`)).body.entities.map((e: { name: string }) => e.name).sort();
    const refused = await api.call('POST', '/api/entities', { sessionKey: 'race', name: 'ledger' }, { 'x-baton-runtime-path': 'legacy' });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.deepEqual(await entitiesOf(''), ['ledger'], 'the write before the claim stays');
    assert.deepEqual(await entitiesOf('?sessionKey=race'), [], 'the write after it was refused');
    // The claim is held now: the same route from the other path applies nothing at all.
    const none = await api.call('POST', '/api/entities', { sessionKey: 'race', name: 'payments' }, { 'x-baton-runtime-path': 'legacy' });
    assert.equal(none.status, 409, JSON.stringify(none.body));
    assert.deepEqual(await entitiesOf(''), ['ledger']);
  });

  it('a write with no runtime path, or to a session nobody claims, is not held to the claim', async () => {
    await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'claimed', project: '/repo', runtimePath: 'plugin' });
    await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'free', project: '/repo' });
    assert.equal((await api.post('/api/constraints', { sessionKey: 'claimed', content: 'No path named.' })).status, 200);
    assert.equal((await api.call('POST', '/api/constraints', { sessionKey: 'free', content: 'Unclaimed.' }, { 'x-baton-runtime-path': 'legacy' })).status, 200);
    assert.equal((await api.call('POST', '/api/entities', { sessionKey: 'free', name: 'ledger' }, { 'x-baton-runtime-path': 'legacy' })).status, 200);
    assert.equal((await api.get('/api/constraints?sessionKey=claimed')).body.constraints.length, 1);
    assert.equal((await api.get('/api/constraints?sessionKey=free')).body.constraints.length, 1);
  });

  it("an isolated agent reads only its own sessions, not the shared agents' ones", async () => {
    const token = async (agentId: string, readPolicy: string) =>
      (await api.post('/api/tokens', { agentId, permissions: ['remember', 'recall'], readPolicy })).body.token as string;
    const iso = client(daemon, await token('iso', 'isolated'));
    const shared = client(daemon, await token('pub', 'shared'));
    await shared.post('/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'pub-s', userPrompt: 'shared zebracorn notes' });
    await iso.post('/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'iso-s', userPrompt: 'isolated zebracorn notes' });
    const isoSearch = await iso.post('/api/sessions/search', { query: 'zebracorn' });
    assert.deepEqual(
      isoSearch.body.hits.map((h: any) => h.sessionKey),
      ['iso-s'],
    );
    assert.equal((await iso.get('/api/sessions/pub-s')).status, 404);
    const sharedSearch = await shared.post('/api/sessions/search', { query: 'zebracorn' });
    assert.deepEqual(
      sharedSearch.body.hits.map((h: any) => h.sessionKey),
      ['pub-s'],
      'the isolated session stays hidden from others',
    );
  });

  it('search understands a question (route, with recall@5 over a realistic corpus), a quoted phrase stays exact, and recall falls back the same way', async () => {
    for (const session of CORPUS) {
      for (const [user, assistant] of session.turns) await turn(session.key, user, assistant);
    }
    const strict = await api.post('/api/sessions/search', { query: 'JWT login bug' });
    assert.equal(strict.body.hits[0].sessionKey, 'jwt-login');
    let found = 0;
    for (const { q, answer } of QUESTIONS) {
      const r = await api.post('/api/sessions/search', { query: q, limit: 5 });
      assert.equal(r.status, 200);
      if (r.body.hits.slice(0, 5).some((h: any) => h.sessionKey === answer)) found++;
    }
    const recallAt5 = found / QUESTIONS.length;
    console.log(`      question search recall@5: ${found}/${QUESTIONS.length} = ${recallAt5.toFixed(2)}`);
    assert.ok(recallAt5 >= 0.9, `recall@5 ${recallAt5}`);
    const phrase = await api.post('/api/sessions/search', { query: '"what did we decide about the JWT login bug"' });
    assert.equal(phrase.body.hits.length, 0, 'a quoted phrase stays exact');
    await api.post('/api/hooks/remember', { harness: 'codex', content: 'The JWT login bug was clock skew; verifyJwt allows 30 seconds of leeway.' });
    const recalled = await api.post('/api/hooks/recall', { harness: 'codex', query: 'what did we decide about the JWT login bug?' });
    assert.equal(recalled.status, 200);
    assert.match(JSON.stringify(recalled.body.results ?? recalled.body.memories), /clock skew/);
  });

  it('constraints can be added, listed, edited and deactivated by hand over HTTP; active ones reach the child, agent-scoped', async () => {
    await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'hand', project: '/repo' });
    await turn('hand', 'Work on the billing export.');
    const added = await api.post('/api/constraints', { sessionKey: 'hand', content: 'Do not touch the invoices table.' });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.entity, 'rules');
    assert.equal(added.body.active, true);
    const listed = await api.get('/api/constraints?sessionKey=hand');
    assert.deepEqual(
      listed.body.constraints.map((c: any) => c.content),
      ['Do not touch the invoices table.'],
    );
    let child = await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'hand-c1', parentSessionKey: 'hand' });
    assert.match(child.body.inject, /Active constraints:\n {2}- rules: Do not touch the invoices table\./);
    const edited = await api.post(`/api/constraints/${added.body.id}`, { content: 'Do not touch the invoices or payments tables.' });
    assert.equal(edited.body.content, 'Do not touch the invoices or payments tables.');
    const off = await api.post(`/api/constraints/${added.body.id}`, { active: false });
    assert.equal(off.body.active, false);
    assert.equal((await api.get('/api/constraints?sessionKey=hand')).body.count, 0);
    assert.equal((await api.get('/api/constraints?sessionKey=hand&all=1')).body.count, 1);
    child = await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'hand-c2', parentSessionKey: 'hand' });
    assert.doesNotMatch(child.body.inject, /invoices/);
    // Another agent can neither edit it nor add to a session it does not own.
    const other = client(daemon, (await api.post('/api/tokens', { agentId: 'other', permissions: ['remember', 'recall'], readPolicy: 'shared' })).body.token);
    assert.equal((await other.post(`/api/constraints/${added.body.id}`, { active: true })).status, 404);
    assert.equal((await other.post('/api/constraints', { sessionKey: 'hand', content: 'Always be nice.' })).status, 404);
  });

  it('baton constraints add / list / deactivate (CLI through the running server)', async () => {
    await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'cli-s', project: '/repo' });
    await turn('cli-s', 'Refactor the exporter.');
    const added = await runCli(['constraints', 'add', '--session', 'cli-s', '--data-dir', dataDir, '--json', 'never', 'drop', 'the', 'users', 'table']);
    assert.equal(added.status, 0, added.stderr);
    const id = JSON.parse(added.stdout).id;
    const listed = await runCli(['constraints', 'list', '--session', 'cli-s', '--data-dir', dataDir]);
    assert.match(listed.stdout, /active +cli-s {2}rules: never drop the users table/);
    assert.match((await api.get('/api/sessions/cli-s/inherited')).body.block, /never drop the users table/);
    assert.equal((await runCli(['constraints', 'deactivate', String(id), '--data-dir', dataDir])).status, 0);
    assert.doesNotMatch((await api.get('/api/sessions/cli-s/inherited')).body.block, /never drop the users table/);
  });

  it('3,000 rules stated in one prompt: the child gets the most important within the budget, then how many more and where to list them', async () => {
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'rules', project: '/repo', title: 'Lots of rules' });
    const rules = Array.from({ length: 3000 }, (_, i) => `Never change the module_${i} interface without a review.`);
    await turn('rules', rules.join(' '), `Understood. ${FILLER}`);
    // The compaction extracts the rules stated since the last checkpoint, as the parent's constraints.
    const compacted = await api.post('/api/hooks/compaction-complete', {
      harness: 'claude-code',
      sessionKey: 'rules',
      summary: 'Decisions: review every interface change.',
    });
    assert.equal(compacted.status, 200, JSON.stringify(compacted.body));
    await turn('rules', `Next step. ${FILLER}`, `Working on it. ${FILLER}`);
    const hand = await api.post('/api/constraints', { sessionKey: 'rules', content: 'Do not touch the invoices table.' });
    assert.equal(hand.status, 200, JSON.stringify(hand.body));

    const child = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'rules-child', parentSessionKey: 'rules' });
    assert.equal(child.status, 200);
    const block: string = child.body.inject;
    assert.ok(estimateTokens(block) <= 2000, `within the budget: ${estimateTokens(block)} tokens`);
    assert.match(
      block,
      /Active constraints:\n {2}- rules: Do not touch the invoices table\.\n {2}- rules: Never change the module_0 interface without a review\.\n {2}- rules: Never change the module_1 interface/,
    );
    const kept = block.split('\n').filter((l) => /^ {2}- rules: Never change the module_\d+ interface/.test(l)).length;
    assert.ok(kept >= 10, `${kept} rules kept`);
    // 3,001 rules in all: the one added by hand, the kept ones, and the rest counted.
    assert.ok(block.includes(`\n  ${3000 - kept} more: \`baton constraints list\`\n`), block.slice(0, 3000));
    assert.ok(block.includes('Checkpoint summary:\n  Decisions: review every interface change.'), 'the summary still has room');
    assert.ok(block.includes('Recent context'), 'and the recent context');
    const preview = await api.get('/api/sessions/rules/inherited');
    assert.equal(preview.body.block, block, 'the preview is the same bytes');
    assert.equal(preview.body.constraintOrigins.length, kept + 1);
    assert.equal(preview.body.constraintOrigins[0].origin, 'added by hand');
    assert.ok(preview.body.budget.cut.includes('constraints'));
  });

  it('session end extracts the rules stated in the session as its constraints', async () => {
    await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'ending', project: '/repo' });
    await turn('ending', 'Ship the release notes. Always run the full test suite before tagging.');
    const ended = await api.post('/api/hooks/session-end', { harness: 'codex', sessionKey: 'ending' });
    assert.equal(ended.status, 200);
    const listed = await api.get('/api/constraints?sessionKey=ending');
    assert.deepEqual(
      listed.body.constraints.map((c: any) => c.content),
      ['Always run the full test suite before tagging.'],
    );
  });
});
