// Codex (docs/harnesses.md): Claude-style hook command in $CODEX_HOME/hooks.json, rollout JSONL
// transcripts under $CODEX_HOME/sessions, MCP server in $CODEX_HOME/config.toml. User scope only.

import * as path from 'node:path';
import * as fs from 'node:fs';
import { CLAUDE_STYLE_EVENTS, handleClaudeStyleEvent, type ClaudeStylePayload, type ClaudeStyleQuirks } from '../claudeStyleHooks';
import type { ApiPoster, Harness, HookOutput, HookRun } from '../harness';
import { codexHome, HARNESS, installCodex, registerCodexMcp, uninstallCodex, unregisterCodexMcp } from './install';
import { CODEX_JSONL, codexTranscript } from './transcript';
import type { HarnessLineage } from '../../core/lineage';

// Codex's lineage signals (docs/harnesses.md): SubagentStart carries the root session_id and the
// child's own rollout, whose session_meta names the spawning thread (`parent_thread_id`); the hook
// mapping sends it as the explicit parent, and again at SubagentStop (re-parenting, recorded as
// 'codex-subagent'). No recency fallback.
export const codexLineage: HarnessLineage = {
  reparentSource: 'codex-subagent',
};

// The hook mapping: Claude Code's shape, with Codex's quirks for the shared flow
// (claudeStyleHooks.ts): SubagentStart carries the *child's* rollout, whose first line
// (session_meta) names the spawning thread of a nested sub-agent.
function firstLine(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split('\n')[0];
  } finally {
    fs.closeSync(fd);
  }
}

/** The spawner of a nested sub-agent: the rollout's session_meta `parent_thread_id`, unless it is the root. */
function spawnerOf(sessionId: string, agentTranscriptPath: string | undefined): string | null {
  if (!agentTranscriptPath) return null;
  try {
    const meta = JSON.parse(firstLine(agentTranscriptPath)) as { type?: string; payload?: { parent_thread_id?: unknown } };
    const parent = meta.type === 'session_meta' ? meta.payload?.parent_thread_id : undefined;
    return typeof parent === 'string' && parent && parent !== sessionId ? parent : null;
  } catch {
    return null;
  }
}

const quirks: ClaudeStyleQuirks = { harness: HARNESS, subagentStartTranscript: 'child', spawnerOf };

export function handleCodexEvent(payload: ClaudeStylePayload, client: ApiPoster, run?: HookRun): Promise<HookOutput | null> {
  return handleClaudeStyleEvent(quirks, payload, client, run);
}

export const codex: Harness = {
  id: HARNESS,
  displayName: 'Codex',
  transcripts: {
    parser: codexTranscript,
    fallbackFormat: CODEX_JSONL,
    matchesName: (name) => name.toLowerCase().includes('codex'),
    roots: (env, home) => [path.join(codexHome(env, home), 'sessions')],
  },
  lineage: codexLineage,
  hooks: {
    events: CLAUDE_STYLE_EVENTS,
    handle: (payload, client, run) => handleCodexEvent(payload as ClaudeStylePayload, client, run),
  },
  install: {
    scopes: ['user'],
    install(ctx) {
      const result = installCodex(ctx.command);
      const mcp = registerCodexMcp(ctx.command);
      const messages = [
        `Installed Baton hooks (${result.events.join(', ')}) in ${result.file}`,
        mcp.registered ? `Registered the Baton MCP server in ${mcp.file}` : `Left the MCP servers in ${mcp.file} alone: ${mcp.reason}`,
        'Codex runs only hooks you trust: review and trust them in Codex (or run codex with --dangerously-bypass-hook-trust).',
      ];
      return { ...result, mcpFile: mcp.file, messages };
    },
    uninstall() {
      const result = uninstallCodex();
      return { ...result, messages: unregisterCodexMcp() ? ['Removed the Baton MCP server from Codex'] : [] };
    },
    menu: [{ label: 'Codex — user hooks ($CODEX_HOME/hooks.json)', description: 'and the MCP server in $CODEX_HOME/config.toml', scope: 'user' }],
    notice: ' Trust them in Codex before they run.',
    neverFiredHint:
      'No Codex hook has reached Baton: Codex skips hooks it does not trust, silently. Run `baton install codex` (it records the trust of the hooks it writes), or trust them in Codex.',
  },
};
