// The scripted model that plays the assistant in the demo recording (scripts/demo/demoScript.ts): it
// answers from the request alone, so the parent and parallel sub-agents need no shared state.

import { strict as assert } from 'node:assert';
import { DEMO_SESSIONS, respondFor } from '../../scripts/demo/demoScript';

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
