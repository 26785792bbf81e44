// `baton mcp`: a stdio MCP server for harnesses that launch MCP servers as processes. It bridges
// each newline-delimited JSON-RPC message to the running endpoint's /mcp (looked up in
// endpoint.json for every message, so a restarted server with a new token is followed), passing
// the caller's AGENT_SESSION_ID so sub-agents default to their parent session.

import * as readline from 'node:readline';
import { exchange, liveEndpoint } from '../node/endpointCall';

/** How long one message may take to answer (a tool call may search the whole store). */
const MESSAGE_TIMEOUT_MS = 30_000;
/** A tool's answer may carry a whole transcript: far more room than a hook's reply. */
const MAX_MESSAGE_REPLY_BYTES = 256 * 1024 * 1024;

interface JsonRpc {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
}

function errorReply(id: JsonRpc['id'], message: string) {
  return { jsonrpc: '2.0', id: id ?? null, error: { code: -32603, message } };
}

export async function forward(dataDir: string, message: JsonRpc, agentSessionId?: string): Promise<unknown | null> {
  const endpoint = liveEndpoint(dataDir);
  const isRequest = message.id !== undefined && message.method !== undefined;
  if (!endpoint)
    return isRequest ? errorReply(message.id, `Baton is not running for ${dataDir}: start it (baton serve, or open VS Code with the Baton extension)`) : null;
  const reply = await exchange(endpoint, '/mcp', message, {
    deadline: Date.now() + MESSAGE_TIMEOUT_MS,
    maxReplyBytes: MAX_MESSAGE_REPLY_BYTES,
    headers: { accept: 'application/json, text/event-stream', ...(agentSessionId ? { 'x-agent-session-id': agentSessionId } : {}) },
  });
  if (reply.status === 202 || !isRequest) return null;
  return reply.json !== undefined ? reply.json : errorReply(message.id, `Baton endpoint answered HTTP ${reply.status}`);
}

export function runMcpBridge(dataDir: string): Promise<void> {
  const agentSessionId = process.env.AGENT_SESSION_ID || undefined;
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    if (!line.trim()) return;
    // Keep replies in the order requests arrived.
    queue = queue.then(async () => {
      let message: JsonRpc;
      try {
        message = JSON.parse(line) as JsonRpc;
      } catch {
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }) + '\n');
        return;
      }
      try {
        const reply = await forward(dataDir, message, agentSessionId);
        if (reply) process.stdout.write(JSON.stringify(reply) + '\n');
      } catch (err) {
        if (message.id !== undefined) process.stdout.write(JSON.stringify(errorReply(message.id, (err as Error).message)) + '\n');
      }
    });
  });
  return new Promise((resolve) => lines.on('close', () => void queue.then(resolve)));
}
