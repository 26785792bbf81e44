// GitHub Copilot CLI's session log read into turns and sub-agents (src/harnesses/copilotCli/events.ts),
// told apart from VS Code agent mode's log of the same event shape, and the task a sub-agent's first
// prompt carries behind the block Baton handed it (core/handedContext.ts taskBehindContext). Pure: a log the real Copilot
// CLI 1.0.102 wrote (test/fixtures/copilotCli/session-state), VS Code's recorded transcript
// (test/fixtures/copilot/recorded) and small logs built here for what the recording lacks (a
// background sub-agent and its completion notice).

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INHERIT_HEADING } from '../../src/core/inherit';
import { parseJsonLines, type Obj } from '../../src/core/normalize';
import { cliTurns, COPILOT_CLI_JSONL, copilotCliTranscript, isSystemNotification, loggedSubagents } from '../../src/harnesses/copilotCli/events';
import { taskBehindContext as taskOf, TASK_HEADING } from '../../src/core/handedContext';
import { MEMORIES_HEADING } from '../../src/core/startMemories';
import { COPILOT_JSONL } from '../../src/harnesses/copilot/transcript';
import { normalizeTranscript, transcriptFormat } from '../../src/harnesses/registry';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const SESSION = 'b3695a2b-6c2e-4447-825a-c18dfbbd8099';
const ALPHA = '70acc7aa-5de9-403c-af7c-16d07cc478ac';
const BETA = '4e7b3cc7-a266-4603-ad03-2fc49774121f';
const GRAND = '543936b3-e117-40a5-aa83-8bee8c1de357';
const CLI_LOG = path.join(FIXTURES, 'copilotCli', 'session-state', SESSION, 'events.jsonl');
const VSCODE_LOG = path.join(FIXTURES, 'copilot', 'recorded', 'transcript.jsonl');

const cliText = () => fs.readFileSync(CLI_LOG, 'utf8');
const cliRecords = () => parseJsonLines(cliText());
const brief = (turns: Array<{ role: string; text: string }>) => turns.map((t) => [t.role, t.text]);

/** One event as Copilot CLI writes it: `{type, data, id, timestamp, parentId}`, with `agentId` inside a sub-agent. */
function event(n: number, type: string, data: Obj, agentId?: string): Obj {
  return {
    type,
    data,
    id: `ev-${n}`,
    timestamp: `2026-11-28T12:00:${String(n).padStart(2, '0')}.000Z`,
    parentId: n > 1 ? `ev-${n - 1}` : null,
    ...(agentId ? { agentId } : {}),
  };
}

/**
 * A session that starts one sub-agent in the background: the task call answers at once, the
 * sub-agent replies twice, then Copilot CLI tells the session with a `<system_notification>` prompt.
 */
function backgroundLog(opts: { completed: boolean }): Obj[] {
  const bg = 'bg000000-0000-4000-8000-000000000001';
  const args = { agent_type: 'explore', name: 'scout', description: 'scout the repo', prompt: 'SCOUT the repo', mode: 'background' };
  const notice = '<system_notification>\nAgent scout (explore) completed. Use read_agent to read its result.\n</system_notification>';
  return [
    event(1, 'session.start', { sessionId: 'bg-session', producer: 'copilot-agent', copilotVersion: '1.0.102', context: { cwd: '/repo' } }),
    event(2, 'user.message', {
      content: 'Scout the repo in the background',
      transformedContent: '<current_datetime>x</current_datetime>\n\nScout the repo in the background',
    }),
    event(3, 'assistant.message', { messageId: 'm1', content: 'Starting a scout.', toolRequests: [] }),
    event(4, 'tool.execution_start', { toolCallId: 'call_bg', toolName: 'task', arguments: args }),
    event(
      5,
      'subagent.started',
      {
        toolCallId: 'call_bg',
        agentName: 'explore',
        agentDisplayName: 'scout',
        agentDescription: 'scout the repo',
        agentType: 'explore',
        executionMode: 'background',
      },
      bg,
    ),
    event(6, 'tool.execution_complete', { toolCallId: 'call_bg', success: true, result: { content: 'Agent started in background with agent_id: scout.' } }),
    event(7, 'user.message', { content: 'SCOUT the repo' }, bg),
    event(8, 'assistant.message', { messageId: 'm2', content: 'Looking around first.' }, bg),
    event(9, 'tool.execution_start', { toolCallId: 'call_ls', toolName: 'bash', arguments: { command: 'ls' } }, bg),
    event(10, 'tool.execution_complete', { toolCallId: 'call_ls', success: false, error: { message: 'permission denied' } }, bg),
    event(11, 'assistant.message', { messageId: 'm3', content: 'SCOUT-FINAL: three folders.' }, bg),
    ...(opts.completed ? [event(12, 'subagent.completed', { toolCallId: 'call_bg', agentName: 'explore' }, bg)] : []),
    event(13, 'user.message', { content: notice }),
    event(14, 'assistant.message', { messageId: 'm4', content: 'The scout is done.' }),
  ];
}
const BG = 'bg000000-0000-4000-8000-000000000001';

