// VS Code agent mode (Copilot) in Baton: its hook transcript read into turns, its payloads told
// apart from Claude Code's, and the built hook command (dist/hook.js copilot) fed the payloads VS
// Code sends around a runSubagent call, against a real server (docs/harnesses.md, "VS Code agent mode").

import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseJsonLines } from '../../src/core/normalize';
import { isCopilotPayload, normalizeCopilotPayload, subagentCallId } from '../../src/harnesses/copilot/payload';
import { parseChatSession, replayChatSessionLog } from '../../src/harnesses/copilot/chatSessions';
import { BATON_PARTICIPANT } from '../../src/harnesses/copilot/import';
import { readSetting, writeSetting } from '../../src/harnesses/jsoncSettings';
import { copilotTurns } from '../../src/harnesses/copilot/transcript';
import { normalizeTranscript } from '../../src/harnesses/registry';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { ROOT, runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { runHook } from '../helpers/hookProcess';

const FIXTURE_SID = '7d1c2f0e-5b8a-4c61-9e3f-2a4b6c8d0e1f';
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'copilot', 'transcripts', `${FIXTURE_SID}.jsonl`);
const TASK = 'Find every caller of chargeCustomer in src/billing and list them with file and line.';

describe('VS Code agent mode (copilot harness)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  describe('hook transcript', () => {
    const records = () => parseJsonLines(fs.readFileSync(FIXTURE, 'utf8'));

    it("reads the chat session's turns, leaving out the sub-agent's own prompt and tool calls", () => {
      const turns = normalizeTranscript(fs.readFileSync(FIXTURE, 'utf8'), {});
      assert.deepEqual(
        turns.map((t) => `${t.role}: ${t.text.split('\n')[0]}`),
        [
          'user: Refactor the billing module. Never touch the ledger table (marker PARENT-SECRET-4471).',
          "assistant: I'll have a sub-agent map the callers first.",
          `tool: runSubagent({"prompt":"${TASK}","description":"Map chargeCustomer callers"})`,
          'tool: Two callers: src/billing/invoice.ts:42 and src/billing/refund.ts:17.',
          "assistant: The sub-agent found two callers; I'll update both.",
        ],
      );
      assert.equal(turns[0].at, '2026-11-26T10:00:01.120Z');
    });

    it("gives a sub-agent's own events when asked for its call id: its prompt (chained to the call by parentId), then its tool calls", () => {
      const turns = copilotTurns(records(), 'call_Qx7PmK2vRb9Tn4Ls__vscode-3');
      assert.deepEqual(
        turns.map((t) => t.role),
        ['user', 'tool', 'tool'],
      );
      assert.equal(turns[0].text, TASK);
      assert.match(turns[1].text, /^grep_search\(/);
      assert.equal(turns[2].text, 'src/billing/invoice.ts:42\nsrc/billing/refund.ts:17');
    });

    it('skips what it does not know and torn lines', () => {
      const text = fs.readFileSync(FIXTURE, 'utf8') + '{"type":"assistant.usage","data":{"tokens":3}}\n{"type":"user.mess';
      assert.equal(normalizeTranscript(text, { harness: 'copilot' }).length, 5);
    });
  });

  describe('payloads', () => {
    it('accepts camelCase fields and tells VS Code payloads from Claude Code ones', () => {
      const p = normalizeCopilotPayload({ hookEventName: 'SubagentStart', sessionId: 's1', agentId: 'call_1', agent_type: 'default' });
      assert.equal(p.hook_event_name, 'SubagentStart');
      assert.equal(p.session_id, 's1');
      assert.equal(p.agent_id, 'call_1');
      assert.equal(normalizeCopilotPayload({ session_id: 'snake', sessionId: 'camel' }).session_id, 'snake');
      assert.equal(isCopilotPayload({ hookEventName: 'Stop', sessionId: 's' }), true);
      assert.equal(
        isCopilotPayload({ hook_event_name: 'Stop', session_id: 's', transcript_path: '/x/workspaceStorage/ab12/GitHub.copilot-chat/transcripts/s.jsonl' }),
        true,
      );
      assert.equal(isCopilotPayload({ hook_event_name: 'PreToolUse', session_id: 's', tool_use_id: 'call_9__vscode-12' }), true);
      assert.equal(isCopilotPayload({ hook_event_name: 'Stop', session_id: 's', transcript_path: '/home/u/.claude/projects/p/s.jsonl' }), false);
      assert.equal(isCopilotPayload({ hook_event_name: 'SubagentStart', session_id: 's', agent_id: 'a1', agent_type: 'Explore' }), false);
      assert.equal(subagentCallId('call_9__vscode-12'), 'call_9');
    });
  });

  describe('hook command against a real server', () => {
    let dataDir: string;
    let roots: string;
    let daemon: Daemon;
    let transcript: string;

    before(async () => {
      dataDir = tempDir();
      roots = tempDir('baton-vscode-user-');
      daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [roots] } });
      transcript = path.join(roots, 'User', 'workspaceStorage', 'f00dcafe', 'GitHub.copilot-chat', 'transcripts', `${FIXTURE_SID}.jsonl`);
      fs.mkdirSync(path.dirname(transcript), { recursive: true });
    });
    after(async () => daemon.stop());

    /** The transcript as VS Code has flushed it when a hook runs: the fixture's first `lines` events. */
    const flushed = (lines: number) => fs.writeFileSync(transcript, fs.readFileSync(FIXTURE, 'utf8').split('\n').slice(0, lines).join('\n') + '\n');

    const get = async (route: string) => {
      const res = await fetch(daemon.server.url + route, { headers: { authorization: `Bearer ${daemon.token}` } });
      assert.equal(res.status, 200, route);
      return (await res.json()) as Record<string, unknown>;
    };

    it('opens each runSubagent call as a child under the exact parent, with its task, the inherited block and its result', async () => {
      const sid = FIXTURE_SID;
      const common = { session_id: sid, transcript_path: transcript, cwd: '/work/shop', timestamp: '2026-11-26T10:00:00.000Z', model: 'scripted' };
      const call = 'call_Qx7PmK2vRb9Tn4Ls';
      flushed(1);
      assert.equal((await runHook('copilot', dataDir, { ...common, hook_event_name: 'SessionStart', source: 'new' })).status, 0);
      flushed(2);
      const prompt = 'Refactor the billing module. Never touch the ledger table (marker PARENT-SECRET-4471).';
      assert.equal((await runHook('copilot', dataDir, { ...common, hook_event_name: 'UserPromptSubmit', prompt })).status, 0);
      flushed(4);
      const input = { prompt: TASK, description: 'Map chargeCustomer callers' };
      const pre = await runHook('copilot', dataDir, {
        ...common,
        hook_event_name: 'PreToolUse',
        tool_name: 'runSubagent',
        tool_input: input,
        tool_use_id: `${call}__vscode-3`,
      });
      assert.equal(pre.stdout, '');
      flushed(5);
      const start = await runHook('copilot', dataDir, { ...common, hook_event_name: 'SubagentStart', agent_id: call, agent_type: 'default' });
      assert.equal(start.status, 0);
      const out = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
      assert.equal(out.hookSpecificOutput.hookEventName, 'SubagentStart');
      assert.match(out.hookSpecificOutput.additionalContext, /^## Inherited from Parent Session\n/);
      assert.match(out.hookSpecificOutput.additionalContext, /PARENT-SECRET-4471/);

      // Inside the sub-agent: its own prompt and its tool calls, all with the parent's session id.
      flushed(6);
      const own = await runHook('copilot', dataDir, { ...common, hook_event_name: 'UserPromptSubmit', prompt: TASK });
      assert.equal(own.stdout, '');
      flushed(7);
      const grep = { query: 'chargeCustomer', includePattern: 'src/billing/**' };
      await runHook('copilot', dataDir, {
        ...common,
        hook_event_name: 'PreToolUse',
        tool_name: 'grep_search',
        tool_input: grep,
        tool_use_id: 'call_Zr1__vscode-4',
      });
      flushed(8);
      const found = 'src/billing/invoice.ts:42\nsrc/billing/refund.ts:17';
      await runHook('copilot', dataDir, {
        ...common,
        hook_event_name: 'PostToolUse',
        tool_name: 'grep_search',
        tool_input: grep,
        tool_use_id: 'call_Zr1__vscode-4',
        tool_response: found,
      });
      await runHook('copilot', dataDir, { ...common, hook_event_name: 'SubagentStop', agent_id: call, agent_type: 'default', stop_hook_active: false });
      flushed(9);
      const result = 'Two callers: src/billing/invoice.ts:42 and src/billing/refund.ts:17.';
      await runHook('copilot', dataDir, {
        ...common,
        hook_event_name: 'PostToolUse',
        tool_name: 'runSubagent',
        tool_input: input,
        tool_use_id: `${call}__vscode-3`,
        tool_response: result,
      });
      flushed(11);
      await runHook('copilot', dataDir, { ...common, hook_event_name: 'Stop', stop_hook_active: false });

      const childKey = `${sid}/agent-${call}`;
      const child = await daemon.store.read('getSession', { scope: 'all', key: childKey });
      assert.equal(child?.harness, 'copilot');
      assert.equal(child?.parentSessionKey, sid);
      assert.equal(child?.lineageSource, 'explicit');
      assert.equal(child?.harnessAgentId, call);
      assert.equal(child?.harnessAgentType, 'default');
      assert.equal(child?.title, 'Map chargeCustomer callers');
      // The runSubagent call's prompt is the child's task: its block was chosen for it.
      assert.equal(child?.task, TASK);
      assert.equal(child?.status, 'completed');
      assert.equal(
        (await daemon.store.read('transcript', { scope: 'all', key: childKey })).content,
        [`User: ${TASK}`, `Tool: grep_search(${JSON.stringify(grep)})`, `Tool: ${found}`, `Assistant: ${result}`].join('\n'),
      );

      const subagents = (await get(`/api/sessions/${encodeURIComponent(sid)}/subagents`)) as { children: Array<Record<string, unknown>> };
      assert.equal(subagents.children.length, 1);
      assert.equal(subagents.children[0].sessionKey, childKey);
      assert.equal(subagents.children[0].task, TASK);
      assert.equal(subagents.children[0].result, result);
      assert.equal(subagents.children[0].type, 'default');

      const parent = (await daemon.store.read('transcript', { scope: 'all', key: sid })).content;
      assert.match(parent, /^User: Refactor the billing module/);
      assert.match(parent, /Assistant: The sub-agent found two callers/);
      assert.ok(!parent.includes(`User: ${TASK}`), "the sub-agent's prompt is not a prompt of the parent");
      assert.ok(!parent.includes('grep_search'), "the sub-agent's tool calls are not the parent's");
      assert.deepEqual(fs.readdirSync(path.join(dataDir, 'copilot')), [], 'no note outlives its runSubagent call');
    });

    it("takes the task from the parent's transcript when PreToolUse did not run, and opens the child from camelCase payloads", async () => {
      const sid = 'b7e1d2c3-0000-4000-8000-notoolhook';
      const file = path.join(path.dirname(transcript), `${sid}.jsonl`);
      fs.writeFileSync(file, fs.readFileSync(FIXTURE, 'utf8').split('\n').slice(0, 5).join('\n') + '\n');
      const payload = {
        hookEventName: 'SubagentStart',
        sessionId: sid,
        transcriptPath: file,
        cwd: '/work/shop',
        agentId: 'call_Qx7PmK2vRb9Tn4Ls',
        agentType: 'Plan',
      };
      const start = await runHook('copilot', dataDir, payload);
      assert.match(start.stdout, /PARENT-SECRET-4471/, 'the parent was read from its transcript before the block was built');
      const key = `${sid}/agent-call_Qx7PmK2vRb9Tn4Ls`;
      const child = await daemon.store.read('getSession', { scope: 'all', key });
      assert.equal(child?.parentSessionKey, sid);
      assert.equal(child?.harnessAgentType, 'Plan');
      assert.equal(child?.title, 'Map chargeCustomer callers');
      assert.equal((await daemon.store.read('transcript', { scope: 'all', key })).content, `User: ${TASK}`);
      await runHook('copilot', dataDir, { ...payload, hookEventName: 'SubagentStop', lastAssistantMessage: 'Nothing else calls it.' });
      const stopped = await daemon.store.read('getSession', { scope: 'all', key });
      assert.equal(stopped?.status, 'completed');
      assert.equal((await daemon.store.read('transcript', { scope: 'all', key })).content, `User: ${TASK}\nAssistant: Nothing else calls it.`);
    });

    it("attributes the sub-agent's prompt to it when it arrives before SubagentStart", async () => {
      const sid = 'e4d3c2b1-0000-4000-8000-promptfirst';
      const base = { session_id: sid, cwd: '/work/shop' };
      await runHook('copilot', dataDir, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'Parent asks PROMPT-FIRST-1' });
      const input = { prompt: 'Child task PROMPT-FIRST-2', description: 'child' };
      await runHook('copilot', dataDir, {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'runSubagent',
        tool_input: input,
        tool_use_id: 'call_pf__vscode-1',
      });
      assert.equal((await runHook('copilot', dataDir, { ...base, hook_event_name: 'UserPromptSubmit', prompt: input.prompt })).stdout, '');
      await runHook('copilot', dataDir, { ...base, hook_event_name: 'SubagentStart', agent_id: 'call_pf', agent_type: 'Explore' });
      assert.equal((await daemon.store.read('transcript', { scope: 'all', key: sid })).content, 'User: Parent asks PROMPT-FIRST-1');
      const key = `${sid}/agent-call_pf`;
      assert.equal((await daemon.store.read('getSession', { scope: 'all', key }))?.harnessAgentType, 'Explore');
      assert.equal((await daemon.store.read('transcript', { scope: 'all', key })).content, 'User: Child task PROMPT-FIRST-2');
    });

    it('gives each of two parallel sub-agents its own tool calls, from the transcript chains, when the hooks cannot tell them apart', async () => {
      const sid = 'b7c6d5e4-0000-4000-8000-parallel0001';
      const file = path.join(roots, 'User', 'workspaceStorage', 'para11e1', 'GitHub.copilot-chat', 'transcripts', `${sid}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const base = { session_id: sid, cwd: '/work/shop', transcript_path: file };
      const tasks = {
        call_pA: { prompt: 'List the invoices folder PARA-TASK-A', description: 'invoices' },
        call_pB: { prompt: 'Read the refunds module PARA-TASK-B', description: 'refunds' },
      };
      // What VS Code writes: each sub-agent's events chained by parentId to its runSubagent start,
      // interleaved in one file because both run at once.
      let n = 0;
      const events: object[] = [];
      const event = (type: string, data: object, parentId: string | null) => {
        const id = `ev${++n}`;
        events.push({ type, data, id, timestamp: `2026-11-27T09:00:${String(n).padStart(2, '0')}.000Z`, parentId });
        return id;
      };
      const flush = () => fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
      const root = event('session.start', { sessionId: sid }, null);
      const asked = event('user.message', { content: 'Audit refunds and invoices PARA-PARENT' }, root);
      await runHook('copilot', dataDir, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'Audit refunds and invoices PARA-PARENT' });
      const startA = event('tool.execution_start', { toolCallId: 'call_pA', toolName: 'runSubagent', arguments: tasks.call_pA }, asked);
      const startB = event('tool.execution_start', { toolCallId: 'call_pB', toolName: 'runSubagent', arguments: tasks.call_pB }, startA);
      flush();
      for (const call of ['call_pA', 'call_pB'] as const) {
        await runHook('copilot', dataDir, {
          ...base,
          hook_event_name: 'PreToolUse',
          tool_name: 'runSubagent',
          tool_input: tasks[call],
          tool_use_id: `${call}__vscode-1`,
        });
        await runHook('copilot', dataDir, { ...base, hook_event_name: 'SubagentStart', agent_id: call, agent_type: 'default' });
      }
      const promptA = event('user.message', { content: tasks.call_pA.prompt }, startA);
      const promptB = event('user.message', { content: tasks.call_pB.prompt }, startB);
      const lsA = event('tool.execution_start', { toolCallId: 'call_lsA', toolName: 'list_dir', arguments: { path: 'invoices-PARA-TOOL-A' } }, promptA);
      const readB = event('tool.execution_start', { toolCallId: 'call_rdB', toolName: 'read_file', arguments: { path: 'refunds-PARA-TOOL-B' } }, promptB);
      const doneB = event('assistant.message', { messageId: 'mB', content: 'Refunds read PARA-DONE-B', toolRequests: [] }, readB);
      const doneA = event('assistant.message', { messageId: 'mA', content: 'Invoices listed PARA-DONE-A', toolRequests: [] }, lsA);
      flush();
      // The tool hooks name no sub-agent: with two running, neither may take them blindly.
      await runHook('copilot', dataDir, {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'read_file',
        tool_input: { path: 'refunds-PARA-TOOL-B' },
        tool_use_id: 'call_rdB__vscode-3',
      });
      await runHook('copilot', dataDir, {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'list_dir',
        tool_input: { path: 'invoices-PARA-TOOL-A' },
        tool_use_id: 'call_lsA__vscode-4',
      });
      event('tool.execution_complete', { toolCallId: 'call_pB', success: true }, doneB);
      event('tool.execution_complete', { toolCallId: 'call_pA', success: true }, doneA);
      flush();
      for (const [call, done] of [
        ['call_pB', 'Refunds read PARA-DONE-B'],
        ['call_pA', 'Invoices listed PARA-DONE-A'],
      ] as const) {
        await runHook('copilot', dataDir, { ...base, hook_event_name: 'SubagentStop', agent_id: call, agent_type: 'default', last_assistant_message: done });
        await runHook('copilot', dataDir, {
          ...base,
          hook_event_name: 'PostToolUse',
          tool_name: 'runSubagent',
          tool_input: tasks[call],
          tool_use_id: `${call}__vscode-1`,
          tool_response: done,
        });
      }
      const childText = async (call: string) => (await daemon.store.read('transcript', { scope: 'all', key: `${sid}/agent-${call}` })).content;
      const a = await childText('call_pA');
      const b = await childText('call_pB');
      assert.match(a, /PARA-TOOL-A/);
      assert.doesNotMatch(a, /PARA-TOOL-B/);
      assert.match(b, /PARA-TOOL-B/);
      assert.doesNotMatch(b, /PARA-TOOL-A/);
      assert.match(a, /PARA-DONE-A/);
      assert.match(b, /PARA-DONE-B/);
      // Each tool call once, and the task prompt once.
      assert.equal(a.split('PARA-TOOL-A').length - 1, 1, a);
      assert.equal(a.split('PARA-TASK-A').length - 1, 1, a);
      const parent = (await daemon.store.read('transcript', { scope: 'all', key: sid })).content;
      assert.doesNotMatch(parent, /PARA-TOOL-/);
    });

    it("keeps the payload's prompt and still hands over the block when neither the server nor the hook can read the transcript", async () => {
      const sid = 'f5e4d3c2-0000-4000-8000-outsideroot';
      const outside = path.join(tempDir('baton-elsewhere-'), 'ws', 'GitHub.copilot-chat', 'transcripts', `${sid}.jsonl`);
      // A folder where the file should be: a readable file outside the roots is sent by the hook itself.
      fs.mkdirSync(outside, { recursive: true });
      const base = { session_id: sid, cwd: '/work/shop', transcript_path: outside };
      await runHook('copilot', dataDir, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'Outside the roots OUTSIDE-MARK-77' });
      assert.equal((await daemon.store.read('transcript', { scope: 'all', key: sid })).content, 'User: Outside the roots OUTSIDE-MARK-77');
      const start = await runHook('copilot', dataDir, { ...base, hook_event_name: 'SubagentStart', agent_id: 'call_out', agent_type: 'default' });
      assert.match(start.stdout, /OUTSIDE-MARK-77/);
      // Each refusal is a step line in hooks.log (and counts in the hook health report).
      const log = fs.readFileSync(path.join(dataDir, 'hooks.log'), 'utf8');
      assert.match(log, /copilot UserPromptSubmit: step transcript: \/api\/hooks\/user-prompt-submit: HTTP 400/);
      assert.match(log, /copilot SubagentStart: step refresh-parent: \/api\/hooks\/user-prompt-submit: HTTP 400/);
    });

    it("routes VS Code payloads that reach Claude Code's hook command (chat.useClaudeHooks) to the copilot mapping", async () => {
      const sid = 'a3f0c9e2-1111-4d3c-9a7e-claudehooks';
      const r = await runHook('claude-code', dataDir, {
        hookEventName: 'UserPromptSubmit',
        sessionId: sid,
        cwd: '/work/shop',
        prompt: 'camelCase prompt COPILOT-VIA-CLAUDE',
      });
      assert.equal(r.status, 0);
      const session = await daemon.store.read('getSession', { scope: 'all', key: sid });
      assert.equal(session?.harness, 'copilot');
      assert.equal((await daemon.store.read('transcript', { scope: 'all', key: sid })).content, 'User: camelCase prompt COPILOT-VIA-CLAUDE');
    });
  });

  describe('install (baton install vscode)', () => {
    const USER_SETTINGS = [
      '// My VS Code settings',
      '{',
      '    "editor.fontSize": 14, // keep this',
      '    /* hooks I wrote myself */',
      '    "chat.hookFilesLocations": {',
      '        ".github/hooks": false',
      '    },',
      '    "files.autoSave": "afterDelay",',
      '}',
      '',
    ].join('\n');

    it('edits settings.json as JSONC: comments, trailing commas and the other settings survive', () => {
      assert.deepEqual(readSetting(USER_SETTINGS, 'chat.hookFilesLocations'), { '.github/hooks': false });
      assert.equal(readSetting(USER_SETTINGS, 'files.autoSave'), 'afterDelay');
      assert.equal(readSetting('', 'x'), undefined);
      const added = writeSetting(USER_SETTINGS, 'a.b', [1]);
      assert.equal(readSetting(added, 'a.b')?.toString(), '1');
      assert.match(added, /\/\/ keep this/);
      assert.equal(writeSetting(added, 'a.b', undefined), USER_SETTINGS);
      assert.equal(writeSetting('{}', 'k', true), '{\n    "k": true\n}');
      assert.equal(writeSetting('{\n  "a": 1\n}\n', 'k', 2), '{\n  "a": 1,\n  "k": 2\n}\n');
      assert.equal(writeSetting('{\n  "a": 1,\n  "k": 2\n}\n', 'k', undefined), '{\n  "a": 1\n}\n');
      assert.equal(writeSetting('{\n  "k": 2,\n  "a": 1\n}\n', 'k', undefined), '{\n  "a": 1\n}\n');
      assert.throws(() => readSetting('{"a": 1 "b": 2}', 'a'), /a is not valid JSON/);
      assert.throws(() => readSetting('{"a": 1', 'a'), /not a settings object/);
      assert.throws(() => readSetting('[1]', 'a'), /not a settings object/);
    });

    it('writes its own hook file, lists its folder in chat.hookFilesLocations, idempotently, and uninstall reverses exactly that', async () => {
      const home = tempDir('baton-home-');
      const dataDir = tempDir();
      const settings = path.join(home, 'User', 'settings.json');
      fs.mkdirSync(path.dirname(settings), { recursive: true });
      fs.writeFileSync(settings, USER_SETTINGS);
      const env = { HOME: home, BATON_DATA_DIR: '' };
      const install = runCli(['install', 'vscode', '--settings-file', settings, '--data-dir', dataDir], { env });
      assert.equal(install.status, 0, install.stderr);
      assert.match(install.stdout, /Added ~\/\.baton\/vscode-hooks to chat\.hookFilesLocations/);

      const hookFile = path.join(home, '.baton', 'vscode-hooks', 'baton.json');
      const hooks = JSON.parse(fs.readFileSync(hookFile, 'utf8')) as { hooks: Record<string, Array<{ type: string; command: string; timeout: number }>> };
      assert.deepEqual(Object.keys(hooks.hooks), [
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse',
        'PostToolUse',
        'PreCompact',
        'SubagentStart',
        'SubagentStop',
        'Stop',
      ]);
      for (const entries of Object.values(hooks.hooks)) {
        assert.equal(entries.length, 1);
        assert.equal(entries[0].type, 'command');
        assert.equal(entries[0].timeout, 5);
        assert.ok(entries[0].command.endsWith(`dist/hook.js copilot --data-dir ${dataDir}`), entries[0].command);
      }
      const installed = fs.readFileSync(settings, 'utf8');
      assert.deepEqual(readSetting(installed, 'chat.hookFilesLocations'), { '.github/hooks': false, '~/.baton/vscode-hooks': true });
      assert.match(installed, /^\/\/ My VS Code settings\n/);
      assert.match(installed, /"editor\.fontSize": 14, \/\/ keep this/);
      assert.match(installed, /\/\* hooks I wrote myself \*\//);
      assert.equal(readSetting(installed, 'files.autoSave'), 'afterDelay');

      // Again: nothing changes.
      const again = runCli(['install', 'copilot', '--settings-file', settings, '--data-dir', dataDir], { env });
      assert.equal(again.status, 0, again.stderr);
      assert.equal(fs.readFileSync(settings, 'utf8'), installed);
      assert.match(again.stdout, /already lists/);

      // The command in the hook file is what VS Code runs: fed a payload, it reaches a real server.
      const daemon = await startDaemon({ dataDir, port: 0 });
      try {
        const payload = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'from-hook-file', cwd: home, prompt: 'HOOK-FILE-PROMPT' });
        const child = await new Promise<{ status: number | null }>((resolve) => {
          const sh = spawn('/bin/sh', ['-c', hooks.hooks.UserPromptSubmit[0].command], { stdio: ['pipe', 'ignore', 'ignore'] });
          sh.on('exit', (status) => resolve({ status }));
          sh.stdin.end(payload);
        });
        assert.equal(child.status, 0);
        const session = await daemon.store.read('getSession', { scope: 'all', key: 'from-hook-file' });
        assert.equal(session?.harness, 'copilot');
      } finally {
        await daemon.stop();
      }

      const uninstall = runCli(['uninstall', 'vscode', '--settings-file', settings], { env });
      assert.equal(uninstall.status, 0, uninstall.stderr);
      assert.equal(fs.existsSync(hookFile), false);
      assert.equal(fs.existsSync(path.join(home, '.baton')), false, 'the folders Baton made are gone too');
      const after = fs.readFileSync(settings, 'utf8');
      assert.deepEqual(readSetting(after, 'chat.hookFilesLocations'), { '.github/hooks': false });
      assert.match(after, /\/\/ keep this/);
      assert.ok(fs.existsSync(`${settings}.baton-backup`));
    });

    it('adds the setting to a settings.json without it, and removes it again byte for byte', () => {
      const home = tempDir('baton-home-');
      const settings = path.join(home, 'settings.json');
      const original = '{\n    // only this\n    "workbench.colorTheme": "Default Dark Modern"\n}\n';
      fs.writeFileSync(settings, original);
      const env = { HOME: home };
      assert.equal(runCli(['install', 'vscode', '--settings-file', settings], { env }).status, 0);
      assert.deepEqual(readSetting(fs.readFileSync(settings, 'utf8'), 'chat.hookFilesLocations'), { '~/.baton/vscode-hooks': true });
      assert.equal(runCli(['uninstall', 'vscode', '--settings-file', settings], { env }).status, 0);
      assert.equal(fs.readFileSync(settings, 'utf8'), original);
      // No settings file at all: created with just our entry.
      const fresh = path.join(home, 'fresh', 'settings.json');
      assert.equal(runCli(['install', 'vscode', '--settings-file', fresh], { env }).status, 0);
      assert.deepEqual(JSON.parse(fs.readFileSync(fresh, 'utf8')), { 'chat.hookFilesLocations': { '~/.baton/vscode-hooks': true } });
    });
  });

  describe('chat session import (baton import copilot)', () => {
    const STORAGE = path.join(ROOT, 'test', 'fixtures', 'copilot', 'workspaceStorage');
    const CHAT_ID = 'c0ffee00-1234-4abc-8def-0123456789ab';
    const CHAT_FILE = path.join(STORAGE, '5f2b9c0d8e7a41b3a6c4d2e1f0a9b8c7', 'chatSessions', `${CHAT_ID}.jsonl`);
    const CHILD_TASK = 'List every caller of chargeCustomer under src/billing with file and line.';

    it('replays the mutation log: initial, set, push with and without a cut, delete', () => {
      const state = replayChatSessionLog(fs.readFileSync(CHAT_FILE, 'utf8'))!;
      const requests = state.requests as Array<Record<string, unknown>>;
      assert.equal(requests.length, 2);
      assert.equal((requests[1].message as { text: string }).text, 'Now run the tests');
      assert.equal('result' in requests[1], false);
      assert.equal(state.customTitle, 'Billing refactor');
      assert.equal(replayChatSessionLog('{"kind":1,"k":["x"],"v":1}\n'), undefined, 'no initial state: nothing');
      const torn = replayChatSessionLog('{"kind":0,"v":{"requests":[]}}\n{"kind":2,"k":["requests"],"v":[{"a":1}]}\n{"kind":2,"k":["reque');
      assert.deepEqual(torn, { requests: [{ a: 1 }] });
      assert.deepEqual(replayChatSessionLog('{"kind":0,"v":{"a":{"b":[1,2,3]}}}\n{"kind":1,"k":["nope","deeper"],"v":1}\n{"kind":2,"k":["a","b"],"i":1}\n'), {
        a: { b: [1] },
      });
    });

    it('ignores log lines whose key path goes through __proto__, constructor or prototype, or does not fit the state', () => {
      const lines = [
        { kind: 0, v: { sessionId: 'unsafe', requests: [] } },
        { kind: 1, k: ['__proto__', 'agentId'], v: 'hijacked-agent' },
        { kind: 1, k: ['constructor', 'prototype', 'polluted'], v: true },
        { kind: 2, k: ['__proto__', 'pushed'], v: [1] },
        { kind: 1, k: ['requests', 'length'], v: 1e9 },
        { kind: 1, k: ['requests', 5], v: { message: { text: 'past the end' } } },
        { kind: 1, k: ['hasOwnProperty', 'x'], v: 1 },
        { kind: 2, k: ['requests'], v: [{ message: { text: 'kept' } }] },
      ];
      const state = replayChatSessionLog(lines.map((l) => JSON.stringify(l)).join('\n'));
      const probe: Record<string, unknown> = {};
      assert.deepEqual([probe.agentId, probe.polluted, probe.pushed], [undefined, undefined, undefined], 'Object.prototype untouched');
      assert.deepEqual(state, { sessionId: 'unsafe', requests: [{ message: { text: 'kept' } }] });
      assert.equal(Object.getPrototypeOf(state), Object.prototype);
    });

    it('reads the turns and the sub-agents with their task, tool calls and result', () => {
      const chat = parseChatSession(fs.readFileSync(CHAT_FILE, 'utf8'), 'fallback')!;
      assert.equal(chat.sessionId, CHAT_ID);
      assert.equal(chat.title, 'Billing refactor');
      assert.deepEqual(
        chat.messages.map((m) => `${m.role}: ${m.content.split('\n')[0]}`),
        [
          'user: Refactor the billing module; the ledger table is off limits (IMPORT-MARK-9931).',
          "assistant: I'll have a sub-agent map the callers first.",
          `tool: runSubagent({"description":"Map chargeCustomer callers","prompt":"${CHILD_TASK}"})`,
          'tool: Two callers: src/billing/invoice.ts:42 and src/billing/refund.ts:17.',
          'tool: copilot_readFile(Reading invoice.ts)',
          'tool: Read invoice.ts, lines 30 to 60',
          'assistant: The sub-agent found two callers; both now go through the new billing client.',
          'user: Now run the tests',
          'assistant: All 48 tests pass.',
        ],
      );
      assert.equal(chat.subagents.length, 1);
      const [child] = chat.subagents;
      assert.equal(child.callId, 'call_Ab12Cd34');
      assert.equal(child.agentName, 'default');
      assert.equal(child.description, 'Map chargeCustomer callers');
      assert.deepEqual(
        child.messages.map((m) => m.role),
        ['user', 'tool', 'tool', 'assistant'],
      );
      assert.equal(child.messages[0].content, CHILD_TASK);
      assert.equal(child.messages[2].content, 'src/billing/invoice.ts:42\nsrc/billing/refund.ts:17');
    });

    it("leaves out requests answered by Baton's own participant (@baton conversations are Baton sessions already)", () => {
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { chatParticipants: Array<{ id: string }> } };
      assert.equal(BATON_PARTICIPANT, pkg.contributes.chatParticipants[0].id);
      const log = [
        { kind: 0, v: { sessionId: 'mixed', requests: [] } },
        { kind: 2, k: ['requests'], v: [{ message: { text: '/tree' }, agent: { id: BATON_PARTICIPANT }, response: [{ value: 'the tree' }] }] },
        { kind: 2, k: ['requests'], v: [{ message: { text: 'fix the bug' }, agent: { id: 'github.copilot.editsAgent' }, response: [{ value: 'fixed' }] }] },
      ];
      const chat = parseChatSession(log.map((l) => JSON.stringify(l)).join('\n'), 'mixed', [BATON_PARTICIPANT])!;
      assert.deepEqual(
        chat.messages.map((m) => m.content),
        ['fix the bug', 'fixed'],
      );
    });

    it('reads what VS Code 1.139 writes around files, edits and terminal commands as the chat shows it', () => {
      // Part shapes as VS Code 1.139.1 wrote them in the demo's recording (demo/sessions/copilot).
      const base = { $mid: 1, path: '/home/dev/acme-billing/', scheme: 'vscode-remote', authority: '127.0.0.1:4000' };
      const uri = (rel: string) => ({ $mid: 1, fsPath: `/home/dev/acme-billing/${rel}`, path: `/home/dev/acme-billing/${rel}`, scheme: 'vscode-remote' });
      const fence = { value: '\n```\n', uris: {} };
      const response = [
        { kind: 'mcpServersStarting', didStartServerIds: [] },
        { value: 'Reading first.', baseUri: base },
        {
          kind: 'toolInvocationSerialized',
          invocationMessage: { value: 'Reading [](file:///home/dev/acme-billing/src/webhooks.ts)' },
          pastTenseMessage: { value: 'Read [](file:///home/dev/acme-billing/src/webhooks.ts)' },
          toolCallId: 'call_1',
          toolId: 'copilot_readFile',
        },
        { kind: 'toolInvocationSerialized', presentation: 'hidden', invocationMessage: '', toolCallId: 'call_2', toolId: 'copilot_replaceString' },
        fence,
        { kind: 'undoStop', id: 'u1' },
        { kind: 'codeblockUri', uri: uri('.env.example'), isEdit: true },
        { kind: 'textEditGroup', uri: uri('.env.example'), edits: [[{ text: 'SECRET=x\n' }]] },
        fence,
        {
          kind: 'toolInvocationSerialized',
          invocationMessage: { value: 'Running ` node --test test/`' },
          toolSpecificData: { kind: 'terminal', commandLine: { original: 'node --test test/' }, terminalCommandState: { exitCode: 0, duration: 398 } },
          toolCallId: 'call_3',
          toolId: 'run_in_terminal',
        },
        { kind: 'inlineReference', inlineReference: { $mid: 1, path: '/home/dev/acme-billing/.env.example', scheme: 'vscode-remote' } },
        { value: ' now names the secret; a code block stays:\n```sql\nSELECT 1;\n```', baseUri: base },
      ];
      const log = [
        { kind: 0, v: { sessionId: 'files', requests: [] } },
        { kind: 2, k: ['requests'], v: [{ message: { text: 'add the secret' }, agent: { id: 'github.copilot.editsAgent' }, response }] },
      ];
      const chat = parseChatSession(log.map((l) => JSON.stringify(l)).join('\n'), 'files')!;
      assert.deepEqual(
        chat.messages.map((m) => `${m.role}: ${m.content}`),
        [
          'user: add the secret',
          'assistant: Reading first.',
          'tool: copilot_readFile(Reading src/webhooks.ts)',
          'tool: Read src/webhooks.ts',
          'tool: copilot_replaceString(.env.example)',
          'tool: Edited .env.example',
          'tool: run_in_terminal(Running ` node --test test/`)',
          'tool: exit code 0',
          'assistant: .env.example now names the secret; a code block stays:\n```sql\nSELECT 1;\n```',
        ],
      );
    });

    it('leaves a chat the hooks recorded live, and its sub-agents, as the hooks stored them', async () => {
      const dataDir = tempDir();
      const daemon = await startDaemon({ dataDir, port: 0 });
      try {
        const res = await fetch(`${daemon.server.url}/api/hooks/user-prompt-submit`, {
          method: 'POST',
          headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ harness: 'copilot', sessionKey: CHAT_ID, userPrompt: 'recorded live by the hooks' }),
        });
        assert.equal(res.status, 200);
        // Asynchronously: the server under test lives in this process.
        const imported = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'import', 'copilot', '--path', STORAGE, '--data-dir', dataDir, '--json']);
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (c: Buffer) => (stdout += c));
          child.stderr.on('data', (c: Buffer) => (stderr += c));
          child.on('exit', (status) => resolve({ status, stdout, stderr }));
        });
        assert.equal(imported.status, 0, imported.stderr);
        assert.deepEqual((JSON.parse(imported.stdout) as { via: string; turnsAdded: number; created: number }).via, 'server');
        assert.equal((await daemon.store.read('transcript', { scope: 'all', key: CHAT_ID })).content, 'User: recorded live by the hooks');
        assert.equal(await daemon.store.read('getSession', { scope: 'all', key: `${CHAT_ID}/agent-call_Ab12Cd34` }), null);
      } finally {
        await daemon.stop();
      }
    });

    /** A workspaceStorage/<hash> folder holding the given chat session files (name -> log lines). */
    const storageWith = (files: Record<string, unknown[]>): { storage: string; chats: string } => {
      const storage = tempDir('baton-copilot-storage-');
      const chats = path.join(storage, 'f00d', 'chatSessions');
      fs.mkdirSync(chats, { recursive: true });
      for (const [name, lines] of Object.entries(files)) fs.writeFileSync(path.join(chats, name), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      return { storage, chats };
    };
    const request = (text: string) => ({ message: { text }, timestamp: 1_700_000_000_000, response: [{ value: `answer to ${text}` }] });
    const hostile = {
      'a-poison.jsonl': [
        { kind: 0, v: { sessionId: 'poison', requests: [] } },
        { kind: 1, k: ['__proto__', 'agentId'], v: 'hijacked-agent' },
        { kind: 1, k: ['constructor', 'prototype', 'polluted'], v: true },
        { kind: 2, k: ['__proto__', 'pushed'], v: ['x'] },
        { kind: 2, k: ['requests'], v: [request('first chat')] },
      ],
      'b-after.jsonl': [{ kind: 0, v: { sessionId: 'after', requests: [request('second chat')] } }],
    };

    it('leaves Object.prototype untouched for a log with __proto__/constructor key paths, and writes every chat for the default agent', () => {
      const { storage } = storageWith(hostile);
      // The built CLI: every session it writes belongs to the agent an import writes for.
      const dataDir = tempDir();
      const imported = runCli(['import', 'copilot', '--path', storage, '--data-dir', dataDir, '--json'], { timeout: 60_000 });
      assert.equal(imported.status, 0, imported.stderr);
      const { sessions } = JSON.parse(runCli(['sessions', '--json', '--data-dir', dataDir]).stdout) as { sessions: Array<{ key: string; agentId: string }> };
      assert.deepEqual(sessions.map((s) => `${s.key}:${s.agentId}`).sort(), ['after:default', 'poison:default']);

      // The same module in a child of its own (as the extension's watcher runs it): nothing planted on Object.prototype.
      const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'fixtures', 'copilotImportChild.ts'), storage, tempDir()], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(child.status, 0, child.stderr);
      const report = JSON.parse(child.stdout) as { added: string[]; inherited: string[]; result: { sessions: number; created: number } };
      assert.deepEqual(report.added, [], 'no property added to Object.prototype');
      assert.deepEqual(report.inherited, []);
      assert.deepEqual([report.result.sessions, report.result.created], [2, 2]);
    });

    it('skips a FIFO among the chat session files (and as workspace.json) with a warning naming it, and finishes', function () {
      if (process.platform === 'win32') this.skip();
      const { storage, chats } = storageWith(hostile);
      const fifo = path.join(chats, 'c-fifo.jsonl');
      spawnSync('mkfifo', [fifo, path.join(storage, 'f00d', 'workspace.json')]);
      assert.ok(fs.statSync(fifo).isFIFO());
      const dataDir = tempDir();
      // A blocking read of the FIFO would hang until the timeout kills the import (status null).
      const imported = runCli(['import', 'copilot', '--path', storage, '--data-dir', dataDir, '--json'], { timeout: 30_000 });
      assert.equal(imported.status, 0, `the import finishes within its 30 s: ${imported.stderr}`);
      assert.match(imported.stderr, /warning: .*c-fifo\.jsonl: skipped \(not a regular file but a FIFO\)/);
      const result = JSON.parse(imported.stdout) as { files: number; sessions: number; skipped: number };
      assert.deepEqual([result.files, result.sessions, result.skipped], [3, 2, 1]);
    });

    it('imports chat sessions with their sub-agents as children, marked as imported, idempotently', () => {
      const dataDir = tempDir();
      const first = runCli(['import', 'copilot', '--path', STORAGE, '--data-dir', dataDir, '--json']);
      assert.equal(first.status, 0, first.stderr);
      const summary = JSON.parse(first.stdout) as { sessions: number; subagents: number; created: number; turnsAdded: number; files: number };
      assert.deepEqual([summary.files, summary.sessions, summary.subagents, summary.created], [1, 2, 1, 2]);
      assert.equal(summary.turnsAdded, 13);

      const tree = runCli(['sessions', '--tree', '--data-dir', dataDir]);
      assert.equal(tree.status, 0, tree.stderr);
      assert.match(tree.stdout, new RegExp(`^${CHAT_ID}  copilot  ended .*\n└─ ${CHAT_ID}/agent-call_Ab12Cd34  copilot default  completed  4 turns`));
      const { sessions } = JSON.parse(runCli(['sessions', '--json', '--data-dir', dataDir]).stdout) as { sessions: Array<Record<string, unknown>> };
      const parent = sessions.find((s) => s.key === CHAT_ID)!;
      const child = sessions.find((s) => s.key === `${CHAT_ID}/agent-call_Ab12Cd34`)!;
      assert.equal(parent.harness, 'copilot');
      assert.equal(parent.project, '/work/shop');
      assert.equal(parent.title, 'Billing refactor');
      assert.equal(parent.endReason, 'import');
      assert.equal(child.parentSessionKey, CHAT_ID);
      assert.equal(child.harnessAgentType, 'default');
      assert.equal(child.endReason, 'import');
      const transcript = runCli(['transcript', `${CHAT_ID}/agent-call_Ab12Cd34`, '--data-dir', dataDir]);
      assert.match(transcript.stdout, new RegExp(`^User: ${CHILD_TASK}\nTool: grep_search`));
      assert.match(runCli(['search', 'IMPORT-MARK-9931', '--data-dir', dataDir]).stdout, new RegExp(CHAT_ID));

      const again = runCli(['import', 'copilot', '--path', STORAGE, '--data-dir', dataDir, '--json']);
      const second = JSON.parse(again.stdout) as { sessions: number; created: number; turnsAdded: number };
      assert.deepEqual([second.sessions, second.created, second.turnsAdded], [2, 0, 0]);
    });
  });
});
