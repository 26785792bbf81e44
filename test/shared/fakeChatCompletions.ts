// A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 for driving the real OpenCode
// CLI end to end, offline. OpenCode (provider `@ai-sdk/openai-compatible`) calls
// `POST /v1/chat/completions` with `stream: true` and reads server-sent `chat.completion.chunk`s
// closed by `data: [DONE]`.
//
// The script (classify()):
// - 'parent-first': the parent's prompt (holding the secret marker) and no tool result yet -> a call
//   of the `task` tool whose prompt is the agent prompt (a child session runs it);
// - 'subagent': a conversation with the agent prompt as a user message -> the sub-agent's final text;
// - 'parent-followup': the parent's request carrying the task tool's result -> the final text;
// - 'other' (title generation and the like) -> a short text.
// A script may instead answer any request itself (`respond`, as the demo recording does); what it
// does not answer falls back to the roles above. Every request is recorded (parsed body, headers)
// in arrival order.

import type * as http from 'node:http';
import { listenOnLoopback, recordingServer, type RecordedJsonRequest } from './loopbackServer';

export type ChatRole = 'parent-first' | 'parent-followup' | 'subagent' | 'other';

export interface ChatRequest extends RecordedJsonRequest {
  role?: ChatRole;
}

export interface FakeChatScript {
  parentPromptIncludes: string;
  agentPrompt: string;
  agentDescription: string;
  subagentType: string;
  subagentReply: string;
  parentFinal: string;
  /** Answers a request itself (text, then tool calls); undefined leaves it to the roles above. */
  respond?(body: any, headers: http.IncomingHttpHeaders): ScriptedChatReply | undefined;
}

/** One scripted assistant message: its text, then the tool calls it makes (OpenCode runs them). */
export interface ScriptedChatReply {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
}

export interface FakeChatCompletions {
  url: string;
  port: number;
  requests: ChatRequest[];
  close(): Promise<void>;
}

type Json = any;

function contentText(content: Json): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Json) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
  return '';
}

/** All text of a request's messages (system included). */
export function chatText(body: Json): string {
  return (Array.isArray(body?.messages) ? body.messages : []).map((m: Json) => contentText(m?.content)).join('\n');
}

export async function startFakeChatCompletions(script: FakeChatScript): Promise<FakeChatCompletions> {
  const requests: ChatRequest[] = [];
  const taskCallId = 'call_task_baton_e2e';
  let n = 0;

  const classify = (body: Json): ChatRole => {
    const messages: Json[] = Array.isArray(body?.messages) ? body.messages : [];
    const users = messages.filter((m) => m?.role === 'user').map((m) => contentText(m.content));
    // Only the child's conversation has the task as a user message (the parent holds it in its
    // tool call); the child may also carry the marker, inside the inherited block, wherever the
    // plugin puts it.
    // Agent turns offer tools; side requests (title generation) offer none.
    const offersTools = Array.isArray(body?.tools) && body.tools.length > 0;
    if (users.some((t) => t.includes(script.agentPrompt))) return offersTools ? 'subagent' : 'other';
    const hasParentPrompt = users.some((t) => t.includes(script.parentPromptIncludes));
    const offersTask = offersTools && body.tools.some((t: Json) => t?.function?.name === 'task');
    if (!hasParentPrompt) return 'other';
    if (messages.some((m) => m?.role === 'tool' && m.tool_call_id === taskCallId)) return 'parent-followup';
    return offersTask ? 'parent-first' : 'other';
  };

  const server = recordingServer(requests, '/chat/completions', (record, req, res) => {
    const body = record.body as Json;
    record.role = classify(body);
    const id = `chatcmpl-${++n}`;
    const model = typeof body?.model === 'string' ? body.model : 'fake';
    const created = Math.floor(Date.now() / 1000);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: Json, finish: string | null) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    const text = (t: string) => {
      chunk({ role: 'assistant', content: '' }, null);
      chunk({ content: t }, null);
      chunk({}, 'stop');
    };
    const scripted = script.respond?.(body, req.headers);
    if (scripted) {
      chunk({ role: 'assistant', content: scripted.text ?? '' }, null);
      (scripted.toolCalls ?? []).forEach((call, index) => {
        chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null);
        chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(call.arguments) } }] }, null);
      });
      chunk({}, scripted.toolCalls?.length ? 'tool_calls' : 'stop');
    } else
      switch (record.role) {
        case 'parent-first': {
          const args = JSON.stringify({ description: script.agentDescription, prompt: script.agentPrompt, subagent_type: script.subagentType });
          chunk(
            { role: 'assistant', content: null, tool_calls: [{ index: 0, id: taskCallId, type: 'function', function: { name: 'task', arguments: '' } }] },
            null,
          );
          chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }, null);
          chunk({}, 'tool_calls');
          break;
        }
        case 'subagent':
          text(script.subagentReply);
          break;
        case 'parent-followup':
          text(script.parentFinal);
          break;
        default:
          text('OK.');
      }
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    port,
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close,
  };
}
