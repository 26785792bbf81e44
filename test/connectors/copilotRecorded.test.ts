// The copilot harness against what VS Code 1.139.1 really wrote in one agent-mode run with a
// sub-agent (recorded by test/vscode/chatView/copilotAgentMode.test.ts with
// BATON_COPILOT_FIXTURES): the hook transcript, the chat session log and every hook payload.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseJsonLines } from '../../src/core/normalize';
import { parseChatSession } from '../../src/harnesses/copilot/chatSessions';
import { isCopilotPayload, normalizeCopilotPayload, subagentCallId, subagentTask } from '../../src/harnesses/copilot/payload';
import { copilotTurns, runSubagentArguments } from '../../src/harnesses/copilot/transcript';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { ROOT } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { runHook as runHookProcess } from '../helpers/hookProcess';

const DIR = path.join(ROOT, 'test', 'fixtures', 'copilot', 'recorded');
const read = (name: string) => fs.readFileSync(path.join(DIR, name), 'utf8');
const SESSION = '83ebc145-e442-4308-8920-85c2026f4993';
const CALL = 'call_255f16';
const PARENT_PROMPT = 'Audit the kumquat255f16 invoice exporter. The secret marker is orchid255f16secret. Delegate the file listing to a sub-agent.';
const TASK = 'List the files of the workspace (subtask255f16) and say which one is the README.';
const CHILD_REPLY = 'The workspace holds README.md only (subtask255f16 done).';
const PARENT_REPLY = 'The sub-agent reported back: README.md is the only file.';
/** The sub-agent's own tool call: agent mode's list_dir, on the run's workspace. */
const CHILD_TOOL = `list_dir(${JSON.stringify({ path: '/tmp/baton-chatview-wT5zwV/workspace' })})`;

