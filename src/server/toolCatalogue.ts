// The one catalogue of tools a model can call: each tool is defined once (its names, descriptions,
// input schema and handler) and served by both the MCP endpoint (mcp.ts, `mcp` names) and the VS
// Code language-model tools (src/vscode/tools.ts, `lm` names; package.json's languageModelTools
// must match, a unit test checks it). Handlers reach data only through the typed API client: over
// the in-process transport as the /mcp request's caller, or the window's client in VS Code, so a
// tool is held to the same permissions, claims and validation as the route it calls
// (docs/architecture.md). Tools whose work needs the window's language models or run manager
// (spawn, query, run status) have no handler here: the VS Code host supplies it.

import { TOOL_PRESET_NAMES } from '../core/subagentTools';
import type { ApiClient } from '../api/client';
import { DEFAULT_AGENT } from '../core/agents';
import { formatHits, HIT_FORMATS, type HitFormat } from '../core/searchHits';
import { spendLine } from '../core/spend';
import { parentFromKey } from '../harnesses/registry';

export type ToolSurface = 'mcp' | 'lm';

/** The JSON Schema of one input property (the subset the tools use). */
export interface ToolProperty {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description?: string;
  enum?: string[];
  items?: { type: 'string' };
  minimum?: number;
  maximum?: number;
}

/** A tool as one surface shows it: its public name, its description, the properties it offers. */
export interface ToolFace {
  name: string;
  description: string;
  /** Names of `input` properties this surface offers, in order. */
  properties: string[];
  required?: string[];
}

export interface ToolContext {
  /** The typed API as the calling user or agent. */
  api: ApiClient;
  /** The calling session, when known (MCP's X-Agent-Session-Id). */
  callerSession: string | null;
  /** The admin (the user's own token): its calls name no agent, so the calling session is the default agent's. */
  admin: boolean;
  surface: ToolSurface;
}

export interface ToolReply {
  text: string;
  /** MCP's structured content. */
  structured?: Record<string, unknown>;
}

/** A refusal written for the model: what went wrong and what to pass instead. */
export class ToolInputError extends Error {}

