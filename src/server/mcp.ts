// The MCP endpoint (/mcp, Streamable HTTP, official SDK, stateless): session_search,
// session_transcript, inherited_context, list_sessions, session_subagents, and the rules a
// sub-agent inherits by hand (list/add/edit constraints and entities). It sits behind the same host/origin
// checks (checkOrigin) and bearer token as the rest of the API: one rule for every route.
// A caller that is a sub-agent (X-Agent-Session-Id, or currentSessionKey) defaults to its parent.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { BatonError } from '../core/errors';
import { DEFAULT_AGENT } from '../core/agents';
import { parentFromKey } from '../harnesses/registry';
import type { Store } from '../store/store';
import { readScope, type Caller } from './security';
import type { SessionService } from './sessionService';
import type { ApiClient } from '../api/client';

interface Context {
  store: Store;
  sessions: SessionService;
  /** The API's own handlers as this caller: tools that write go through them (permissions, claims, validation). */
  api: ApiClient;
  caller: Caller;
  /** The calling session, from X-Agent-Session-Id. */
  callerSession: string | null;
}

function text(value: string, structured?: Record<string, unknown>) {
  return { content: [{ type: 'text' as const, text: value }], ...(structured ? { structuredContent: structured } : {}) };
}

function failure(message: string) {
  return { content: [{ type: 'text' as const, text: message }], isError: true };
}

/**
 * The session a tool should look at: the one named, else the caller's parent, else the caller
 * itself. For the admin, also the agent of the calling session: its parent is that agent's row of
 * the key, never another agent's (docs/security.md, "Parents belong to the child's agent"); an
 * agent token's parent is resolved for its own agent anyway.
 */
async function targetSession(ctx: Context, named: string | undefined, current: string | undefined): Promise<{ key: string; agentId?: string } | null> {
  if (named) return { key: named };
  const self = current ?? ctx.callerSession;
  if (!self) return null;
  // The calling session is the caller's own of its key: for the admin (whose MCP calls name no
  // agent) the default agent's, never another agent's row of the same key.
  const agentId = ctx.caller.agentId === null ? DEFAULT_AGENT : undefined;
  const session = await ctx.store.read('getSession', { scope: readScope(ctx.caller), key: self, agentId });
  const key = parentFromKey(self) ?? session?.parentSessionKey ?? session?.key ?? null;
  return key ? { key, agentId } : null;
}

