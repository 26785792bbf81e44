import { strict as assert } from 'node:assert';
import {
  ARCHIVAL_DEFAULTS,
  MAX_TURNS_MARKER,
  archiveRangeProblem,
  archivedMarker,
  deniedToolMessage,
  deterministicSummary,
  effectiveSummaryStyle,
  endedAtMaxTurns,
  grantedTools,
  historyForModel,
  holderMayUse,
  holderTask,
  holderTranscriptPath,
  inStyle,
  liveSubagentsSection,
  matchModel,
  nextHolderKey,
  parseModelSummary,
  renderSummary,
  shouldArchive,
  summaryOfTurns,
  summaryRequest,
} from '../../src/core/archival';
import { validateSettings } from '../../src/core/settings';
import { SETTING_DEFAULTS } from '../../src/core/settings';
import { aggregateDeliveries, canMove, isTerminal, childEnvironment, expandAgentSession, runSessionKey } from '../../src/core/runs';
import type { SubagentRun } from '../../src/core/types';

const settings = { enabled: true, onMaxTurns: true, tokenThreshold: 100, toolCallThreshold: 3, depthCap: 2 };
const facts = { maxTurnsEnding: false, text: 'short', toolCalls: 0, toolCallOpen: false, depth: 0 };

describe('archival triggers and summaries', () => {
  it('fires on the max-turns ending, tokens over the threshold and too many tool calls', () => {
    assert.deepEqual(shouldArchive(settings, { ...facts, maxTurnsEnding: true }), { archive: true, reason: 'max_turns' });
    assert.deepEqual(shouldArchive(settings, { ...facts, text: 'x'.repeat(401) }), { archive: true, reason: 'token_threshold' });
    assert.deepEqual(shouldArchive(settings, { ...facts, toolCalls: 4 }), { archive: true, reason: 'tool_call_threshold' });
    assert.equal(shouldArchive(settings, facts).archive, false);
  });

  it('fires at the thresholds, not only above them (docs/archival.md, "Triggers")', () => {
    assert.deepEqual(shouldArchive(settings, { ...facts, toolCalls: 3 }), { archive: true, reason: 'tool_call_threshold' });
    assert.deepEqual(shouldArchive(settings, { ...facts, text: 'x'.repeat(400) }), { archive: true, reason: 'token_threshold' });
    assert.equal(shouldArchive(settings, { ...facts, toolCalls: 2, text: 'x'.repeat(390) }).archive, false);
  });

  it('the max-turns ending is the response ending with [Max turns reached], not a count of turns; onMaxTurns false ignores it', () => {
    assert.equal(MAX_TURNS_MARKER, '[Max turns reached]');
    assert.equal(endedAtMaxTurns('Read three files so far.\n\n[Max turns reached]\n'), true);
    assert.equal(endedAtMaxTurns('I said [Max turns reached] earlier, then finished.'), false);
    assert.equal(endedAtMaxTurns(''), false);
    assert.equal(shouldArchive({ ...settings, onMaxTurns: false }, { ...facts, maxTurnsEnding: true }).archive, false);
    // A long conversation of short turns never archives on its length alone.
    assert.equal(shouldArchive(settings, { ...facts, text: 'x'.repeat(396) }).archive, false);
  });

  it('the vetoes win over every trigger: an open tool call, the depth cap', () => {
    const all = { ...facts, maxTurnsEnding: true, text: 'x'.repeat(10_000), toolCalls: 99 };
    assert.equal(shouldArchive(settings, { ...all, toolCallOpen: true }).archive, false);
    assert.equal(shouldArchive(settings, { ...all, depth: 2 }).archive, false);
    assert.equal(shouldArchive({ ...settings, depthCap: 0 }, all).archive, false, 'depth cap 0: nothing archives');
  });

  it('defaults to 8,000 tokens, 5 tool calls, a depth cap of 3, the max-turns ending on, structured summaries, no holder tools', () => {
    assert.deepEqual(SETTING_DEFAULTS.archival, ARCHIVAL_DEFAULTS);
    assert.equal(ARCHIVAL_DEFAULTS.onMaxTurns, true);
    assert.deepEqual(ARCHIVAL_DEFAULTS.summary, { style: 'structured', model: null });
    assert.deepEqual(ARCHIVAL_DEFAULTS.holderTools, []);
    const defaults = { ...ARCHIVAL_DEFAULTS, enabled: true };
    assert.equal(shouldArchive(defaults, { ...facts, text: 'x'.repeat(31_997) }).archive, true, '8,000 estimated tokens archive');
    assert.equal(shouldArchive(defaults, { ...facts, text: 'x'.repeat(31_996) }).archive, false, '7,999 estimated tokens do not');
    assert.equal(shouldArchive(defaults, { ...facts, toolCalls: 4 }).archive, false);
    assert.equal(shouldArchive(defaults, { ...facts, depth: 2, toolCalls: 5 }).archive, true);
    assert.equal(shouldArchive(defaults, { ...facts, depth: 3, toolCalls: 5 }).archive, false);
    assert.equal(SETTING_DEFAULTS.archival.tokenThreshold, 8000);
    assert.equal(SETTING_DEFAULTS.archival.toolCallThreshold, 5);
    assert.equal(SETTING_DEFAULTS.archival.depthCap, 3);
    assert.equal(shouldArchive(defaults, { ...facts, toolCalls: 5 }).archive, true, '5 tool calls at threshold 5 archive');
  });

  it('a finished run is terminal', () => {
    assert.equal(isTerminal('completed'), true);
    assert.equal(isTerminal('failed'), true);
    assert.equal(isTerminal('running'), false);
  });

  it('never archives when disabled, at the depth cap, or mid tool call', () => {
    const heavy = { ...facts, maxTurnsEnding: true };
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
    assert.equal(holderTask('Find the auth handler\nand more'), 'Archive: Find the auth handler');
    assert.equal(holderTask('x'.repeat(100)).length, 'Archive: '.length + 80);
    assert.match(
      liveSubagentsSection([{ id: 'chat/holder-1', task: 'Archive: Find the auth handler' }]),
      /^# Live Subagents\n.*baton_query_subagent\(id, prompt\).*baton_spawn_subagent\(task\).*\n- id: chat\/holder-1 \| task: Archive: Find the auth handler$/,
    );
  });

  it('sends the model archived turns only as their marker, live turns whole', () => {
    const marker = archivedMarker('chat/holder-1', { kind: 'paragraph', text: 'Found the handler.' });
    const history = historyForModel([
      { prompt: 'first question', response: 'first answer' },
      { prompt: 'the long turn', response: 'very long answer', archivedMarker: marker },
      { prompt: 'third', response: '' },
    ]);
    assert.deepEqual(history, [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'assistant', content: marker },
      { role: 'user', content: 'third' },
    ]);
    assert.ok(!JSON.stringify(history).includes('very long answer'));
  });

  it('summary style: paragraph turns a structured summary into 3-5 sentences; Ollama is forced to paragraph with a warning', () => {
    const structured = { kind: 'structured' as const, value: deterministicSummary('Fix a.ts', 'Fixed it.\nDone?', ['Edit']) };
    const p = inStyle(structured, 'paragraph');
    assert.equal(p.kind, 'paragraph');
    assert.equal(renderSummary(p), 'Fixed it. Asked: Fix a.ts. Files touched: a.ts. Tools used: Edit. Open: Done?');
    assert.ok(!renderSummary(p).includes('\n- '), 'no bullets');
    assert.deepEqual(inStyle(structured, 'structured'), structured);
    assert.deepEqual(effectiveSummaryStyle('structured', 'copilot'), { style: 'structured' });
    assert.equal(effectiveSummaryStyle('structured', 'Ollama').style, 'paragraph');
    assert.match(effectiveSummaryStyle('structured', 'ollama').warning ?? '', /paragraph/);
    assert.match(summaryRequest('structured', 'q', 'a'), /^Summarise the conversation turn below as JSON/);
    assert.match(summaryRequest('paragraph', 'q', 'a'), /^Summarise the conversation turn below in one paragraph of 3-5 sentences, no bullets/);
    assert.match(summaryRequest('paragraph', 'q', 'a'), /User: q\n\nAssistant: a$/);
  });

  it('summary.model picks a model by id, family or vendor/family', () => {
    const models = [
      { id: 'copilot-gpt-4o', family: 'gpt-4o', vendor: 'copilot' },
      { id: 'claude-x', family: 'claude-sonnet', vendor: 'anthropic' },
    ];
    assert.equal(matchModel(models, 'claude-x')?.id, 'claude-x');
    assert.equal(matchModel(models, 'GPT-4o')?.id, 'copilot-gpt-4o');
    assert.equal(matchModel(models, 'anthropic/claude-sonnet')?.id, 'claude-x');
    assert.equal(matchModel(models, 'nope'), undefined);
  });

  it('holders use only the tools granted to them: none by default', () => {
    const offered = [{ name: 'read_file' }, { name: 'bash' }, { name: 'baton_search' }];
    assert.deepEqual(grantedTools(offered, ARCHIVAL_DEFAULTS.holderTools), []);
    assert.deepEqual(grantedTools(offered, ['baton_search', 'read_file']), [{ name: 'read_file' }, { name: 'baton_search' }]);
    assert.equal(holderMayUse(['read_file'], 'bash'), false);
    assert.match(deniedToolMessage('bash'), /not granted.*do not retry/);
  });

  it('validates the archival settings: onMaxTurns, summary style and model, holder tools', () => {
    const { settings: s, errors } = validateSettings({
      'subagents.enabled': true,
      'archival.enabled': true,
      'archival.onMaxTurns': false,
      'archival.summary.style': 'paragraph',
      'archival.summary.model': ' gpt-4o ',
      'archival.holderTools': ['read_file', 'read_file'],
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(s.archival, {
      ...ARCHIVAL_DEFAULTS,
      enabled: true,
      onMaxTurns: false,
      summary: { style: 'paragraph', model: 'gpt-4o' },
      holderTools: ['read_file'],
    });
    const bad = validateSettings({ 'archival.summary.style': 'bullets', 'archival.holderTools': 'bash', 'archival.summary.model': 3 });
    assert.equal(bad.errors.length, 3, bad.errors.join('\n'));
    assert.deepEqual(bad.settings.archival, ARCHIVAL_DEFAULTS);
  });

  it('archive ranges, holder keys, default summaries and the holder transcript path', () => {
    assert.equal(archiveRangeProblem(1, 3, 3), null);
    assert.equal(archiveRangeProblem(2, 2, 3), null);
    assert.match(archiveRangeProblem(0, 1, 3) ?? '', /from must be 1/);
    assert.match(archiveRangeProblem(3, 2, 3) ?? '', /must not be before/);
    assert.match(archiveRangeProblem(1, 4, 3) ?? '', /past the session's last turn \(3\)/);
    assert.match(archiveRangeProblem(1, 1, 0) ?? '', /no turns/);
    assert.equal(nextHolderKey('p', []), 'p/holder-1');
    assert.equal(nextHolderKey('p', ['p/holder-1', 'p/holder-7', 'p/holder-x', 'q/holder-9', 'p/holder-2/holder-5']), 'p/holder-8');
    const s = summaryOfTurns([
      { role: 'user', text: 'Where is main.go?' },
      { role: 'assistant', text: 'In cmd/main.go. It starts the server.' },
      { role: 'user', text: 'Thanks' },
    ]);
    assert.equal(s.outcome, 'In cmd/main.go.');
    assert.deepEqual(s.key_findings, ['Asked: Where is main.go?', 'Asked: Thanks']);
    assert.deepEqual(holderTranscriptPath('chat-1/holder-2'), ['agents', 'subagent-chat-1_holder-2', 'sessions', 'chat-1_holder-2.jsonl']);
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
