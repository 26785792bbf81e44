// The MCP endpoint (/mcp, Streamable HTTP, official SDK, stateless): the catalogue's tools
// (toolCatalogue.ts) under their MCP names; the catalogue is their one list. It sits behind the
// same host/origin checks (checkOrigin) and bearer token as the rest of the API: one rule for
// every route. MCP reaches data one way only: the typed API client over the in-process transport,
// as the request's caller (docs/architecture.md).
// A caller that is a sub-agent (X-Agent-Session-Id, or currentSessionKey) defaults to its parent.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { BatonError } from '../core/errors';
import type { ApiClient } from '../api/client';
import type { Caller } from './security';
import { ToolInputError, toolsOf, type ToolProperty, type ToolReply } from './toolCatalogue';

interface Context {
  /** The API's own handlers as this caller (dispatch.ts inProcessClient): every tool goes through them. */
  api: ApiClient;
  caller: Caller;
  /** The calling session, from X-Agent-Session-Id. */
  callerSession: string | null;
}

function reply(value: ToolReply) {
  return { content: [{ type: 'text' as const, text: value.text }], ...(value.structured ? { structuredContent: value.structured } : {}) };
}

function failure(message: string) {
  return { content: [{ type: 'text' as const, text: message }], isError: true };
}

/** A catalogue property as the SDK's zod shape. */
function zodOf(property: ToolProperty, required: boolean): z.ZodType {
  let type: z.ZodType;
  if (property.type === 'boolean') type = z.boolean();
  else if (property.type === 'array') type = z.array(z.string());
  else if (property.type === 'string') type = property.enum ? z.enum(property.enum as [string, ...string[]]) : z.string();
  else {
    let number = property.type === 'integer' ? z.number().int() : z.number();
    if (property.minimum !== undefined) number = number.min(property.minimum);
    if (property.maximum !== undefined) number = number.max(property.maximum);
    type = number;
  }
  if (property.description) type = type.describe(property.description);
  return required ? type : type.optional();
}

function buildServer(ctx: Context): McpServer {
  const server = new McpServer({ name: 'baton', version: '0.1.0' });
  const toolContext = { api: ctx.api, callerSession: ctx.callerSession, admin: ctx.caller.agentId === null, surface: 'mcp' as const };
  for (const tool of toolsOf('mcp')) {
    const run = tool.run;
    if (!run) continue;
    const inputSchema = Object.fromEntries(tool.face.properties.map((name) => [name, zodOf(tool.input[name], tool.face.required?.includes(name) ?? false)]));
    server.registerTool(tool.face.name, { description: tool.face.description, inputSchema }, async (args: Record<string, unknown>) => {
      try {
        return reply(await run(args, toolContext));
      } catch (err) {
        return failure(err instanceof BatonError || err instanceof ToolInputError ? err.message : 'internal error');
      }
    });
  }
  return server;
}

/** Serves one /mcp request statelessly: a fresh server and transport each time. */
export async function handleMcp(req: IncomingMessage, res: ServerResponse, body: unknown, deps: Omit<Context, 'callerSession'>): Promise<void> {
  const header = req.headers['x-agent-session-id'];
  const ctx: Context = { ...deps, callerSession: (Array.isArray(header) ? header[0] : header) ?? null };
  const server = buildServer(ctx);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    // Off on purpose: checkOrigin has already applied the endpoint's one Host/Origin rule to this
    // request. The SDK's own check compares Host case-sensitively, so /mcp would refuse
    // "LOCALHOST:port" that every other route accepts.
    enableDnsRebindingProtection: false,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
