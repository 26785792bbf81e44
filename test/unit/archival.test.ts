import { strict as assert } from 'node:assert';
import { archivedMarker, deterministicSummary, liveSubagentsSection, parseModelSummary, renderSummary, shouldArchive } from '../../src/core/archival';
import { SETTING_DEFAULTS } from '../../src/core/settings';
import { aggregateDeliveries, canMove, isTerminal, childEnvironment, expandAgentSession, runSessionKey } from '../../src/core/runs';
import type { SubagentRun } from '../../src/core/types';

const settings = { enabled: true, maxTurns: 10, tokenThreshold: 100, toolCallThreshold: 3, depthCap: 2 };
const facts = { conversationTurns: 2, text: 'short', toolCalls: 0, toolCallOpen: false, depth: 0 };

describe('archival triggers and summaries', () => {
  it('fires on max turns, tokens over the threshold and too many tool calls', () => {
    assert.deepEqual(shouldArchive(settings, { ...facts, conversationTurns: 10 }), { archive: true, reason: 'max_turns' });
    assert.deepEqual(shouldArchive(settings, { ...facts, text: 'x'.repeat(401) }), { archive: true, reason: 'token_threshold' });
    assert.deepEqual(shouldArchive(settings, { ...facts, toolCalls: 4 }), { archive: true, reason: 'tool_call_threshold' });
    assert.equal(shouldArchive(settings, facts).archive, false);
  });

  it('fires at the thresholds, not only above them (docs/memory.md, "Archival")', () => {
    assert.deepEqual(shouldArchive(settings, { ...facts, toolCalls: 3 }), { archive: true, reason: 'tool_call_threshold' });
    assert.deepEqual(shouldArchive(settings, { ...facts, text: 'x'.repeat(400) }), { archive: true, reason: 'token_threshold' });
    assert.equal(shouldArchive(settings, { ...facts, toolCalls: 2, text: 'x'.repeat(390) }).archive, false);
  });

  it('defaults to 8,000 tokens, 5 tool calls and a depth cap of 3', () => {
    assert.equal(SETTING_DEFAULTS.archival.tokenThreshold, 8000);
    assert.equal(SETTING_DEFAULTS.archival.toolCallThreshold, 5);
    assert.equal(SETTING_DEFAULTS.archival.depthCap, 3);
    const defaults = { ...SETTING_DEFAULTS.archival, enabled: true };
    assert.equal(shouldArchive(defaults, { ...facts, toolCalls: 5 }).archive, true, '5 tool calls at threshold 5 archive');
  });

  it('a finished run is terminal', () => {
    assert.equal(isTerminal('completed'), true);
    assert.equal(isTerminal('failed'), true);
    assert.equal(isTerminal('running'), false);
  });

  it('never archives when disabled, at the depth cap, or mid tool call', () => {
    const heavy = { ...facts, conversationTurns: 99 };
    assert.deepEqual(shouldArchive({ ...settings, enabled: false }, heavy), { archive: false, reason: 'disabled' });
    assert.deepEqual(shouldArchive(settings, { ...heavy, depth: 2 }), { archive: false, reason: 'at depth cap' });
    assert.deepEqual(shouldArchive(settings, { ...heavy, toolCallOpen: true }), { archive: false, reason: 'tool call in flight' });
    assert.equal(shouldArchive(settings, { ...heavy, depth: 1 }).archive, true, 'a holder below the cap archives its own turns');
  });

  it('keeps valid model JSON structured, a paragraph as a paragraph, and marks invalid JSON while keeping it', () => {
    const good = parseModelSummary(
      '```json\n{"outcome":"Fixed login","key_findings":["JWT expired"],"files_touched":["auth.ts"],"tools_used":["Edit"],"open_questions":[]}\n```',
    );
    assert.equal(good.kind, 'structured');
    assert.deepEqual(parseModelSummary('We fixed the login flow.'), { kind: 'paragraph', text: 'We fixed the login flow.' });
    const bad = parseModelSummary('{"outcome": 3}');
    assert.equal(bad.kind, 'invalid');
    assert.match(renderSummary(bad), /^\[summary: invalid model output \(outcome must be a string\)\]\n\{"outcome": 3\}$/);
    const broken = parseModelSummary('{"outcome": "x", ');
    assert.equal(broken.kind, 'invalid');
  });

  it('summarises deterministically: outcome, files, tools, open questions', () => {
    const s = deterministicSummary('Fix src/auth/login.ts please', 'Fixed the token refresh. Also touched package.json.\nShould we rotate keys?', [
      'Edit',
      'Edit',
      'Bash',
    ]);
    assert.equal(s.outcome, 'Fixed the token refresh.');
    assert.deepEqual(s.files_touched, ['src/auth/login.ts', 'package.json']);
    assert.deepEqual(s.tools_used, ['Edit', 'Bash']);
    assert.deepEqual(s.open_questions, ['Should we rotate keys?']);
  });

  it('writes the parent marker and the Live Subagents section', () => {
    const marker = archivedMarker('chat/holder-1', { kind: 'paragraph', text: 'Did X.' });
    assert.equal(marker, '[archived turn]\nsubagent_id: chat/holder-1\n\nDid X.');
    assert.equal(liveSubagentsSection([]), '');
    assert.match(liveSubagentsSection([{ id: 'chat/holder-1', outcome: 'Did X.' }]), /^## Live Subagents\n.*\n- chat\/holder-1: Did X\.$/);
  });
});

describe('runs: lifecycle, propagation, deliveries', () => {
  it('moves pending → running → completed | failed and never out of a terminal state', () => {
    assert.ok(canMove('pending', 'running') && canMove('running', 'completed') && canMove('running', 'failed') && canMove('pending', 'failed'));
    assert.ok(!canMove('completed', 'running') && !canMove('failed', 'completed') && !canMove('running', 'pending') && !canMove('pending', 'completed'));
  });

  it('propagates the session: env var, ${AGENT_SESSION_ID} placeholder, child keys under the parent', () => {
    assert.equal(expandAgentSession('--session=${AGENT_SESSION_ID} ${AGENT_SESSION_ID}', 'p/run-1'), '--session=p/run-1 p/run-1');
    assert.deepEqual(childEnvironment({ PATH: '/bin', GONE: undefined }, 'k'), { PATH: '/bin', AGENT_SESSION_ID: 'k' });
    assert.equal(runSessionKey('parent', '0123456789abcdef'), 'parent/run-01234567');
    assert.equal(runSessionKey(null, 'abc'), 'run-abc');
  });

  it('aggregates several results into one delivery', () => {
    const base = {
      agentId: 'default',
      sessionKey: null,
      parentSessionKey: 'p',
      executionMode: 'ASYNC_CALLBACK',
      inputTokens: null,
      outputTokens: null,
      durationMs: 1,
      callbackDeliveredAt: null,
      createdAt: '',
      startedAt: null,
      finishedAt: null,
      updatedAt: '',
    } as const;
    const runs: SubagentRun[] = [
      { ...base, id: 'r1', runner: 'echo', status: 'completed', context: { specId: 's' }, resultContent: 'line1\nline2', error: null },
      { ...base, id: 'r2', runner: 'lm', status: 'failed', context: {}, resultContent: null, error: 'boom' },
    ];
    assert.equal(
      aggregateDeliveries(runs),
      'Sub-agent results (2):\n- run r1 (echo, spec s) completed:\n  line1\n  line2\n- run r2 (lm) failed:\n  error: boom',
    );
  });
});