describe('GitHub Copilot CLI session log (events.ts)', () => {
  describe('cliTurns', () => {
    it("gives the session's own turns: the user's content (not transformedContent), its task calls and their results, its reply; none of its sub-agents'", () => {
      assert.deepEqual(brief(cliTurns(cliRecords())), [
        ['user', 'Remember codename PARENTMARK. Delegate.'],
        ['tool', 'task({"agent_type":"general-purpose","name":"alpha","description":"alpha work","prompt":"ALPHA task NESTME","mode":"sync"})'],
        ['tool', 'task({"agent_type":"explore","name":"beta","description":"beta work","prompt":"BETA task","mode":"sync"})'],
        ['tool', 'SUB-REPLY done HASCTX'],
        ['tool', 'SUB-DONE'],
        ['assistant', 'PARENT-FINAL'],
      ]);
      assert.equal(cliTurns(cliRecords())[0].at, '2026-11-28T11:57:12.940Z');
    });

    it("gives a sub-agent's turns by its agentId: its task, its own task call and result, its reply", () => {
      const records = cliRecords();
      assert.deepEqual(brief(cliTurns(records, ALPHA)), [
        ['user', 'ALPHA task NESTME'],
        ['tool', 'task({"agent_type":"general-purpose","name":"grand","description":"grandchild","prompt":"GRANDCHILD task do it","mode":"sync"})'],
        ['tool', 'SUB-REPLY done HASCTX'],
        ['assistant', 'SUB-DONE'],
      ]);
      assert.deepEqual(brief(cliTurns(records, BETA)), [
        ['user', 'BETA task'],
        ['assistant', 'SUB-REPLY done HASCTX'],
      ]);
      assert.deepEqual(brief(cliTurns(records, GRAND)), [
        ['user', 'GRANDCHILD task do it'],
        ['assistant', 'SUB-REPLY done HASCTX'],
      ]);
      assert.deepEqual(cliTurns(records, 'no-such-agent'), []);
    });

    it('keeps a <system_notification> prompt as a system turn, a failed tool as its error, and each conversation apart', () => {
      const records = backgroundLog({ completed: true });
      const session = brief(cliTurns(records));
      assert.deepEqual(session, [
        ['user', 'Scout the repo in the background'],
        ['assistant', 'Starting a scout.'],
        ['tool', 'task({"agent_type":"explore","name":"scout","description":"scout the repo","prompt":"SCOUT the repo","mode":"background"})'],
        ['tool', 'Agent started in background with agent_id: scout.'],
        ['system', '<system_notification>\nAgent scout (explore) completed. Use read_agent to read its result.\n</system_notification>'],
        ['assistant', 'The scout is done.'],
      ]);
      assert.deepEqual(brief(cliTurns(records, BG)), [
        ['user', 'SCOUT the repo'],
        ['assistant', 'Looking around first.'],
        ['tool', 'bash({"command":"ls"})'],
        ['tool', 'error: permission denied'],
        ['assistant', 'SCOUT-FINAL: three folders.'],
      ]);
      assert.equal(isSystemNotification('  <system_notification>done</system_notification>'), true);
      assert.equal(isSystemNotification('please read <system_notification> tags'), false);
      assert.equal(isSystemNotification(undefined), false);
    });
  });

  describe('loggedSubagents', () => {
    it('gives each sub-agent with its task, description, type, mode and result; the nested one names its spawner', () => {
      const subs = loggedSubagents(cliRecords());
      assert.deepEqual(
        subs.map((s) => [s.agentId, s.parentAgentId, s.toolCallId, s.agentType, s.name, s.description, s.prompt, s.mode, s.completed, s.result]),
        [
          [ALPHA, undefined, 'call_a', 'general-purpose', 'alpha', 'alpha work', 'ALPHA task NESTME', 'sync', true, 'SUB-DONE'],
          [BETA, undefined, 'call_b', 'explore', 'beta', 'beta work', 'BETA task', 'sync', true, 'SUB-REPLY done HASCTX'],
          [GRAND, ALPHA, 'call_n1', 'general-purpose', 'grand', 'grandchild', 'GRANDCHILD task do it', 'sync', true, 'SUB-REPLY done HASCTX'],
        ],
      );
    });

    it("a background sub-agent's result is its own last reply, not the task call's immediate answer; none before it completed", () => {
      const [done] = loggedSubagents(backgroundLog({ completed: true }));
      assert.equal(done.agentId, BG);
      assert.equal(done.mode, 'background');
      assert.equal(done.prompt, 'SCOUT the repo');
      assert.equal(done.completed, true);
      assert.equal(done.result, 'SCOUT-FINAL: three folders.');
      const [running] = loggedSubagents(backgroundLog({ completed: false }));
      assert.equal(running.completed, false);
      assert.equal(running.result, undefined, 'the "Agent started" answer is no result');
    });

    it("before the task call's result, a sync sub-agent has no result", () => {
      const records = cliRecords();
      const started = records.findIndex((r) => r.type === 'subagent.started');
      const [alpha] = loggedSubagents(records.slice(0, started + 1));
      assert.equal(alpha.agentId, ALPHA);
      assert.equal(alpha.completed, false);
      assert.equal(alpha.result, undefined);
    });
  });

  describe("telling Copilot CLI's log from VS Code agent mode's", () => {
    it("recognizes Copilot CLI's session.start, but not VS Code agent mode's (which has vscodeVersion)", () => {
      const cliStart = cliRecords()[0];
      const vscodeStart = parseJsonLines(fs.readFileSync(VSCODE_LOG, 'utf8'))[0];
      assert.equal(cliStart.type, 'session.start');
      assert.equal(vscodeStart.type, 'session.start');
      assert.equal(typeof (vscodeStart.data as Obj).vscodeVersion, 'string', "the fixture is VS Code's");
      assert.equal(copilotCliTranscript.recognizes(cliStart), true);
      assert.equal(copilotCliTranscript.recognizes(vscodeStart), false);
      // Even with a context, VS Code's session.start is not Copilot CLI's.
      assert.equal(copilotCliTranscript.recognizes({ ...vscodeStart, data: { ...(vscodeStart.data as Obj), context: { cwd: '/w' } } }), false);
      // Records only Copilot CLI writes are decisive; the shared ones are not.
      const hookStart = cliRecords().find((r) => r.type === 'hook.start')!;
      const userMessage = cliRecords().find((r) => r.type === 'user.message')!;
      assert.equal(copilotCliTranscript.recognizes(hookStart), true);
      assert.equal(copilotCliTranscript.recognizes(userMessage), false);
    });

    it("normalizeTranscript reads the CLI log in the copilot-cli format (the session's own turns) and VS Code's transcript still in VS Code's", () => {
      assert.equal(transcriptFormat(cliText()), COPILOT_CLI_JSONL);
      assert.deepEqual(brief(normalizeTranscript(cliText())), brief(cliTurns(cliRecords())));
      const vscode = fs.readFileSync(VSCODE_LOG, 'utf8');
      assert.equal(transcriptFormat(vscode), COPILOT_JSONL);
      const turns = normalizeTranscript(vscode);
      assert.equal(turns[0].role, 'user');
      assert.match(turns[0].text, /^Audit the kumquat255f16 invoice exporter\./);
      assert.ok(
        turns.some((t) => t.role === 'tool' && t.text.startsWith('runSubagent(')),
        'read as VS Code agent mode reads it',
      );
    });
  });
});

