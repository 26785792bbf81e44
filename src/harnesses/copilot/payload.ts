// What VS Code agent mode's hooks send (docs/harnesses.md, "VS Code agent mode"), and how to tell
// it from Claude Code's payload: VS Code also runs the hooks of `.claude/settings.json` once the
// user turns on `chat.useClaudeHooks`, so Baton's Claude Code hook command can receive them.

export interface CopilotPayload {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  timestamp?: string;
  model?: string;
  source?: string;
  prompt?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  agent_id?: string;
  agent_type?: string;
  last_assistant_message?: string;
  stop_hook_active?: boolean;
}

/** `sessionId` → `session_id`: VS Code's documentation spells the fields camelCase. */
function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

/** The payload with every camelCase field also under its snake_case name (a snake_case field wins). */
export function normalizeCopilotPayload(raw: Record<string, unknown>): CopilotPayload {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const alias = snake(name);
    if (alias !== name && !(alias in raw)) out[alias] = value;
  }
  return { ...out, ...raw } as CopilotPayload;
}

/** Where VS Code keeps agent mode's hook transcripts: …/GitHub.copilot-chat/transcripts/<id>.jsonl. */
const TRANSCRIPT_DIR = /[\\/]github\.copilot-chat[\\/]transcripts[\\/][^\\/]+$/i;

/** VS Code's tool call ids: `call_…__vscode-<n>` (the suffix numbers the call in the window). */
const VSCODE_CALL_ID = /__vscode-\d+$/;

/**
 * True for a payload from VS Code agent mode: its transcript location, its camelCase spelling, or
 * VS Code's tool call ids. Claude Code's own payloads have none of these.
 */
export function isCopilotPayload(raw: Record<string, unknown>): boolean {
  const p = normalizeCopilotPayload(raw);
  if (typeof p.transcript_path === 'string' && TRANSCRIPT_DIR.test(p.transcript_path)) return true;
  if (typeof raw.hookEventName === 'string' || typeof raw.sessionId === 'string') return true;
  return typeof p.tool_use_id === 'string' && VSCODE_CALL_ID.test(p.tool_use_id);
}

/** The sub-agent's id in SubagentStart/Stop (`agent_id`) from its runSubagent call id: the suffix stripped. */
export function subagentCallId(toolUseId: string): string {
  return toolUseId.replace(VSCODE_CALL_ID, '');
}

/** The text of a tool's response: a string, text parts, or `{content}`; JSON otherwise. */
export function responseText(response: unknown): string | undefined {
  if (response === undefined || response === null) return undefined;
  if (typeof response === 'string') return response;
  if (Array.isArray(response)) {
    const parts = response.map((p) => responseText(p) ?? '').filter((t) => t.trim() !== '');
    return parts.length ? parts.join('\n') : undefined;
  }
  if (typeof response === 'object') {
    const o = response as Record<string, unknown>;
    for (const field of ['text', 'value', 'content', 'result']) {
      const inner = o[field];
      if (inner !== undefined && inner !== null) return responseText(inner);
    }
  }
  return JSON.stringify(response);
}

/** A runSubagent call's task: `tool_input: {prompt, description, agentName?}` (a JSON string is accepted too). */
export function subagentTask(input: unknown): { prompt?: string; description?: string; agentName?: string } {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { prompt: value as string };
    }
  }
  const o = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);
  return { prompt: str(o.prompt), description: str(o.description), agentName: str(o.agentName) ?? str(o.agent_name) ?? str(o.agent) };
}

/** Prompts compared the way VS Code may reformat them: whitespace runs collapsed, ends trimmed. */
export function samePrompt(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  return norm(a) === norm(b);
}
