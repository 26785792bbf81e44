// A scripted OpenAI Responses API on 127.0.0.1 for driving the real Codex CLI end to end, offline.
// Codex (a custom model provider with `wire_api = "responses"`) only calls `POST /v1/responses`
// and reads server-sent events: each reply here is `response.created`, one
// `response.output_item.done` per output item, then `response.completed`.
//
// The script (classify()):
// - 'parent-first': the parent's prompt (holding the secret marker) with no tool output yet ->
//   a `spawn_agent` call (namespace `multi_agent_v1`) whose message is the agent prompt;
// - 'subagent': another thread (the `thread-id` header) whose user messages hold the agent prompt
//   (or, without that header, a conversation without the marker prompt) -> the sub-agent's final text;
// - 'parent-spawned': the parent's request carrying spawn_agent's output -> `wait_agent` on the
//   child (so the parent does not finish before the child ran);
// - 'parent-followup': the parent's request carrying wait_agent's output -> the parent's final text;
// - 'other' -> a short text.
// Every request is recorded (parsed body, headers) in arrival order.

import type * as http from 'node:http';
import { listenOnLoopback, recordingServer, type RecordedJsonRequest } from './loopbackServer';

export type ResponsesRole = 'parent-first' | 'parent-spawned' | 'parent-followup' | 'subagent' | 'other';

export interface ResponsesRequest extends RecordedJsonRequest {
  role?: ResponsesRole;
}

export interface FakeResponsesScript {
  /** Text only the parent's prompt holds (the secret marker). */
  parentPromptIncludes: string;
  /** The task the parent hands the sub-agent (must not hold the marker). */
  agentPrompt: string;
  subagentReply: string;
  parentFinal: string;
  /**
   * Answers a request itself (the output items of the reply) before the script above is asked;
   * undefined leaves it to the script. The demo recorder plays its whole story through this.
   */
  respond?(body: Json, headers: http.IncomingHttpHeaders): Json[] | undefined;
}

export interface FakeResponses {
  url: string;
  port: number;
  requests: ResponsesRequest[];
  close(): Promise<void>;
}

type Json = any;

/** The text of every message in a request's `input` (and its `instructions`). */
export function responsesText(body: Json): string {
  const parts: string[] = [typeof body?.instructions === 'string' ? body.instructions : ''];
  for (const item of Array.isArray(body?.input) ? body.input : []) {
    if (item?.type !== 'message') continue;
    if (typeof item.content === 'string') parts.push(item.content);
    else if (Array.isArray(item.content)) for (const c of item.content) if (typeof c?.text === 'string') parts.push(c.text);
  }
  return parts.join('\n');
}

function userTexts(body: Json): string[] {
  return (Array.isArray(body?.input) ? body.input : [])
    .filter((i: Json) => i?.type === 'message' && i.role === 'user')
    .map((i: Json) => (Array.isArray(i.content) ? i.content.map((c: Json) => c?.text ?? '').join('\n') : String(i.content ?? '')));
}

function outputFor(body: Json, callId: string | null): Json | undefined {
  if (!callId) return undefined;
  return (Array.isArray(body?.input) ? body.input : []).find((i: Json) => i?.type === 'function_call_output' && i.call_id === callId);
}

let itemSeq = 0;

/** An assistant message item of a reply. */
export function responsesMessage(text: string): Json {
  return { type: 'message', role: 'assistant', id: `msg_${++itemSeq}`, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

/** A function call item of a reply, in Codex's multi-agent namespace (spawn_agent, wait_agent). */
export function responsesCall(callId: string, name: string, args: object): Json {
  return {
    type: 'function_call',
    id: `fc_${++itemSeq}`,
    call_id: callId,
    namespace: 'multi_agent_v1',
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/** Codex's config.toml with the fake as its model provider (the key comes from BATON_E2E_FAKE_KEY). */
export function codexFakeConfig(fakeUrl: string): string {
  return [
    'model = "gpt-fake"',
    'model_provider = "fake"',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${fakeUrl}"`,
    'wire_api = "responses"',
    'env_key = "BATON_E2E_FAKE_KEY"',
    '',
  ].join('\n');
}

export async function startFakeResponses(script: FakeResponsesScript): Promise<FakeResponses> {
  const requests: ResponsesRequest[] = [];
  const spawnCallId = 'call_spawn_baton_e2e';
  const waitCallId = 'call_wait_baton_e2e';
  let n = 0;

  let parentThread: string | undefined;
  const classify = (body: Json, thread: string | undefined): ResponsesRole => {
    const users = userTexts(body);
    // Codex names the conversation in a thread-id header: the child is another thread (its
    // inherited block may quote the parent's marker, wherever Codex places hook context).
    if (thread && parentThread && thread !== parentThread) return users.some((t) => t.includes(script.agentPrompt)) ? 'subagent' : 'other';
    const hasParentPrompt = users.some((t) => t.includes(script.parentPromptIncludes));
    if (!hasParentPrompt) return users.some((t) => t.includes(script.agentPrompt)) ? 'subagent' : 'other';
    if (outputFor(body, waitCallId)) return 'parent-followup';
    if (outputFor(body, spawnCallId)) return 'parent-spawned';
    return 'parent-first';
  };

  /** The child's id from spawn_agent's output (JSON with agent_id, or any id-looking string). */
  const childId = (body: Json): string => {
    const out = outputFor(body, spawnCallId)?.output;
    const text = typeof out === 'string' ? out : JSON.stringify(out ?? '');
    try {
      const parsed = JSON.parse(text) as { agent_id?: string; id?: string };
      if (parsed.agent_id || parsed.id) return String(parsed.agent_id ?? parsed.id);
    } catch {
      // not JSON
    }
    return /[0-9a-f]{8}-[0-9a-f-]{27}/.exec(text)?.[0] ?? text;
  };

  const message = responsesMessage;
  const call = responsesCall;

  const itemsFor = (role: ResponsesRole, body: Json): Json[] => {
    switch (role) {
      case 'parent-first':
        return [call(spawnCallId, 'spawn_agent', { message: script.agentPrompt })];
      case 'parent-spawned':
        return [call(waitCallId, 'wait_agent', { targets: [childId(body)], timeout_ms: 60_000 })];
      case 'parent-followup':
        return [message(script.parentFinal)];
      case 'subagent':
        return [message(script.subagentReply)];
      default:
        return [message('OK.')];
    }
  };

  const server = recordingServer(requests, '/responses', (record, req, res) => {
    const body = record.body as Json;
    const thread = typeof req.headers['thread-id'] === 'string' ? req.headers['thread-id'] : undefined;
    const own = script.respond?.(body, req.headers);
    if (!own) record.role = classify(body, thread);
    if (record.role === 'parent-first') parentThread ??= thread;
    const id = `resp_${++n}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: Json) => res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    send({ type: 'response.created', response: { id } });
    (own ?? itemsFor(record.role!, body)).forEach((item, i) => send({ type: 'response.output_item.done', output_index: i, item }));
    send({
      type: 'response.completed',
      response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 } },
    });
    res.end();
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    port,
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close,
  };
}
