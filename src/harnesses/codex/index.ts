// Codex (docs/harnesses.md): Claude-style hook command in $CODEX_HOME/hooks.json, rollout JSONL
// transcripts under $CODEX_HOME/sessions, MCP server in $CODEX_HOME/config.toml. User scope only.

import * as path from 'node:path';
import type { Harness } from '../harness';
import { codexHooks, HARNESS } from './hooks';
import { defaultCodexSessionsDir, importCodex } from './import';
import { codexConfigPath, codexHome, installCodex, registerCodexMcp, uninstallCodex, unregisterCodexMcp } from './install';
import { trustCodexHooks, type TrustOutcome } from './trust';
import { CODEX_JSONL, codexTranscript } from './transcript';
import type { HarnessLineage } from '../../core/lineage';

// Codex's lineage signals (docs/harnesses.md): SubagentStart carries the root session_id and the
// child's own rollout, whose session_meta names the spawning thread (`parent_thread_id`); the hook
// mapping sends it as the explicit parent, and again at SubagentStop (re-parenting, recorded as
// 'codex-subagent'). No recency fallback.
export const codexLineage: HarnessLineage = {
  reparentSource: 'codex-subagent',
};

function trustMessage(t: TrustOutcome): string {
  const how =
    t.source === 'codex'
      ? t.verified
        ? "keys and hashes from Codex's app-server, which now reports them trusted"
        : `keys and hashes from Codex's app-server; ${t.note ?? 'not verified'}`
      : `hashes computed as Codex does; ${t.note ?? 'not verified with Codex'}`;
  return `Trusted Baton's ${t.entries.length} Codex hooks (hooks.state in ${t.file}; ${how})`;
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
  hooks: codexHooks,
  importer: {
    description: 'import Codex sessions and their sub-agents from its rollout files',
    label: 'Codex',
    source: { as: 'argument', help: 'the sessions folder (default: $CODEX_HOME/sessions or ~/.codex/sessions)' },
    defaultSource: () => defaultCodexSessionsDir(),
    run: (source, io) => importCodex({ ...io, sessionsDir: source ?? defaultCodexSessionsDir() }),
  },
  install: {
    scopes: ['user'],
    async install(ctx) {
      const result = installCodex(ctx.command);
      const mcp = registerCodexMcp(ctx.command);
      const messages = [
        `Installed Baton hooks (${result.events.join(', ')}) in ${result.file}`,
        mcp.registered ? `Registered the Baton MCP server in ${mcp.file}` : `Left the MCP servers in ${mcp.file} alone: ${mcp.reason}`,
      ];
      let trust: TrustOutcome | undefined;
      if (ctx.trustHooks === false) {
        messages.push(
          "Left Codex's hook trust alone (--no-trust): Codex skips untrusted hooks silently, so trust Baton's in Codex's /hooks menu, run `baton install codex` without --no-trust, or run codex with --dangerously-bypass-hook-trust.",
        );
      } else {
        trust = await trustCodexHooks({ hooksFile: result.file, configFile: codexConfigPath(), home: codexHome(), harness: HARNESS });
        messages.push(trustMessage(trust));
      }
      return { ...result, mcpFile: mcp.file, trust, messages };
    },
    uninstall() {
      const result = uninstallCodex();
      const messages = result.trustRemoved ? [`Removed Codex's trust of Baton's hooks from ${codexConfigPath()}`] : [];
      if (unregisterCodexMcp()) messages.push('Removed the Baton MCP server from Codex');
      return { file: result.file, removed: result.removed, messages };
    },
    menu: [{ label: 'Codex — user hooks ($CODEX_HOME/hooks.json)', description: 'and the MCP server in $CODEX_HOME/config.toml', scope: 'user' }],
    notice: ' Baton recorded that Codex trusts them.',
    neverFiredHint:
      'No Codex hook has reached Baton: Codex skips hooks it does not trust, silently. Run `baton install codex` again (it records the trust of the hooks it writes; not with --no-trust), or trust them in Codex.',
  },
};
