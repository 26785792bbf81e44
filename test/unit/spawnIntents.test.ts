import { strict as assert } from 'node:assert';
import { SpawnIntents, type SpawnIntent } from '../../src/server/spawnIntents';
import { assembleForkBlock, SPAWNING_TEXT_LABEL } from '../../src/core/forkBlock';
import { spawningMessageText, claudeCodeTranscript } from '../../src/harnesses/claudeCode/transcript';
import type { InheritSources } from '../../src/core/inherit';

const intent = (toolUseId: string, over: Partial<SpawnIntent> = {}): SpawnIntent => ({
  agentId: 'default',
  harness: 'claude-code',
  rootKey: 'root',
  spawnerKey: 'root',
  toolUseId,
  agentType: 'general-purpose',
  task: `task of ${toolUseId}`,
  fork: false,
  spawningText: null,
  ...over,
});

describe('spawn intents (a sub-agent task kept from its spawn call until its start)', () => {
  it('a second intent of the same type waits until the first is claimed, so starts take tasks in order', async () => {
    const intents = new SpawnIntents({ ttlMs: 60_000, maxOrderWaitMs: 5_000, maxIntents: 10 });
    await intents.record(intent('a'));
    let secondDone = false;
    const second = intents.record(intent('b')).then((r) => ((secondDone = true), r));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(secondDone, false, 'b waits while a is unclaimed');
    assert.equal(intents.claim('default', 'claude-code', 'root', 'general-purpose', 'agent-x')?.task, 'task of a');
    await second;
    assert.equal(intents.claim('default', 'claude-code', 'root', 'General-Purpose', 'agent-y')?.task, 'task of b');
    assert.equal(intents.claim('default', 'claude-code', 'root', 'general-purpose', 'agent-z'), null);
  });

  it('other types, roots and agents do not wait for each other and are never claimed across', async () => {
    const intents = new SpawnIntents({ ttlMs: 60_000, maxOrderWaitMs: 5_000, maxIntents: 10 });
    await intents.record(intent('a'));
    assert.deepEqual(await intents.record(intent('e', { agentType: 'Explore' })), { waitedMs: 0 });
    assert.deepEqual(await intents.record(intent('o', { rootKey: 'other' })), { waitedMs: 0 });
    assert.equal(intents.claim('someone-else', 'claude-code', 'root', 'general-purpose'), null);
    assert.equal(intents.claim('default', 'codex', 'root', 'general-purpose'), null);
    assert.equal(intents.claim('default', 'claude-code', 'root', 'Explore')?.toolUseId, 'e');
  });

  it('a child named after its call id (VS Code agent mode) takes that call whatever the order', async () => {
    const intents = new SpawnIntents({ ttlMs: 60_000, maxOrderWaitMs: 10, maxIntents: 10 });
    await intents.record(intent('call_1__vscode-1', { agentType: 'runSubagent' }));
    await intents.record(intent('call_2__vscode-2', { agentType: 'runSubagent' }));
    assert.equal(intents.claim('default', 'claude-code', 'root', 'runSubagent', 'call_2')?.toolUseId, 'call_2__vscode-2');
  });

  it('the wait is bounded, and an intent never claimed is forgotten after its time', async () => {
    let now = 1_000;
    const intents = new SpawnIntents({ ttlMs: 1_000, maxOrderWaitMs: 30, maxIntents: 10 }, () => now);
    await intents.record(intent('denied'));
    await intents.record(intent('b'));
    now += 5_000;
    assert.equal(intents.pending('default', 'claude-code', 'root'), false);
    assert.equal(intents.claim('default', 'claude-code', 'root', 'general-purpose'), null);
  });
});

const sources = (over: Partial<InheritSources> = {}): InheritSources => ({
  parentKey: 'p1',
  title: 'Fix the flaky test',
  harness: 'claude-code',
  checkpoint: null,
  tail: 'user: Fix the flaky test\nassistant: looking',
  tailTruncated: false,
  constraints: [
    { entity: 'tests', content: 'never skip a test', source: 'user' },
    { entity: 'deploy', content: 'no deploys on Friday', source: 'hand', origin: 'added by hand' },
  ],
  focalEntities: ['tests'],
  ...over,
});

describe("a fork's block (only what its copy of the conversation lacks)", () => {
  it('holds the spawning text, marked, and only rules from outside the conversation; no title, tail or digest', () => {
    const block = assembleForkBlock(sources({ digests: [{ digest: 'digest text', source: null }] }), { spawningText: 'The cache is warm.', maxTokens: 600 })!;
    assert.ok(block.text.includes(SPAWNING_TEXT_LABEL) && block.text.includes('  The cache is warm.'));
    assert.ok(block.text.includes('deploy: no deploys on Friday'));
    assert.ok(!block.text.includes('never skip a test'), 'a rule stated in the conversation is in the copy already');
    assert.ok(!/Fix the flaky test|digest text|Recent context/.test(block.text));
    assert.equal(block.profile, 'fork');
  });

  it('gives no block at all when the copy lacks nothing', () => {
    assert.equal(assembleForkBlock(sources({ constraints: [] }), { spawningText: null, maxTokens: 600 }), null);
  });
});

describe("Claude Code's transcript: spawning text and resume messages", () => {
  const lines = [
    { type: 'user', message: { role: 'user', content: 'go' } },
    { type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'First my analysis.' }] } },
    {
      type: 'assistant',
      message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Agent', input: { subagent_type: 'fork' } }] },
    },
    { type: 'assistant', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'another message' }] } },
  ].map((l) => JSON.stringify(l));

  it('finds the text blocks of the message that made the call, even from a tail cut mid-line', () => {
    assert.equal(spawningMessageText(`cut line"}\n${lines.join('\n')}`, 'toolu_1'), 'First my analysis.');
    assert.equal(spawningMessageText(lines.join('\n'), 'toolu_missing'), null);
  });

  it("keeps the coordinator's message that resumed a sub-agent as its next prompt, and drops other meta lines", () => {
    const records = [
      { type: 'user', message: { role: 'user', content: 'task' } },
      { type: 'user', isMeta: true, message: { role: 'user', content: 'caveat: internal note' } },
      { type: 'user', isMeta: true, origin: { kind: 'coordinator' }, message: { role: 'user', content: 'RESUME: also check eviction' } },
    ];
    const turns = claudeCodeTranscript.parse(records);
    assert.deepEqual(
      turns.map((t) => [t.role, t.text]),
      [
        ['user', 'task'],
        ['user', 'RESUME: also check eviction'],
      ],
    );
  });
});
