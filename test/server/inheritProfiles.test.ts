// Profiles per sub-agent type, where each inherited rule came from, and entities by hand
// (docs/inheritance.md), over real HTTP on 127.0.0.1 against a real store on disk.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { loadConfig } from '../../src/server/config';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonClient, runCliAsync, type JsonClient } from '../helpers/jsonClient';

describe('inherit profiles, provenance and entities (real HTTP, real store)', function () {
  this.timeout(120_000);
  let daemon: Daemon;
  let dataDir: string;
  let api: JsonClient;

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({
      dataDir,
      port: 0,
      config: {
        transcriptRoots: [tempDir('baton-transcripts-')],
        inheritProfiles: { defaultProfile: 'full', byAgentType: { 'code-reviewer': 'routing', 'silent-helper': 'none' }, maxTokens: { digest: 300 } },
        inheritAgents: { small: { maxTokens: 150 } },
      },
    });
    api = jsonClient(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  /** A parent with a rule, a compaction summary, a later exchange naming billing.ts twice (in `agentId`, else the default agent). */
  async function parent(key = 'p', agentId?: string) {
    assert.equal(
      (await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: key, project: '/repo', title: 'Billing', agentId })).status,
      200,
    );
    const prompt = async (userPrompt: string, lastAssistantMessage?: string) =>
      assert.equal(
        (await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: key, userPrompt, lastAssistantMessage, agentId })).status,
        200,
      );
    await prompt('Never call the payment provider from tests.');
    await prompt(
      'Fix the rounding in billing.ts please; billing.ts rounds half-up today.',
      'Looking at it. You must run the ledger check before every release.',
    );
    const compacted = await api.post('/api/hooks/compaction-complete', {
      harness: 'claude-code',
      sessionKey: key,
      summary: 'Decided: round half-even in billing.ts.',
      agentId,
    });
    assert.equal(compacted.status, 200, JSON.stringify(compacted.body));
    await prompt('Now billing.ts needs a test for the rounding.', 'I added the test for billing.ts rounding at the boundary.');
  }

  async function childBlock(body: Record<string, unknown>): Promise<string> {
    const r = await api.post('/api/hooks/session-start', { harness: 'claude-code', parentSessionKey: 'p', project: '/repo', ...body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.inject as string;
  }

  it('chooses the block by the agent type the harness sends: full, digest, routing, none, each with its own budget', async () => {
    await parent();
    const full = await childBlock({ sessionKey: 'p/general', harnessAgentType: 'general-purpose' });
    assert.match(full, /Active constraints:/);
    assert.match(full, /Checkpoint summary:\n {2}Decided: round half-even/);
    assert.match(full, /Recent context:/);
    assert.match(full, /Budget: ~\d+ of 2000 tokens$/);

    // Explore is digest by default: the rules and the digest, not the tail crowding its window.
    const digest = await childBlock({ sessionKey: 'p/explore', harnessAgentType: 'Explore' });
    assert.match(digest, /never call the payment provider from tests/i);
    assert.match(digest, /Decided: round half-even/);
    assert.doesNotMatch(digest, /Recent context|Focal entities/);
    assert.match(digest, /Budget: ~\d+ of 300 tokens, profile digest$/);

    // Configured: a code reviewer gets the header and the rules only.
    const routing = await childBlock({ sessionKey: 'p/review', harnessAgentType: 'CODE-REVIEWER' });
    assert.match(routing, /Billing \(claude-code session p\)/);
    assert.match(routing, /must run the ledger check before every release/);
    assert.doesNotMatch(routing, /Checkpoint summary|Recent context/);
    assert.match(routing, /profile routing/);

    // The setup helpers need none of the parent's work, but its rules still hold for them.
    const setup = await childBlock({ sessionKey: 'p/statusline', harnessAgentType: 'statusline-setup' });
    assert.match(setup, /must run the ledger check before every release/);
    assert.doesNotMatch(setup, /Checkpoint summary|Recent context/);
    assert.match(setup, /profile routing/);
    // Nothing at all only where the configuration says so.
    assert.equal(await childBlock({ sessionKey: 'p/silent', harnessAgentType: 'silent-helper' }), '');

    // Through the real Claude Code hook payload (SubagentStart with agent_type).
    const hook = await api.post('/api/hooks/claude-code', {
      hook_event_name: 'SubagentStart',
      session_id: 'p',
      cwd: '/repo',
      agent_id: 'a1b2',
      agent_type: 'Explore',
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const context = hook.body.hookSpecificOutput?.additionalContext as string;
    assert.match(context, /profile digest/);
    assert.doesNotMatch(context, /Recent context/);
  });

  it("uses the agent's own budget when one is configured", async () => {
    // The child's parent is its own agent's session of the key (docs/security.md).
    await parent('p', 'small');
    const block = await childBlock({ sessionKey: 'p/small', agentId: 'small', harnessAgentType: 'general-purpose' });
    const budget = /Budget: ~(\d+) of 150 tokens/.exec(block);
    assert.ok(budget, block);
    // Constraints are never cut, the rest fits around them.
    assert.match(block, /never call the payment provider/i);
  });

  it('the preview shows the block for a chosen agent type or profile, the budget, what was cut and where each rule came from', async () => {
    await parent();
    const added = await api.post('/api/constraints', { sessionKey: 'p', content: 'Keep amounts in integer cents.' });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.deepEqual(added.body.origin, { kind: 'hand', seq: null, role: null });

    const byType = await api.get('/api/sessions/p/inherited?agentType=Explore');
    assert.equal(byType.status, 200, JSON.stringify(byType.body));
    assert.deepEqual(byType.body.profile, { name: 'digest', maxTokens: 300, reason: 'agentType:Explore', agentType: 'Explore' });
    assert.equal(byType.body.profiles.byAgentType['code-reviewer'], 'routing');
    assert.equal(byType.body.profiles.byAgentType.Explore, 'digest');
    assert.equal(byType.body.budget.maxTokens, 300);

    const routing = await api.get('/api/sessions/p/inherited?profile=routing');
    assert.equal(routing.body.profile.name, 'routing');
    assert.equal(routing.body.sections.checkpoint, null);

    const whole = await api.get('/api/sessions/p/inherited');
    const origins = Object.fromEntries((whole.body.constraintOrigins as Array<{ text: string; origin: string }>).map((c) => [c.text, c.origin]));
    const by = (needle: RegExp) => Object.entries(origins).find(([text]) => needle.test(text))?.[1];
    assert.equal(by(/payment provider/i), 'user, turn 1', JSON.stringify(origins));
    assert.match(by(/ledger check/) ?? '', /^agent, turn \d+$/);
    assert.equal(by(/integer cents/), 'added by hand');

    // The constraints route says the same, with the turn and who said it.
    const listed = await api.get('/api/constraints?sessionKey=p');
    const ledger = (listed.body.constraints as any[]).find((c) => /ledger check/.test(c.content));
    assert.equal(ledger.origin.kind, 'extracted');
    assert.equal(ledger.origin.role, 'assistant');
    const turn = await api.get(`/api/sessions/p/turns?from=${ledger.origin.seq}&limit=1`);
    assert.match(turn.body.turns[0].text, /ledger check/);

    const bad = await api.get('/api/sessions/p/inherited?profile=everything');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /profile/);
  });

  it('a deactivated extracted rule stays deactivated when a later extraction (session end) reads its turn again', async () => {
    await parent();
    const rule = ((await api.get('/api/constraints?sessionKey=p')).body.constraints as any[]).find((c) => /payment provider/.test(c.content));
    assert.ok(rule, 'extracted at the compaction');
    assert.equal((await api.post(`/api/constraints/${rule.id}`, { active: false })).status, 200);
    assert.equal((await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'p' })).status, 200);
    const all = ((await api.get('/api/constraints?sessionKey=p&all=1')).body.constraints as any[]).filter((c) => /payment provider/.test(c.content));
    assert.deepEqual(
      all.map((c) => [c.id, c.active]),
      [[rule.id, false]],
    );
    assert.doesNotMatch((await api.get('/api/sessions/p/inherited')).body.block, /payment provider/i);
  });

  it('entities by hand: added into a session focus, listed, renamed, deactivated and reactivated; a deactivated one leaves the block', async () => {
    await parent();
    const added = await api.post('/api/entities', { name: 'ledger-service', description: 'double-entry ledger', sessionKey: 'p' });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.active, true);
    let block = (await api.get('/api/sessions/p/inherited')).body.sections;
    assert.ok(block.focalEntities.includes('ledger-service'), JSON.stringify(block));
    assert.ok(block.focalEntities.includes('billing.ts'), 'the extracted entity is there too');

    const listed = await api.get('/api/entities?sessionKey=p');
    const byName = new Map((listed.body.entities as any[]).map((e) => [e.name, e]));
    assert.equal(byName.get('ledger-service')?.description, 'double-entry ledger');
    assert.deepEqual(byName.get('ledger-service')?.focus, { origin: 'hand', seq: null, importance: 0.5 });
    // The extractor recorded the focal entity it found, with the turn it was first named in.
    const billingTs = byName.get('billing.ts');
    assert.equal(billingTs?.kind, 'file');
    assert.equal(billingTs?.focus.origin, 'extracted');
    const first = await api.get(`/api/sessions/p/turns?from=${billingTs.focus.seq}&limit=1`);
    assert.match(first.body.turns[0].text, /billing\.ts/);

    // An extracted entity deactivated by hand does not come back on its own.
    const billing = await api.post('/api/entities', { name: 'billing.ts' });
    const off = await api.post(`/api/entities/${billing.body.id}`, { active: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.active, false);
    block = (await api.get('/api/sessions/p/inherited')).body.sections;
    assert.ok(!block.focalEntities.includes('billing.ts'), JSON.stringify(block));
    assert.ok(!(await api.get('/api/entities')).body.entities.some((e: any) => e.name === 'billing.ts'));
    assert.ok((await api.get('/api/entities?all=1')).body.entities.some((e: any) => e.name === 'billing.ts'));
    await api.post(`/api/entities/${billing.body.id}`, { active: true });
    assert.ok((await api.get('/api/sessions/p/inherited')).body.sections.focalEntities.includes('billing.ts'));

    const renamed = await api.post(`/api/entities/${added.body.id}`, { name: 'ledger' });
    assert.equal(renamed.body.name, 'ledger');
    const clash = await api.post(`/api/entities/${added.body.id}`, { name: 'billing.ts' });
    assert.equal(clash.status, 409);
    assert.match(clash.body.error, /billing\.ts/);
    assert.equal((await api.post('/api/entities/0', { active: false })).status, 400);
    assert.equal((await api.post('/api/entities/99999', { active: false })).status, 404);
    assert.equal((await api.post('/api/entities', { name: '' })).status, 400);
    assert.equal((await api.post('/api/entities', { name: 'x', sessionKey: 'no-such' })).status, 404);

    // Agent-scoped: another agent can neither see an isolated agent's entity nor change it.
    const iso = await api.post('/api/tokens', { agentId: 'iso', permissions: ['remember', 'recall'], readPolicy: 'isolated' });
    const other = await api.post('/api/tokens', { agentId: 'other', permissions: ['remember', 'recall'] });
    const isoApi = jsonClient(daemon, iso.body.token);
    const otherApi = jsonClient(daemon, other.body.token);
    const secret = await isoApi.post('/api/entities', { name: 'secret-project' });
    assert.equal(secret.status, 200);
    assert.equal((await otherApi.post(`/api/entities/${secret.body.id}`, { active: false })).status, 404);
    assert.ok(!(await otherApi.get('/api/entities')).body.entities.some((e: any) => e.name === 'secret-project'));
  });

  it('baton entities add / list / deactivate (CLI through the running server)', async () => {
    await parent();
    const env = { ...process.env, BATON_DATA_DIR: dataDir };
    const add = await runCliAsync(['entities', 'add', 'ledger-service', '--session', 'p', '--description', 'the ledger'], env);
    assert.equal(add.status, 0, add.stderr);
    const list = await runCliAsync(['entities', 'list', '--session', 'p'], env);
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, /ledger-service/);
    const id = /#(\d+)/.exec(add.stdout)?.[1];
    assert.ok(id, add.stdout);
    const off = await runCliAsync(['entities', 'deactivate', id], env);
    assert.equal(off.status, 0, off.stderr);
    assert.doesNotMatch((await runCliAsync(['entities', 'list'], env)).stdout, /ledger-service/);
    const bad = await runCliAsync(['entities', 'deactivate', 'abc'], env);
    assert.equal(bad.status, 2, 'a usage error');
    assert.match(bad.stderr, /expected an id/);
  });
});

describe('inherit profile configuration (DIR/config.json)', () => {
  after(cleanupTempDirs);

  it('merges configured agent types over the defaults and names a wrong profile', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ inheritProfiles: { byAgentType: { Plan: 'digest' } } }));
    const config = loadConfig(dir);
    assert.equal(config.inheritProfiles.byAgentType.Plan, 'digest');
    assert.equal(config.inheritProfiles.byAgentType.Explore, 'digest', 'the default for Explore is kept');
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ inheritProfiles: { byAgentType: { Plan: 'everything' } } }));
    assert.throws(() => loadConfig(dir), /inheritProfiles\.byAgentType\.Plan/);
  });
});