export interface ToolDefinition {
  id: string;
  input: Record<string, ToolProperty>;
  mcp?: ToolFace;
  lm?: ToolFace;
  /** Absent for the tools the VS Code host answers itself. */
  run?(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolReply>;
}

type Args = Record<string, unknown>;
const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const structured = (value: object) => value as Record<string, unknown>;

/** A search hit as each surface writes it (core/searchHits.ts). */
const HIT_FORMAT: Record<ToolSurface, HitFormat> = { mcp: HIT_FORMATS.mcpTool, lm: HIT_FORMATS.lmTool };

const NO_PARENT = 'Name a sessionKey: this caller is not a known sub-agent, so there is no parent to default to.';

/**
 * The session a tool should look at: the one named, else the caller's parent, else the caller
 * itself. For the admin, also the agent of the calling session: its parent is that agent's row of
 * the key, never another agent's (docs/security.md, "Parents belong to the child's agent"); an
 * agent token's parent is resolved for its own agent anyway.
 */
async function targetSession(ctx: ToolContext, named: string | undefined, current: string | undefined): Promise<{ key: string; agentId?: string } | null> {
  if (named) return { key: named };
  const self = current ?? ctx.callerSession;
  if (!self) return null;
  // The calling session is the caller's own of its key: for the admin the default agent's, never another agent's row of the same key.
  const agentId = ctx.admin ? DEFAULT_AGENT : undefined;
  const session = await ctx.api.callOrNull('getSession', { params: { key: self }, query: { agentId } });
  const key = parentFromKey(self) ?? session?.parentSessionKey ?? session?.key ?? null;
  return key ? { key, agentId } : null;
}

/** The public name of a catalogue tool on a surface (error messages point the model at its siblings). */
export function toolName(id: string, surface: ToolSurface): string {
  const tool = TOOLS.find((t) => t.id === id);
  const face = tool?.[surface];
  if (!face) throw new Error(`no ${surface} tool ${id}`);
  return face.name;
}

const sessionKeyProperty: ToolProperty = { type: 'string' };
const currentSessionProperty: ToolProperty = { type: 'string', description: 'the calling session, when known' };

export const TOOLS: ToolDefinition[] = [
  {
    id: 'search',
    input: {
      query: { type: 'string', description: 'What to look for: words, "quoted phrases", -exclusions, prefix*, OR' },
      sessionKey: { type: 'string', description: 'Search only this session' },
      currentSessionKey: currentSessionProperty,
      project: { type: 'string', description: 'Only sessions of this project' },
      limit: { type: 'integer', minimum: 1, maximum: 20, description: 'At most this many sessions (1-20, default 5)' },
    },
    mcp: {
      name: 'session_search',
      description:
        'Full-text search over session transcripts (live ones included). With no sessionKey, a sub-agent searches its parent session; otherwise all sessions of the agent and project except the current one. Returns excerpts with hits marked [[like this]].',
      properties: ['query', 'sessionKey', 'currentSessionKey', 'project', 'limit'],
      required: ['query'],
    },
    lm: {
      name: 'baton_search_sessions',
      description:
        'Full-text search over the transcripts of the user\'s AI agent sessions recorded by Baton, including sessions still running. Use it to find what a parent or earlier session said or decided. Input: query (words, "quoted phrases", -exclusions, prefix*, OR), optional sessionKey to search one session, optional limit (1-20). Returns one line per matching session with its key and an excerpt, hits marked [[like this]].',
      properties: ['query', 'sessionKey', 'limit'],
      required: ['query'],
    },
    async run(args, ctx) {
      const query = args.query;
      if (typeof query !== 'string' || !query.trim()) throw new ToolInputError('Pass a non-empty "query": the words to look for in session transcripts.');
      const result = await ctx.api.call('search', {
        body: {
          query,
          sessionKey: str(args.sessionKey),
          currentSessionKey: str(args.currentSessionKey) ?? ctx.callerSession ?? undefined,
          project: str(args.project),
          limit: num(args.limit),
        },
      });
      if (result.hits.length === 0)
        return { text: `No session transcript matches ${JSON.stringify(query)}. Try fewer or different words.`, structured: structured(result) };
      return { text: formatHits(result.hits, HIT_FORMAT[ctx.surface]), structured: structured(result) };
    },
  },
  {
    id: 'transcript',
    input: {
      sessionKey: sessionKeyProperty,
      currentSessionKey: currentSessionProperty,
      maxChars: { type: 'integer', minimum: 100, maximum: 200_000, description: 'return at most this many characters, from the end (default 20000)' },
    },
    mcp: {
      name: 'session_transcript',
      description: "The stored transcript of a session (default: the caller's parent session), newest part when it is long.",
      properties: ['sessionKey', 'currentSessionKey', 'maxChars'],
    },
    async run(args, ctx) {
      const target = await targetSession(ctx, str(args.sessionKey), str(args.currentSessionKey));
      if (!target) throw new ToolInputError(NO_PARENT);
      const t = await ctx.api.call('transcript', { params: { key: target.key }, query: { agentId: target.agentId } });
      const max = num(args.maxChars) ?? 20_000;
      const content = t.content.length > max ? '…' + t.content.slice(t.content.length - max) : t.content;
      return { text: content, structured: { sessionKey: t.sessionKey, truncated: t.content.length > max, chars: t.content.length } };
    },
  },
  {
    id: 'inherited',
    input: {
      sessionKey: { type: 'string', description: 'The parent session' },
      currentSessionKey: currentSessionProperty,
      task: { type: 'string', description: "the task the block is for (at most 2,000 characters): the parent's turns are chosen for it" },
    },
    mcp: {
      name: 'inherited_context',
      description:
        "The 'Inherited from Parent Session' block a new sub-agent of a session receives (default: the caller's parent session); with a task, the parent's turns chosen for that task.",
      properties: ['sessionKey', 'currentSessionKey', 'task'],
    },
    lm: {
      name: 'baton_get_inherited_context',
      description:
        'Returns the "Inherited from Parent Session" block for a session: its latest checkpoint summary, the tail of its transcript since then, its focal entities and active constraints. Use it before working on a task delegated by that session. Input: sessionKey (find keys with baton_search_sessions); task (optional): the turns of that session most relevant to it are chosen.',
      properties: ['sessionKey', 'task'],
      required: ['sessionKey'],
    },
    async run(args, ctx) {
      const named = typeof args.sessionKey === 'string' && args.sessionKey.trim() ? args.sessionKey : undefined;
      const target = await targetSession(ctx, named, str(args.currentSessionKey));
      const search = toolName('search', ctx.surface);
      if (!target)
        throw new ToolInputError(ctx.surface === 'lm' ? `Pass "sessionKey": the parent session whose context you want (find keys with ${search}).` : NO_PARENT);
      const read = { params: { key: target.key }, query: { agentId: target.agentId } };
      if (!(await ctx.api.callOrNull('getSession', read))) throw new ToolInputError(`There is no session "${target.key}". Find the right key with ${search}.`);
      const task = str(args.task)?.trim().slice(0, 2000);
      const view = await ctx.api.call('inherited', { ...read, query: { ...read.query, ...(task ? { task } : {}) } });
      return {
        text: view.empty || !view.block ? `Session ${target.key} has nothing to inherit yet (no transcript or checkpoint).` : view.block,
        structured: { sessionKey: view.sessionKey, chars: view.chars, estimatedTokens: view.estimatedTokens },
      };
    },
  },
  {
    id: 'listSessions',
    input: { project: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 200 }, activeOnly: { type: 'boolean' } },
    mcp: {
      name: 'list_sessions',
      description: 'Recent sessions (newest first) with harness, status, parent, turn count, and spend (models, tokens, cost: own and with sub-agents).',
      properties: ['project', 'limit', 'activeOnly'],
    },
    async run(args, ctx) {
      const { sessions } = await ctx.api.call('listSessions', {
        query: { project: str(args.project), limit: String(num(args.limit) ?? 50), all: args.activeOnly === true ? undefined : '1' },
      });
      const lines = sessions.map(
        (s) =>
          `- ${s.key} ${s.harness} ${s.status}${s.parentSessionKey ? ` child of ${s.parentSessionKey}` : ''}, ${s.turnCount} turns, updated ${s.updatedAt}; ${spendLine(s.spend.total)}${s.childCount > 0 && s.spend.own !== null ? ` with sub-agents (own: ${spendLine(s.spend.own)})` : ''}`,
      );
      return {
        text: lines.join('\n') || 'No sessions.',
        structured: {
          sessions: sessions.map((s) => ({
            key: s.key,
            harness: s.harness,
            status: s.status,
            parentSessionKey: s.parentSessionKey,
            project: s.project,
            updatedAt: s.updatedAt,
            turnCount: s.turnCount,
            spend: s.spend,
          })),
        },
      };
    },
  },
  {
    id: 'subagents',
    input: { sessionKey: sessionKeyProperty, currentSessionKey: currentSessionProperty },
    mcp: {
      name: 'session_subagents',
      description:
        "What a session's sub-agents did: each one's type, task, status and a digest of its result (default: the calling session itself). Use it after a compaction to recall what your sub-agents found.",
      properties: ['sessionKey', 'currentSessionKey'],
    },
    async run(args, ctx) {
      const key = str(args.sessionKey) ?? str(args.currentSessionKey) ?? ctx.callerSession;
      if (!key) throw new ToolInputError('Name a sessionKey: this caller did not say which session it is.');
      // The calling session itself: the admin's is the default agent's of the key (see targetSession).
      const agentId = !str(args.sessionKey) && ctx.admin ? DEFAULT_AGENT : undefined;
      const result = await ctx.api.call('subagents', { params: { key }, query: { agentId } });
      return { text: result.text || `Session ${result.sessionKey} has no sub-agents.`, structured: structured(result) };
    },
  },
  // Constraints and entities by hand, as in `baton constraints` / `baton entities` (docs/inheritance.md).
  {
    id: 'listConstraints',
    input: {
      sessionKey: { type: 'string', description: 'one session (default: all readable ones)' },
      all: { type: 'boolean', description: 'include deactivated ones' },
    },
    mcp: {
      name: 'list_constraints',
      description: 'Constraints (rules every sub-agent of a session inherits, never cut by the budget), with where each came from.',
      properties: ['sessionKey', 'all'],
    },
    async run(args, ctx) {
      const r = await ctx.api.call('listConstraints', { query: { sessionKey: str(args.sessionKey), all: args.all === true ? '1' : undefined } });
      const lines = r.constraints.map((c) => `- #${c.id} ${c.active ? '' : '(inactive) '}${c.entity}: ${c.content} [${c.sessionKey ?? '-'}]`);
      return { text: lines.join('\n') || 'No constraints.', structured: structured(r) };
    },
  },
  {
    id: 'addConstraint',
    input: {
      content: { type: 'string', description: 'the rule, e.g. "never drop the users table"' },
      sessionKey: sessionKeyProperty,
      currentSessionKey: currentSessionProperty,
      entity: { type: 'string', description: 'what it is about (default "rules")' },
    },
    mcp: {
      name: 'add_constraint',
      description: 'Adds a rule every sub-agent of the session must follow (default session: the calling one).',
      properties: ['content', 'sessionKey', 'currentSessionKey', 'entity'],
      required: ['content'],
    },
    async run(args, ctx) {
      const c = await ctx.api.call('addConstraint', {
        body: { content: String(args.content), sessionKey: callingSession(args, ctx), entity: str(args.entity) },
      });
      return { text: `Added constraint #${c.id} to ${c.sessionKey ?? 'the agent'}.`, structured: structured(c) };
    },
  },
  {
    id: 'editConstraint',
    input: {
      id: { type: 'integer', minimum: 1 },
      content: { type: 'string' },
      active: { type: 'boolean' },
      importance: { type: 'number', minimum: 0, maximum: 1 },
    },
    mcp: {
      name: 'edit_constraint',
      description: "Changes a constraint's text or importance, or deactivates (active: false) / reactivates it.",
      properties: ['id', 'content', 'active', 'importance'],
      required: ['id'],
    },
    async run(args, ctx) {
      const c = await ctx.api.call('editConstraint', {
        params: { id: String(args.id) },
        body: { content: str(args.content), active: typeof args.active === 'boolean' ? args.active : undefined, importance: num(args.importance) },
      });
      return { text: `Constraint #${c.id} is ${c.active ? 'active' : 'inactive'}: ${c.content}`, structured: structured(c) };
    },
  },
  {
    id: 'listEntities',
    input: { sessionKey: sessionKeyProperty, all: { type: 'boolean', description: 'include deactivated ones' } },
    mcp: {
      name: 'list_entities',
      description: 'Entities (files, symbols, services, tickets) a session keeps in focus, or all readable ones.',
      properties: ['sessionKey', 'all'],
    },
    async run(args, ctx) {
      const r = await ctx.api.call('listEntities', { query: { sessionKey: str(args.sessionKey), all: args.all === true ? '1' : undefined } });
      const lines = r.entities.map((e) => `- #${e.id} ${e.active ? '' : '(inactive) '}${e.name} (${e.kind})${e.description ? `: ${e.description}` : ''}`);
      return { text: lines.join('\n') || 'No entities.', structured: structured(r) };
    },
  },
  {
    id: 'addEntity',
    input: {
      name: { type: 'string' },
      kind: { type: 'string' },
      description: { type: 'string' },
      sessionKey: sessionKeyProperty,
      currentSessionKey: currentSessionProperty,
    },
    mcp: {
      name: 'add_entity',
      description: "Adds an entity (or changes the one of that name); with a session, keeps it in that session's focus for its sub-agents.",
      properties: ['name', 'kind', 'description', 'sessionKey', 'currentSessionKey'],
      required: ['name'],
    },
    async run(args, ctx) {
      const e = await ctx.api.call('addEntity', {
        body: { name: String(args.name), kind: str(args.kind), description: str(args.description), sessionKey: callingSession(args, ctx) },
      });
      return { text: `Entity #${e.id} ${e.name} is ${e.active ? 'active' : 'inactive'}.`, structured: structured(e) };
    },
  },
  {
    id: 'editEntity',
    input: {
      id: { type: 'integer', minimum: 1 },
      name: { type: 'string' },
      kind: { type: 'string' },
      description: { type: 'string' },
      active: { type: 'boolean' },
    },
    mcp: {
      name: 'edit_entity',
      description: 'Renames or describes an entity, or deactivates (active: false) / reactivates it; a deactivated entity never becomes focal.',
      properties: ['id', 'name', 'kind', 'description', 'active'],
      required: ['id'],
    },
    async run(args, ctx) {
      const e = await ctx.api.call('editEntity', {
        params: { id: String(args.id) },
        body: {
          name: str(args.name),
          kind: str(args.kind),
          description: str(args.description),
          active: typeof args.active === 'boolean' ? args.active : undefined,
        },
      });
      return { text: `Entity #${e.id} ${e.name} is ${e.active ? 'active' : 'inactive'}.`, structured: structured(e) };
    },
  },
  // Memories (docs/memory.md, "The doors"): over POST /api/memory/recall and POST /api/hooks/remember.
  {
    id: 'memorySearch',
    input: {
      query: { type: 'string', description: 'What to recall: words of the memory, its type (decision, constraint, preference, fact) or tags' },
      sessionKey: { type: 'string', description: 'The session whose context receives the memories: each is then returned once per context epoch' },
      project: { type: 'string', description: "Only this project's memories" },
      limit: { type: 'integer', minimum: 1, maximum: 50, description: 'At most this many memories (1-50, default 10)' },
    },
    mcp: {
      name: 'memory_search',
      description:
        'Recalls memories Baton kept (decisions, constraints, preferences, facts, open questions, and what was stored with memory_store), best first. The same recall the hooks inject.',
      properties: ['query', 'sessionKey', 'project', 'limit'],
      required: ['query'],
    },
    async run(args, ctx) {
      const query = args.query;
      if (typeof query !== 'string' || !query.trim()) throw new ToolInputError('Pass a non-empty "query": the words of the memories to recall.');
      const result = await ctx.api.call('memoryRecall', {
        body: { query, sessionKey: str(args.sessionKey), project: str(args.project), limit: num(args.limit) },
      });
      if (result.count === 0) return { text: `No memory matches ${JSON.stringify(query)}.`, structured: structured(result) };
      return { text: result.message, structured: structured(result) };
    },
  },
  {
    id: 'memoryStore',
    input: {
      content: { type: 'string', description: 'The memory, self-contained (it is read without this conversation)' },
      type: { type: 'string', description: 'decision, constraint, preference, fact, open-question, or a type of your own' },
      tags: { type: 'string', description: 'Comma-separated tags (files, symbols, topics)' },
      importance: { type: 'number', minimum: 0, maximum: 1, description: '0-1, default 0.8' },
      project: { type: 'string', description: 'The project it is about' },
      sessionKey: { type: 'string', description: 'The session it came from (default: the calling one)' },
      currentSessionKey: currentSessionProperty,
    },
    mcp: {
      name: 'memory_store',
      description: 'Keeps a memory for later sessions and sub-agents: memory_search and the hooks recall it.',
      properties: ['content', 'type', 'tags', 'importance', 'project', 'sessionKey', 'currentSessionKey'],
      required: ['content'],
    },
    async run(args, ctx) {
      const content = args.content;
      if (typeof content !== 'string' || !content.trim()) throw new ToolInputError('Pass a non-empty "content": the memory to keep.');
      const result = await ctx.api.call('remember', {
        body: {
          harness: 'mcp',
          content,
          type: str(args.type),
          tags: str(args.tags),
          importance: num(args.importance),
          project: str(args.project),
          sessionKey: callingSession(args, ctx),
        },
      });
      if (!result.success) return { text: 'Not stored: recording is turned off for this session (bypassed).', structured: structured(result) };
      return { text: `Stored memory ${result.memoryId}.`, structured: structured(result) };
    },
  },
  // Answered by the VS Code host: they need the window's language models and run manager.
  {
    id: 'spawn',
    input: {
      task: { type: 'string', description: 'What the sub-agent should do, self-contained' },
      parentSessionKey: { type: 'string', description: 'The session whose context the sub-agent inherits' },
      mode: { type: 'string', enum: ['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK'] },
      specId: { type: 'string', description: 'Groups runs of the same kind of task' },
      files: { type: 'array', items: { type: 'string' }, description: 'Files the task is about' },
      runner: {
        type: 'string',
        enum: ['vscode-lm', 'external'],
        description: 'vscode-lm (default): a VS Code language model; external: the CLI set in baton.subagents.externalCommand, started with AGENT_SESSION_ID',
      },
      tools: {
        type: 'array',
        items: { type: 'string' },
        description:
          'Tools the sub-agent may call, by name as in vscode.lm.tools (vscode-lm runner only). Only tools you may use yourself are granted, never baton_spawn_subagent; refused names are listed in the result',
      },
      toolPreset: {
        type: 'string',
        enum: TOOL_PRESET_NAMES,
        description:
          "none (default): no tools, unless the setting baton.subagents.defaultTools grants some; read-only: Baton's read tools (baton_search_sessions, baton_get_inherited_context, baton_get_run_status). Combines with tools",
      },
    },
    lm: {
      name: 'baton_spawn_subagent',
      description:
        'Runs a self-contained task in a new sub-agent (a VS Code language model, or the configured external CLI with runner "external") that starts with the inherited context of parentSessionKey, and records the run. mode SYNC (default) waits and returns the answer; ASYNC_POLL returns a run id to check with baton_get_run_status; ASYNC_CALLBACK delivers the result into the parent session when done. The sub-agent has no tools unless granted with tools or toolPreset. Needs the user\'s confirmation and the setting baton.subagents.enabled.',
      properties: ['task', 'parentSessionKey', 'mode', 'specId', 'files', 'runner', 'tools', 'toolPreset'],
      required: ['task'],
    },
  },
  {
    id: 'querySubagent',
    input: { id: { type: 'string', description: 'The sub-agent session key' }, prompt: { type: 'string', description: 'The question' } },
    lm: {
      name: 'baton_query_subagent',
      description:
        'Asks a question to a sub-agent, answered from that sub-agent\'s full transcript. Use it for the holders listed under "Live Subagents" (archived turns) to recover details the summary left out. Input: id (the sub-agent session key), prompt (the question).',
      properties: ['id', 'prompt'],
      required: ['id', 'prompt'],
    },
  },
  {
    id: 'runStatus',
    input: { runId: { type: 'string', description: 'The run id' } },
    lm: {
      name: 'baton_get_run_status',
      description:
        "Returns a sub-agent run's status (pending, running, completed, failed), its session, parent, duration, tokens, and its result or error. Input: runId (returned by baton_spawn_subagent).",
      properties: ['runId'],
      required: ['runId'],
    },
  },
];

/** The session a write defaults to: the one named, else the calling one. */
function callingSession(args: Args, ctx: ToolContext): string | undefined {
  return str(args.sessionKey) ?? str(args.currentSessionKey) ?? ctx.callerSession ?? undefined;
}

/** The tools a surface offers, with their face on it. */
export function toolsOf(surface: ToolSurface): Array<ToolDefinition & { face: ToolFace }> {
  return TOOLS.flatMap((tool) => (tool[surface] ? [{ ...tool, face: tool[surface] }] : []));
}

/** A tool's input as JSON Schema on one surface (what package.json's languageModelTools carries). */
export function inputSchemaOf(tool: ToolDefinition, surface: ToolSurface): { type: 'object'; properties: Record<string, ToolProperty>; required?: string[] } {
  const face = tool[surface];
  if (!face) throw new Error(`${tool.id} is not a ${surface} tool`);
  const properties = Object.fromEntries(face.properties.map((name) => [name, tool.input[name]]));
  return { type: 'object', properties, ...(face.required?.length ? { required: face.required } : {}) };
}