describe('copilot harness on a recorded VS Code 1.139.1 run', () => {
  describe('hook transcript', () => {
    const records = () => parseJsonLines(read('transcript.jsonl'));

    it("gives the parent its own turns only: the sub-agent's prompt, tool call and reply (chained by parentId, no owner field) are left out", () => {
      const turns = copilotTurns(records());
      assert.deepEqual(
        turns.map((t) => `${t.role}: ${t.text}`),
        [
          `user: ${PARENT_PROMPT}`,
          'assistant: Delegating the listing.',
          `tool: runSubagent(${JSON.stringify({ prompt: TASK, description: 'List the workspace files' })})`,
          `assistant: ${PARENT_REPLY}`,
        ],
      );
    });

    it("gives the sub-agent its prompt, its tool call and its reply, by the call id with or without VS Code's suffix", () => {
      for (const owner of [CALL, `${CALL}__vscode-7`]) {
        const turns = copilotTurns(records(), owner);
        assert.deepEqual(
          turns.map((t) => `${t.role}: ${t.text}`),
          [`user: ${TASK}`, `tool: ${CHILD_TOOL}`, `assistant: ${CHILD_REPLY}`],
        );
      }
      assert.deepEqual(runSubagentArguments(records(), CALL), { prompt: TASK, description: 'List the workspace files' });
    });
  });

  describe('hook payloads', () => {
    const payloads = () =>
      read('hook-payloads.jsonl')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    it('are all recognised as VS Code agent mode and carry the parent session id, the sub-agent ones too', () => {
      const all = payloads();
      assert.deepEqual(
        all.map((p) => p.hook_event_name),
        [
          'SessionStart',
          'UserPromptSubmit',
          'PreToolUse',
          'SubagentStart',
          'UserPromptSubmit',
          'PreToolUse',
          'PostToolUse',
          'SubagentStop',
          'PostToolUse',
          'Stop',
        ],
      );
      for (const p of all) {
        assert.equal(isCopilotPayload(p), true, String(p.hook_event_name));
        assert.equal(normalizeCopilotPayload(p).session_id, SESSION);
      }
    });

    it('name the runSubagent call: suffixed in the tool events, bare in the Subagent ones; the task and the result are in the tool events', () => {
      const all = payloads().map(normalizeCopilotPayload);
      const pre = all.find((p) => p.hook_event_name === 'PreToolUse' && p.tool_name === 'runSubagent')!;
      assert.equal(pre.tool_name, 'runSubagent');
      assert.match(String(pre.tool_use_id), /^call_255f16__vscode-\d+$/);
      assert.equal(subagentCallId(String(pre.tool_use_id)), CALL);
      const task = subagentTask(pre.tool_input);
      assert.deepEqual([task.prompt, task.description], [TASK, 'List the workspace files']);
      const start = all.find((p) => p.hook_event_name === 'SubagentStart')!;
      assert.equal(start.agent_id, CALL);
      assert.equal(start.agent_type, 'default');
      const post = all.find((p) => p.hook_event_name === 'PostToolUse' && p.tool_name === 'runSubagent')!;
      assert.ok(JSON.stringify(post.tool_response).includes(CHILD_REPLY), JSON.stringify(post.tool_response));
      // Stop carries no last reply in 1.139.1: the parent's last words come from the transcript.
      assert.equal(all.find((p) => p.hook_event_name === 'Stop')!.last_assistant_message, undefined);
    });
  });

  describe('chat session log', () => {
    it('replays to the parent turns and one sub-agent with its task and result', () => {
      const chat = parseChatSession(read('chatSession.jsonl'), 'fallback')!;
      assert.equal(chat.sessionId, SESSION);
      assert.ok(chat.messages[0].content.includes(PARENT_PROMPT));
      assert.equal(chat.subagents.length, 1);
      const [sub] = chat.subagents;
      assert.equal(sub.callId, CALL);
      assert.equal(sub.prompt, TASK);
      assert.equal(sub.description, 'List the workspace files');
      assert.equal(sub.result, CHILD_REPLY);
    });
  });

  describe('hook command against a real server, with the transcript outside its folders', () => {
    let daemon: Daemon;
    let dataDir: string;
    after(async () => {
      await daemon?.stop();
      cleanupTempDirs();
    });

    const runHook = (payload: unknown) => runHookProcess('copilot', dataDir, payload);

    it("keeps the parent's last reply from Stop, which carries none, by reading it from the transcript", async function () {
      this.timeout(60_000);
      dataDir = tempDir();
      daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-vscode-user-')] } });
      const transcript = path.join(tempDir('baton-elsewhere-'), 'ws', 'GitHub.copilot-chat', 'transcripts', `${SESSION}.jsonl`);
      fs.mkdirSync(path.dirname(transcript), { recursive: true });
      fs.writeFileSync(transcript, read('transcript.jsonl'));
      const all = read('hook-payloads.jsonl')
        .split('\n')
        .filter((l) => l.trim())
        .map((l): Record<string, unknown> => ({ ...(JSON.parse(l) as Record<string, unknown>), transcript_path: transcript }));
      for (const p of all) assert.equal((await runHook(p)).status, 0, String(p.hook_event_name));
      const parent = (await daemon.store.read('transcript', { scope: 'all', key: SESSION })).content;
      assert.ok(parent.includes(PARENT_PROMPT), parent);
      assert.ok(parent.trimEnd().endsWith(PARENT_REPLY), `the parent ends with its reply: ${parent}`);
      assert.ok(!parent.includes('list_dir'), `the sub-agent's tool call is not the parent's: ${parent}`);
      // The sub-agent's tool hooks carry only the parent's session id: they go to the running child.
      const child = (await daemon.store.read('transcript', { scope: 'all', key: `${SESSION}/agent-${CALL}` })).content;
      assert.ok(child.includes(TASK), child);
      assert.ok(child.includes('list_dir'), `the child holds its tool call: ${child}`);
      assert.ok(child.includes(CHILD_REPLY), child);
    });
  });
});