function buildServer(ctx: Context): McpServer {
  const server = new McpServer({ name: 'baton', version: '0.1.0' });
  const safe =
    <A>(fn: (args: A) => Promise<ReturnType<typeof text>>) =>
    async (args: A) => {
      try {
        return await fn(args);
      } catch (err) {
        return failure(err instanceof BatonError ? err.message : 'internal error');
      }
    };

  server.registerTool(
    'session_search',
    {
      description:
        'Full-text search over session transcripts (live ones included). With no sessionKey, a sub-agent searches its parent session; otherwise all sessions of the agent and project except the current one. Returns excerpts with hits marked [[like this]].',
      inputSchema: {
        query: z.string().describe('words, "phrases", -exclusions, prefix*, OR'),
        sessionKey: z.string().optional().describe('search only this session'),
        currentSessionKey: z.string().optional().describe('the calling session, when known'),
        project: z.string().optional(),
        limit: z.number().int().min(1).max(20).optional(),
      },
    },
    safe(async (args: { query: string; sessionKey?: string; currentSessionKey?: string; project?: string; limit?: number }) => {
      const result = await ctx.sessions.search(ctx.caller, { ...args, currentSessionKey: args.currentSessionKey ?? ctx.callerSession ?? undefined });
      const lines = result.hits.map(
        (h) => `- ${h.sessionKey}${h.title ? ` "${h.title}"` : ''} (${h.harness}${h.project ? `, ${h.project}` : ''}, ${h.updatedAt}): ${h.excerpt}`,
      );
      return text(lines.length ? lines.join('\n') : `No matches for ${JSON.stringify(args.query)}.`, result as unknown as Record<string, unknown>);
    }),
  );

  server.registerTool(
    'session_transcript',
    {
      description: "The stored transcript of a session (default: the caller's parent session), newest part when it is long.",
      inputSchema: {
        sessionKey: z.string().optional(),
        currentSessionKey: z.string().optional(),
        maxChars: z.number().int().min(100).max(200_000).optional().describe('return at most this many characters, from the end (default 20000)'),
      },
    },
    safe(async (args: { sessionKey?: string; currentSessionKey?: string; maxChars?: number }) => {
      const target = await targetSession(ctx, args.sessionKey, args.currentSessionKey);
      if (!target) return failure('Name a sessionKey: this caller is not a known sub-agent, so there is no parent to default to.');
      const t = await ctx.sessions.transcript(ctx.caller, target.key, target.agentId);
      const max = args.maxChars ?? 20_000;
      const content = t.content.length > max ? '…' + t.content.slice(t.content.length - max) : t.content;
      return text(content, { sessionKey: t.sessionKey, truncated: t.content.length > max, chars: t.content.length });
    }),
  );

  server.registerTool(
    'inherited_context',
    {
      description: "The 'Inherited from Parent Session' block a new sub-agent of a session receives (default: the caller's parent session).",
      inputSchema: { sessionKey: z.string().optional(), currentSessionKey: z.string().optional() },
    },
    safe(async (args: { sessionKey?: string; currentSessionKey?: string }) => {
      const target = await targetSession(ctx, args.sessionKey, args.currentSessionKey);
      if (!target) return failure('Name a sessionKey: this caller is not a known sub-agent, so there is no parent to default to.');
      const preview = await ctx.sessions.inheritedPreview(ctx.caller, target.key, { agentId: target.agentId });
      return text(preview.block || `Session ${target.key} has nothing to inherit yet.`, {
        sessionKey: preview.sessionKey,
        chars: preview.chars,
        estimatedTokens: preview.estimatedTokens,
      });
    }),
  );

  server.registerTool(
    'list_sessions',
    {
      description: 'Recent sessions (newest first) with harness, status, parent and turn count.',
      inputSchema: { project: z.string().optional(), limit: z.number().int().min(1).max(200).optional(), activeOnly: z.boolean().optional() },
    },
    safe(async (args: { project?: string; limit?: number; activeOnly?: boolean }) => {
      const { sessions } = await ctx.store.read('listSessions', {
        scope: readScope(ctx.caller),
        project: args.project,
        limit: args.limit ?? 50,
        status: args.activeOnly ? 'active' : undefined,
      });
      const lines = sessions.map(
        (s) =>
          `- ${s.key} ${s.harness} ${s.status}${s.parentSessionKey ? ` child of ${s.parentSessionKey}` : ''}, ${s.turnCount} turns, updated ${s.updatedAt}`,
      );
      return text(lines.join('\n') || 'No sessions.', {
        sessions: sessions.map((s) => ({
          key: s.key,
          harness: s.harness,
          status: s.status,
          parentSessionKey: s.parentSessionKey,
          project: s.project,
          updatedAt: s.updatedAt,
          turnCount: s.turnCount,
        })),
      });
    }),
  );
  registerSubagentTool(server, ctx, safe);
  registerRuleTools(server, ctx, safe);
  return server;
}

type Safe = <A>(fn: (args: A) => Promise<ReturnType<typeof text>>) => (args: A) => Promise<ReturnType<typeof text> | ReturnType<typeof failure>>;

function registerSubagentTool(server: McpServer, ctx: Context, safe: Safe): void {
  server.registerTool(
    'session_subagents',
    {
      description:
        "What a session's sub-agents did: each one's type, task, status and a digest of its result (default: the calling session itself). Use it after a compaction to recall what your sub-agents found.",
      inputSchema: { sessionKey: z.string().optional(), currentSessionKey: z.string().optional() },
    },
    safe(async (args: { sessionKey?: string; currentSessionKey?: string }) => {
      const key = args.sessionKey ?? args.currentSessionKey ?? ctx.callerSession;
      if (!key) return failure('Name a sessionKey: this caller did not say which session it is.');
      // The calling session itself: the admin's is the default agent's of the key (see targetSession).
      const self = !args.sessionKey && ctx.caller.agentId === null ? DEFAULT_AGENT : undefined;
      const result = await ctx.sessions.subagents(ctx.caller, key, self);
      return text(result.text || `Session ${result.sessionKey} has no sub-agents.`, result as unknown as Record<string, unknown>);
    }),
  );
}

