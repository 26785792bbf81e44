// The scripted models that play the assistant in the demo recordings (scripts/demo/demoScript.ts, and
// scripts/demo/demoScriptCopilotCli.ts for Copilot CLI): they answer from the request alone, so the
// parent and parallel sub-agents need no shared state.

import { strict as assert } from 'node:assert';
import { DEMO_SESSIONS, respondFor } from '../../scripts/demo/demoScript';
import { COPILOT_CLI_DEMO_SESSIONS, respondForCopilotCli } from '../../scripts/demo/demoScriptCopilotCli';
import type { ScriptedChatReply } from '../shared/fakeChatCompletions';

const first = DEMO_SESSIONS[0].prompts[0];
const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });
const toolResult = (id: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });
const system = 'Primary working directory: /work/acme';

describe('demo recording: the scripted model', () => {
  it("answers a session's prompt with the first step of its script, tools pointed at the project folder", () => {
    const reply = respondFor({ system, messages: [user(`<system-reminder>x</system-reminder>\n${first}`)] }, {})!;
    assert.equal(reply.stopReason, 'tool_use');
    const tools = reply.blocks.filter((b) => b.type === 'tool_use');
    assert.ok(tools.length > 0);
    assert.equal((tools[0] as { input: { file_path: string } }).input.file_path, '/work/acme/src/charge.ts');
  });

  it('counts the assistant turns after the newest prompt to find the step', () => {
    const second = respondFor({ system, messages: [user(first), assistant('a'), toolResult('t1')] }, {})!;
    const agents = second.blocks.filter((b) => b.type === 'tool_use' && b.name === 'Agent');
    assert.equal(agents.length, 2, 'two sub-agents in parallel');
    // A sub-agent's request starts with its task: it gets that task's script, not the parent's.
    const task = (agents[0] as { input: { prompt: string } }).input.prompt;
    const sub = respondFor({ system, messages: [user(task)] }, {})!;
    assert.notDeepEqual(sub.blocks, second.blocks);
    assert.ok(sub.blocks.length > 0);
  });

  it('ends a script with a plain answer, and answers a compaction with the session summary', () => {
    const steps = 10;
    const messages: Array<{ role: string; content: unknown }> = [user(first)];
    for (let i = 0; i < steps; i++) messages.push(assistant('a'), toolResult(`t${i}`));
    assert.equal(respondFor({ system, messages }, {})!.stopReason, 'end_turn');
    const compact = respondFor(
      { system, messages: [user(first), assistant('done'), user('Your task is to create a detailed summary of the conversation so far')] },
      {},
    )!;
    assert.match((compact.blocks[0] as { text: string }).text, /^Summary of the session so far/);
  });

  it('leaves requests outside the story to the fake server', () => {
    assert.equal(respondFor({ messages: [user('something else')] }, {}), undefined);
  });
});

describe('demo recording: the GitHub Copilot CLI scripted model', () => {
  const [first, second] = COPILOT_CLI_DEMO_SESSIONS[0].prompts;
  const system = { role: 'system', content: 'You are the GitHub Copilot CLI.\n* Current working directory: /home/dev/acme-billing\n' };
  const tools = [{ type: 'function', function: { name: 'task' } }];
  const user = (text: string) => ({ role: 'user', content: `<current_datetime>2026-11-28T12:00:00Z</current_datetime>\n\n${text}` });
  const assistant = { role: 'assistant', content: 'a' };
  const tool = { role: 'tool', content: 'ok' };
  const reply = (messages: unknown[]) => respondForCopilotCli({ tools, messages: [system, ...messages] }, {})!;
  const args = (r: ScriptedChatReply) => (r.toolCalls ?? []).map((c) => c.arguments as Record<string, string>);

  it("answers a session's prompt with its first step, tools pointed at the folder Copilot CLI names", () => {
    const r = reply([user(first)]);
    assert.ok(r.toolCalls?.length);
    assert.equal(args(r)[0].path, '/home/dev/acme-billing/src/webhooks.ts');
  });

  it('starts two task sub-agents in one step; the one with a task of its own starts a nested explore agent', () => {
    const parallel = reply([user(first), assistant, tool, assistant, tool]);
    const tasks = (parallel.toolCalls ?? []).filter((c) => c.name === 'task');
    assert.equal(tasks.length, 2, 'two sub-agents in parallel');
    // A sub-agent's request holds its task as its user message: it gets that task's script.
    const nestedCalls = tasks.flatMap((t) => {
      const prompt = (t.arguments as { prompt: string }).prompt;
      const subReply = reply([user(prompt), assistant, tool]);
      return (subReply.toolCalls ?? []).filter((c) => c.name === 'task');
    });
    assert.equal(nestedCalls.length, 1, 'one nested sub-agent');
    assert.equal((nestedCalls[0].arguments as { agent_type: string }).agent_type, 'explore');
  });

  it("follows a resumed session's newest prompt, ends each script with a plain answer, and leaves other requests alone", () => {
    const resumed = reply([user(first), assistant, tool, assistant, user(second)]);
    assert.equal((resumed.toolCalls ?? [])[0]?.name, 'bash');
    const messages: unknown[] = [user(second)];
    for (let i = 0; i < 10; i++) messages.push(assistant, tool);
    const last = reply(messages);
    assert.ok(last.text && !last.toolCalls?.length, 'a plain answer after the script');
    assert.equal(respondForCopilotCli({ tools, messages: [system, user('something else')] }, {}), undefined);
  });
});
