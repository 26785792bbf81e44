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
  info?: { role?: string; time?: { created?: number } };
  parts?: OpenCodePart[];
}

/** A message list Baton reads as OpenCode ([{info, parts}]), without what it would drop anyway. */
export function slimMessages(messages: OpenCodeMessage[]): OpenCodeMessage[] {
  return messages.map((m) => ({
    info: { role: m.info && m.info.role, time: { created: m.info && m.info.time && m.info.time.created } },
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