describe("taskBehindContext: a sub-agent's task behind the block Baton handed it (core/handedContext.ts)", () => {
  const block = `${INHERIT_HEADING}\n\nThe parent said: remember PARENTMARK.\n\n### Recent turns\n- user: Delegate.`;

  it('takes what follows the "## Task" heading ending the block', () => {
    assert.equal(TASK_HEADING, '## Task');
    assert.equal(taskOf(`${block}\n\n${TASK_HEADING}\n\nALPHA task NESTME`), 'ALPHA task NESTME');
    assert.equal(taskOf(`${block}\n${TASK_HEADING}\nline one\n## Task\nline two  `), 'line one\n## Task\nline two');
  });

  it('takes the task behind a block of memories alone (a sub-agent with nothing to inherit is still told the memories)', () => {
    const memories = `${MEMORIES_HEADING}\n- [decision] we decided to ship on Tuesdays (2026-11-28)`;
    assert.equal(taskOf(`${memories}\n\n${TASK_HEADING}\nGAMMA task`), 'GAMMA task');
    assert.equal(taskOf(`${block}\n\n${memories}\n\n${TASK_HEADING}\nDELTA task`), 'DELTA task');
  });

  it('is the whole prompt when no block was handed (a prompt of its own, or one that only mentions the heading later)', () => {
    assert.equal(taskOf('BETA task'), 'BETA task');
    assert.equal(taskOf(`Read the notes.\n${INHERIT_HEADING}\n## Task\nx`), `Read the notes.\n${INHERIT_HEADING}\n## Task\nx`);
  });

  it('is undefined for a block without the heading, or with nothing behind it (never the block itself)', () => {
    assert.equal(taskOf(block), undefined);
    assert.equal(taskOf(`${block}\n\n${TASK_HEADING}\n   `), undefined);
    assert.equal(taskOf(`  ${block}\n\nTask: ALPHA`), undefined);
  });
});
