// A scripted Messages-API server on 127.0.0.1 for driving the real Claude Code CLI end to end,
// offline. It answers `POST /v1/messages` (server-sent events when `stream: true`, one JSON
// message otherwise), `POST /v1/messages/count_tokens`, and any other probe with something
// sensible; it records every request (parsed JSON body) in arrival order.
//
// The script (see classify()):
// - 'parent-first': the parent's first turn (the Agent tool is offered, a user message holds the
//   parent's prompt, and no tool_result has come back yet) -> a tool_use of `Agent` whose
//   prompt is the agent prompt (it must not contain the secret marker);
// - 'subagent': any request whose FIRST user message holds the agent prompt -> a short final text;
// - 'parent-followup': the parent's request carrying the tool_result of that Agent call -> final text;
// - 'other' (title generation, quota probes, …) -> a short text.
//
// Observed with Claude Code 2.1.328 in `-p` mode with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1:
// only `POST /v1/messages` (always `stream: true`), one request per model turn: the parent's
// first turn, the sub-agent's turn(s) (with an `x-claude-code-agent-id` header; the parent's
// carry only `x-claude-code-session-id`), then the parent's follow-up with the tool_result.
// Messages may include `role: "system"` entries (environment notes, hook additionalContext).

import * as fs from 'node:fs';
import * as http from 'node:http';
import { listenOnLoopback, withJsonBody } from './loopbackServer';

export type RequestRole = 'parent-first' | 'subagent' | 'parent-followup' | 'other';

export interface RecordedRequest {
  seq: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined when there was none or it was not JSON). */

  body: any;
  /** Set for POST /v1/messages only. */
  role?: RequestRole;
  stream?: boolean;
}

export interface FakeAnthropicScript {
  /** Text that only the parent's prompt contains (e.g. the secret marker). */
  parentPromptIncludes: string;
  /** The prompt the parent's Agent tool call hands the sub-agent. */
  agentPrompt: string;
  agentDescription?: string;
  subagentType?: string;
  /** Sent as the Agent input's run_in_background (omitted when undefined). */
  runInBackground?: boolean;
  /** The sub-agent's final reply. */
  subagentReply: string;
  /** The parent's final reply after the Agent tool result. */
  parentFinal: string;
  /** Reply to everything else. */
  otherText?: string;
  /** While developing: append every request (one JSON line each) to this file. */
  dumpFile?: string;
  /** The usage every reply reports (default: 12 input, 20 output, no cache), so a test knows what a transcript must record. */
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** The model every reply names (default: the model the request asked for). */
  model?: string;
  /**
   * A longer script (scripts/demo/record-demo.ts): answers any request it knows, before the roles
   * above are looked at; undefined falls through to them.
   */
  respond?(body: any, headers: http.IncomingHttpHeaders): ScriptedReply | undefined;
}

export type ScriptedBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: any };
export interface ScriptedReply {
  blocks: ScriptedBlock[];
  stopReason: 'end_turn' | 'tool_use';
}

export interface FakeAnthropic {
  port: number;
  url: string;
  requests: RecordedRequest[];
  /** The POST /v1/messages requests only, in order. */
  messages(): RecordedRequest[];
  /** The id of the Agent tool_use block the fake handed out (null until the parent's first turn). */
  agentToolUseId(): string | null;
  close(): Promise<void>;
}

type Json = any;

/** The text of a message's content (string, or the text of its text / tool_result blocks). */
export function contentText(content: Json): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: Json) => {
      if (!block || typeof block !== 'object') return '';
      if (block.type === 'text' && typeof block.text === 'string') return block.text;
      if (block.type === 'tool_result') return contentText(block.content);
      return '';
    })
    .join('\n');
}

/** All text a request carries in its messages and system prompt (for "does it contain X" checks). */
export function requestText(body: Json): string {
  const system =
    typeof body?.system === 'string'
      ? body.system
      : Array.isArray(body?.system)
        ? body.system.map((b: Json) => (typeof b?.text === 'string' ? b.text : '')).join('\n')
        : '';
  const messages = Array.isArray(body?.messages) ? body.messages.map((m: Json) => contentText(m?.content)).join('\n') : '';
  return `${system}\n${messages}`;
}

function userMessages(body: Json): Json[] {
  return Array.isArray(body?.messages) ? body.messages.filter((m: Json) => m?.role === 'user') : [];
}

function hasToolResult(message: Json, toolUseId?: string | null): boolean {
  return Array.isArray(message?.content) && message.content.some((b: Json) => b?.type === 'tool_result' && (!toolUseId || b.tool_use_id === toolUseId));
}

function offersTool(body: Json, name: string): boolean {
  return Array.isArray(body?.tools) && body.tools.some((t: Json) => t?.name === name);
}

