// Which tools a spawned language-model sub-agent may use (docs/runs.md, "Tools of a sub-agent").
// Deny by default: a child gets only the tools its spawn grants (the call's `tools` and
// `toolPreset`, else the setting baton.subagents.defaultTools), and of those only the ones its
// caller may use itself. Every refused name is reported with its reason, never dropped silently.
// Pure, so the rules are tested without VS Code.

/** The language-model tool that spawns sub-agents: never granted to one (a child could spawn children without bound). */
export const SPAWN_TOOL = 'baton_spawn_subagent';

/** Baton's own read tools: search, inherited context, a run's status. They read the store and change nothing. */
export const READ_ONLY_TOOLS = ['baton_search_sessions', 'baton_get_inherited_context', 'baton_get_run_status'] as const;

/** Named sets of tools a spawn can ask for instead of (or beside) a list. */
export const TOOL_PRESETS = { none: [] as readonly string[], 'read-only': READ_ONLY_TOOLS as readonly string[] } as const;
export type ToolPreset = keyof typeof TOOL_PRESETS;
export const TOOL_PRESET_NAMES = Object.keys(TOOL_PRESETS) as ToolPreset[];

/** Bounds of an explicit list: a grant is a handful of names, not a payload. */
export const MAX_GRANTED_TOOLS = 64;
export const MAX_TOOL_NAME_LENGTH = 128;

/** A spawn's `tools` or `toolPreset` that cannot be read; its message says what to pass. */
export class ToolGrantInputError extends Error {}

export interface ToolGrantRequest {
  /** Tool names, as in vscode.lm.tools. */
  tools?: string[];
  toolPreset?: ToolPreset;
}

/** Reads a spawn's `tools` and `toolPreset` (untrusted model input); throws a ToolGrantInputError saying what to pass. */
export function parseToolGrantRequest(input: { tools?: unknown; toolPreset?: unknown }): ToolGrantRequest {
  const request: ToolGrantRequest = {};
  if (input.toolPreset !== undefined && input.toolPreset !== null) {
    if (typeof input.toolPreset !== 'string' || !(TOOL_PRESET_NAMES as string[]).includes(input.toolPreset))
      throw new ToolGrantInputError(`"toolPreset" must be one of ${TOOL_PRESET_NAMES.join(', ')} (got ${JSON.stringify(input.toolPreset)}).`);
    request.toolPreset = input.toolPreset as ToolPreset;
  }
  if (input.tools !== undefined && input.tools !== null) {
    const tools = input.tools;
    if (
      !Array.isArray(tools) ||
      tools.length > MAX_GRANTED_TOOLS ||
      !tools.every((t) => typeof t === 'string' && t.trim().length > 0 && t.length <= MAX_TOOL_NAME_LENGTH)
    )
      throw new ToolGrantInputError(
        `"tools" must be a list of at most ${MAX_GRANTED_TOOLS} tool names (as in vscode.lm.tools, each 1 to ${MAX_TOOL_NAME_LENGTH} characters).`,
      );
    request.tools = (tools as string[]).map((t) => t.trim());
  }
  return request;
}

export interface ToolGrantContext {
  /** The tools the caller may use itself: the names in vscode.lm.tools. */
  available: readonly string[];
  /** baton.subagents.defaultTools: the grant when the spawn asks for none. */
  defaultGrant: readonly string[];
  /** Whether the workspace is trusted; in Restricted Mode only READ_ONLY_TOOLS and the default grant can be granted. */
  trusted: boolean;
}

export interface RefusedTool {
  tool: string;
  reason: string;
}

export interface ToolGrant {
  /** Where the asked-for names came from: the spawn's input, the setting, or nowhere (no tools, as before). */
  source: 'request' | 'setting' | 'none';
  /** Every name asked for, once, in order. */
  requested: string[];
  granted: string[];
  refused: RefusedTool[];
}

/** Why the caller may not pass a tool on, or null when it may. */
function refusal(tool: string, context: ToolGrantContext): string | null {
  if (tool === SPAWN_TOOL) return 'a sub-agent cannot spawn sub-agents (that could recurse without bound)';
  if (!context.available.includes(tool)) return 'no such tool is available here (not in vscode.lm.tools)';
  if (!context.trusted && !(READ_ONLY_TOOLS as readonly string[]).includes(tool) && !context.defaultGrant.includes(tool))
    return "Restricted Mode: only Baton's read tools and those the user's setting baton.subagents.defaultTools names can be granted";
  return null;
}

/** The tools a sub-agent gets: what its spawn (else the setting) asks for, minus what its caller may not use. */
export function resolveToolGrant(request: ToolGrantRequest, context: ToolGrantContext): ToolGrant {
  const asked = request.tools !== undefined || request.toolPreset !== undefined;
  const source: ToolGrant['source'] = asked ? 'request' : context.defaultGrant.length ? 'setting' : 'none';
  const names = asked ? [...TOOL_PRESETS[request.toolPreset ?? 'none'], ...(request.tools ?? [])] : [...context.defaultGrant];
  const requested = [...new Set(names)];
  const granted: string[] = [];
  const refused: RefusedTool[] = [];
  for (const tool of requested) {
    const reason = refusal(tool, context);
    if (reason) refused.push({ tool, reason });
    else granted.push(tool);
  }
  return { source, requested, granted, refused };
}

/** The grant as the caller reads it in the spawn's result; '' when nothing was asked for (no tools, as before). */
export function describeToolGrant(grant: ToolGrant): string {
  if (grant.source === 'none') return '';
  const from = grant.source === 'setting' ? ' (from baton.subagents.defaultTools)' : '';
  const lines = [`Tools granted to the sub-agent${from}: ${grant.granted.length ? grant.granted.join(', ') : 'none'}.`];
  if (grant.refused.length) lines.push(`Refused: ${grant.refused.map((r) => `${r.tool} (${r.reason})`).join('; ')}.`);
  return lines.join('\n');
}
