// Codex (docs/harnesses.md): Claude-style hook command in $CODEX_HOME/hooks.json, rollout JSONL
// transcripts under $CODEX_HOME/sessions, MCP server in $CODEX_HOME/config.toml. User scope only.

import * as path from 'node:path';
import type { ClaudeStylePayload } from '../claudeStyleHooks';
import { CLAUDE_STYLE_EVENTS } from '../claudeStyleHooks';
import type { Harness } from '../harness';
import { handleCodexEvent, HARNESS } from './hooks';
import { codexHome, installCodex, registerCodexMcp, uninstallCodex, unregisterCodexMcp } from './install';
import { codexLineage } from './lineage';
import { CODEX_JSONL, codexTranscript } from './transcript';

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
    handle: (payload, client) => handleCodexEvent(payload as ClaudeStylePayload, client),
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
  },
};