function newId(prefix: string): string {
  return `${prefix}_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
}

export async function startFakeAnthropic(script: FakeAnthropicScript): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  let agentToolId: string | null = null;

  const classify = (body: Json, headers: http.IncomingHttpHeaders): RequestRole => {
    const users = userMessages(body);
    if (users.length === 0) return 'other';
    const first = contentText(users[0].content);
    // The sub-agent's conversation starts with the Agent prompt (its first user message holds it,
    // after Claude Code's own <system-reminder> blocks); Claude Code also names the sub-agent in
    // an x-claude-code-agent-id header. The parent's own prompt is never in its first message.
    // (Injected context may quote the parent, so a block that IS the task also counts.)
    const taskBlock =
      Array.isArray(users[0].content) &&
      users[0].content.some((b: Json) => b?.type === 'text' && typeof b.text === 'string' && b.text.trim() === script.agentPrompt);
    const startsWithAgentPrompt = first.includes(script.agentPrompt) && !first.includes(script.parentPromptIncludes);
    if (taskBlock || startsWithAgentPrompt) return 'subagent';
    if (headers['x-claude-code-agent-id'] && users.some((m: Json) => contentText(m.content).includes(script.agentPrompt))) return 'subagent';
    const hasPrompt = users.some((m: Json) => contentText(m.content).includes(script.parentPromptIncludes));
    if (!hasPrompt || !offersTool(body, 'Agent')) return 'other';
    const answered = users.some((m: Json) => hasToolResult(m, agentToolId));
    if (agentToolId && answered) return 'parent-followup';
    const last = users[users.length - 1];
    if (!hasToolResult(last) && contentText(last.content).includes(script.parentPromptIncludes)) return 'parent-first';
    return 'other';
  };

  type Block = ScriptedBlock;

  const reply = (role: RequestRole): { blocks: Block[]; stopReason: string } => {
    switch (role) {
      case 'parent-first': {
        agentToolId ??= newId('toolu');
        return {
          blocks: [
            { type: 'text', text: 'Delegating to a sub-agent.' },
            {
              type: 'tool_use',
              id: agentToolId,
              name: 'Agent',
              input: {
                description: script.agentDescription ?? 'investigate',
                prompt: script.agentPrompt,
                subagent_type: script.subagentType ?? 'general-purpose',
                ...(script.runInBackground === undefined ? {} : { run_in_background: script.runInBackground }),
              },
            },
          ],
          stopReason: 'tool_use',
        };
      }
      case 'subagent':
        return { blocks: [{ type: 'text', text: script.subagentReply }], stopReason: 'end_turn' };
      case 'parent-followup':
        return { blocks: [{ type: 'text', text: script.parentFinal }], stopReason: 'end_turn' };
      default:
        return { blocks: [{ type: 'text', text: script.otherText ?? 'OK.' }], stopReason: 'end_turn' };
    }
  };

  const given = script.usage ?? { input: 12, output: 20, cacheRead: 0, cacheWrite: 0 };
  const usage = { input_tokens: given.input, output_tokens: 0, cache_creation_input_tokens: given.cacheWrite, cache_read_input_tokens: given.cacheRead };

  const writeStream = (res: http.ServerResponse, model: string, blocks: Block[], stopReason: string) => {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': newId('req'),
    });
    const send = (event: string, data: Json) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    send('message_start', {
      message: {
        id: newId('msg'),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    send('ping', {});
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        // Two deltas, like a real stream.
        const half = Math.ceil(block.text.length / 2);
        for (const part of [block.text.slice(0, half), block.text.slice(half)])
          if (part) send('content_block_delta', { index, delta: { type: 'text_delta', text: part } });
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        const json = JSON.stringify(block.input);
        const cut = Math.ceil(json.length / 2);
        for (const part of [json.slice(0, cut), json.slice(cut)])
          send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
      }
      send('content_block_stop', { index });
    });
    send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: given.output } });
    send('message_stop', {});
    res.end();
  };

  const writeJson = (res: http.ServerResponse, status: number, body: Json) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': newId('req') });
    res.end(text);
  };

  const server = http.createServer((req, res) => {
    withJsonBody(req, (parsed) => {
      const body = parsed as Json;
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const record: RecordedRequest = { seq: requests.length, method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body };
      requests.push(record);
      try {
        if (record.method === 'POST' && url.pathname === '/v1/messages') {
          record.role = classify(body, req.headers);
          record.stream = body?.stream === true;
          const model = script.model ?? (typeof body?.model === 'string' ? body.model : 'claude-fake');
          const { blocks, stopReason } = script.respond?.(body, req.headers) ?? reply(record.role);
          if (record.stream) writeStream(res, model, blocks, stopReason);
          else
            writeJson(res, 200, {
              id: newId('msg'),
              type: 'message',
              role: 'assistant',
              model,
              content: blocks,
              stop_reason: stopReason,
              stop_sequence: null,
              usage: { ...usage, output_tokens: given.output },
            });
        } else if (record.method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
          writeJson(res, 200, { input_tokens: Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4)) });
        } else if (record.method === 'HEAD') {
          res.writeHead(200);
          res.end();
        } else if (record.method === 'GET' && url.pathname === '/v1/models') {
          writeJson(res, 200, { data: [], has_more: false, first_id: null, last_id: null });
        } else if (record.method === 'GET' && (url.pathname === '/' || url.pathname === '/v1' || url.pathname === '/health')) {
          writeJson(res, 200, { ok: true });
        } else {
          writeJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake server: no ${record.method} ${url.pathname}` } });
        }
      } catch (err) {
        if (!res.headersSent) writeJson(res, 500, { type: 'error', error: { type: 'api_error', message: (err as Error).message } });
        else res.end();
      }
      if (script.dumpFile) {
        fs.appendFileSync(
          script.dumpFile,
          JSON.stringify({ seq: record.seq, method: record.method, path: record.path, role: record.role, headers: record.headers, body: record.body }) + '\n',
        );
      }
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    messages: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages'),
    agentToolUseId: () => agentToolId,
    close,
  };
}