/** Constraints and entities by hand, as in `baton constraints` / `baton entities` (docs/inheritance.md). */
function registerRuleTools(server: McpServer, ctx: Context, safe: Safe): void {
  const session = (args: { sessionKey?: string; currentSessionKey?: string }) => args.sessionKey ?? args.currentSessionKey ?? ctx.callerSession ?? undefined;
  server.registerTool(
    'list_constraints',
    {
      description: 'Constraints (rules every sub-agent of a session inherits, never cut by the budget), with where each came from.',
      inputSchema: {
        sessionKey: z.string().optional().describe('one session (default: all readable ones)'),
        all: z.boolean().optional().describe('include deactivated ones'),
      },
    },
    safe(async (args: { sessionKey?: string; all?: boolean }) => {
      const r = await ctx.api.call('listConstraints', { query: { sessionKey: args.sessionKey, all: args.all ? '1' : undefined } });
      const lines = r.constraints.map((c) => `- #${c.id} ${c.active ? '' : '(inactive) '}${c.entity}: ${c.content} [${c.sessionKey ?? '-'}]`);
      return text(lines.join('\n') || 'No constraints.', r as unknown as Record<string, unknown>);
    }),
  );
  server.registerTool(
    'add_constraint',
    {
      description: 'Adds a rule every sub-agent of the session must follow (default session: the calling one).',
      inputSchema: {
        content: z.string().describe('the rule, e.g. "never drop the users table"'),
        sessionKey: z.string().optional(),
        currentSessionKey: z.string().optional(),
        entity: z.string().optional().describe('what it is about (default "rules")'),
      },
    },
    safe(async (args: { content: string; sessionKey?: string; currentSessionKey?: string; entity?: string }) => {
      const c = await ctx.api.call('addConstraint', { body: { content: args.content, sessionKey: session(args), entity: args.entity } });
      return text(`Added constraint #${c.id} to ${c.sessionKey ?? 'the agent'}.`, c as unknown as Record<string, unknown>);
    }),
  );
  server.registerTool(
    'edit_constraint',
    {
      description: "Changes a constraint's text or importance, or deactivates (active: false) / reactivates it.",
      inputSchema: {
        id: z.number().int().min(1),
        content: z.string().optional(),
        active: z.boolean().optional(),
        importance: z.number().min(0).max(1).optional(),
      },
    },
    safe(async (args: { id: number; content?: string; active?: boolean; importance?: number }) => {
      const c = await ctx.api.call('editConstraint', {
        params: { id: String(args.id) },
        body: { content: args.content, active: args.active, importance: args.importance },
      });
      return text(`Constraint #${c.id} is ${c.active ? 'active' : 'inactive'}: ${c.content}`, c as unknown as Record<string, unknown>);
    }),
  );
  server.registerTool(
    'list_entities',
    {
      description: 'Entities (files, symbols, services, tickets) a session keeps in focus, or all readable ones.',
      inputSchema: { sessionKey: z.string().optional(), all: z.boolean().optional().describe('include deactivated ones') },
    },
    safe(async (args: { sessionKey?: string; all?: boolean }) => {
      const r = await ctx.api.call('listEntities', { query: { sessionKey: args.sessionKey, all: args.all ? '1' : undefined } });
      const lines = r.entities.map((e) => `- #${e.id} ${e.active ? '' : '(inactive) '}${e.name} (${e.kind})${e.description ? `: ${e.description}` : ''}`);
      return text(lines.join('\n') || 'No entities.', r as unknown as Record<string, unknown>);
    }),
  );
  server.registerTool(
    'add_entity',
    {
      description: "Adds an entity (or changes the one of that name); with a session, keeps it in that session's focus for its sub-agents.",
      inputSchema: {
        name: z.string(),
        kind: z.string().optional(),
        description: z.string().optional(),
        sessionKey: z.string().optional(),
        currentSessionKey: z.string().optional(),
      },
    },
    safe(async (args: { name: string; kind?: string; description?: string; sessionKey?: string; currentSessionKey?: string }) => {
      const e = await ctx.api.call('addEntity', { body: { name: args.name, kind: args.kind, description: args.description, sessionKey: session(args) } });
      return text(`Entity #${e.id} ${e.name} is ${e.active ? 'active' : 'inactive'}.`, e as unknown as Record<string, unknown>);
    }),
  );
  server.registerTool(
    'edit_entity',
    {
      description: 'Renames or describes an entity, or deactivates (active: false) / reactivates it; a deactivated entity never becomes focal.',
      inputSchema: {
        id: z.number().int().min(1),
        name: z.string().optional(),
        kind: z.string().optional(),
        description: z.string().optional(),
        active: z.boolean().optional(),
      },
    },
    safe(async (args: { id: number; name?: string; kind?: string; description?: string; active?: boolean }) => {
      const e = await ctx.api.call('editEntity', {
        params: { id: String(args.id) },
        body: { name: args.name, kind: args.kind, description: args.description, active: args.active },
      });
      return text(`Entity #${e.id} ${e.name} is ${e.active ? 'active' : 'inactive'}.`, e as unknown as Record<string, unknown>);
    }),
  );
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
