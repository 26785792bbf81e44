// OpenCode's messages as Baton receives them: the plugin (plugin.ts) and `baton import opencode`
// (import.ts) both reduce OpenCode's `{info, parts}` messages with slimMessages, so a session gives
// the same list, and so the same turns, whichever of the two sends it. The server then finds the
// turns it already holds (docs/storage.md): an import after the live plugin, or the plugin after
// an import, adds none twice. Bundled into the plugin: no imports.

/** A part, as far as Baton reads it (v2 SDK shapes; docs/harnesses.md). */
export interface OpenCodePart {
  type?: string;
  text?: string;
  synthetic?: boolean;
  ignored?: boolean;
  tool?: string;
  state?: { input?: unknown; output?: unknown; error?: unknown };
}

/** A message with its parts: what `client.session.messages` answers and `opencode export` prints. */
export interface OpenCodeMessage {
  info?: {
    role?: string;
    time?: { created?: number; completed?: number };
    /** An assistant message's request (docs/harnesses.md, "Spend"): its id, model, tokens and cost. */
    id?: string;
    modelID?: string;
    tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
    cost?: number;
  };
  parts?: OpenCodePart[];
}

/** A message list Baton reads as OpenCode ([{info, parts}]), without what it would drop anyway. */
export function slimMessages(messages: OpenCodeMessage[]): OpenCodeMessage[] {
  return messages.map((m) => ({
    info: slimInfo(m.info || {}),
    parts: (Array.isArray(m.parts) ? m.parts : []).flatMap((p): OpenCodePart[] => {
      if (p && p.type === 'text' && !p.synthetic && !p.ignored) return [{ type: 'text', text: p.text }];
      if (p && p.type === 'tool') {
        const s = p.state || {};
        return [{ type: 'tool', tool: p.tool, state: { input: s.input, output: s.output, error: s.error } }];
      }
      return []; // reasoning, step markers, files, patches, snapshots
    }),
  }));
}

/** The fields of a message's info Baton reads: role and times, and an assistant's request (its usage, core/normalize.ts). */
function slimInfo(info: NonNullable<OpenCodeMessage['info']>): NonNullable<OpenCodeMessage['info']> {
  const time = info.time || {};
  const slim: NonNullable<OpenCodeMessage['info']> = { role: info.role, time: { created: time.created } };
  if (info.role !== 'assistant') return slim;
  if (time.completed !== undefined) slim.time = { created: time.created, completed: time.completed };
  if (info.id !== undefined) slim.id = info.id;
  if (info.modelID !== undefined) slim.modelID = info.modelID;
  if (info.tokens !== undefined) slim.tokens = info.tokens;
  if (info.cost !== undefined) slim.cost = info.cost;
  return slim;
}
