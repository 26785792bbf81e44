// Claude Code (docs/harnesses.md): hook command (or HTTP hooks) for every event, JSONL transcripts
// under $CLAUDE_CONFIG_DIR/projects, MCP server in .mcp.json / ~/.claude.json.

import * as path from 'node:path';
import { claudeCodeHookBody } from '../../api/schemas/hooks';
import type { Harness } from '../harness';
import { claudeCodeHooks, HARNESS } from './hooks';
import { defaultClaudeProjectsDir, importClaudeCode, scanClaudeProjects } from './import';
import { claudeConfigDir, installClaudeCode, uninstallClaudeCode, type InstallTarget } from './install';
import { CLAUDE_CODE_JSONL, claudeCodeTranscript } from './transcript';
import type { HarnessLineage } from '../../core/lineage';

function target(scope: 'project' | 'user', projectDir: string | undefined): InstallTarget {
  return scope === 'user' ? { scope: 'user' } : { scope: 'project', projectDir };
}

/** The root session with the most sub-agents: the one to open first. */
function featuredSession(projectsDir: string): string | null {
  const counts = new Map<string, number>();
  for (const item of scanClaudeProjects(projectsDir)) counts.set(item.sessionId, (counts.get(item.sessionId) ?? 0) + (item.depth > 0 ? 1 : 0));
  let best: string | null = null;
  for (const [key, n] of counts) if (best === null || n > counts.get(best)!) best = key;
  return best;
}

// Claude Code's lineage signals (docs/harnesses.md): SubagentStart carries the parent's session_id
// (the hook mapping sends it as the explicit parent); a sub-agent's agent-<id>.meta.json names its
// spawner (`parentAgentId`), sent at SubagentStop; a sub-agent that arrives with only its agent id
// falls back to the most recent session of the same project.
export const claudeCodeLineage: HarnessLineage = {
  decide: (input) => (input.harnessAgentId ? { kind: 'recency' } : null),
  reparentSource: 'claude-code-subagent',
};

export const claudeCode: Harness = {
  id: HARNESS,
  displayName: 'Claude Code',
  transcripts: {
    parser: claudeCodeTranscript,
    fallbackFormat: CLAUDE_CODE_JSONL,
    matchesName: (name) => name.toLowerCase().includes('claude'),
    roots: (env, home) => [path.join(claudeConfigDir(env, home), 'projects')],
  },
  lineage: claudeCodeLineage,
  hooks: claudeCodeHooks,
  // Claude Code POSTs its hooks to Baton itself, where it honours HTTP hooks (the default install).
  httpHooks: true,
  hookBody: claudeCodeHookBody,
  importer: {
    description: 'import Claude Code sessions and their sub-agents from its projects folder',
    label: 'Claude Code',
    source: { as: 'argument', help: 'the projects folder (default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects)' },
    defaultSource: () => defaultClaudeProjectsDir(),
    run: (source, io) => importClaudeCode({ ...io, projectsDir: source ?? defaultClaudeProjectsDir() }),
    // The demo's featured session is the Claude Code story's: its lineage is the deepest.
    featured: featuredSession,
  },
  install: {
    scopes: ['project', 'user'],
    async install(ctx) {
      const result = await installClaudeCode(target(ctx.scope, ctx.projectDir), ctx.command, ctx.http);
      const command = result.events.filter((e) => !result.httpEvents.includes(e));
      const messages = [
        result.httpEvents.length
          ? `Installed Baton hooks in ${result.file}: HTTP hooks to ${ctx.http!.url} (${result.httpEvents.join(', ')}), the hook command (${command.join(', ')})`
          : `Installed Baton hooks (${result.events.join(', ')}) in ${result.file}`,
        `Registered the Baton MCP server in ${result.mcpFile}`,
      ];
      if (result.tokenFile) messages.push(`Wrote the hooks token (${ctx.http!.tokenEnvVar}, permission hooks) to ${result.tokenFile}`);
      if (result.gitExclude === 'excluded') messages.push(`Kept ${result.tokenFile} out of git (its path is in the clone's .git/info/exclude)`);
      if (result.gitExclude === 'not-a-repo') messages.push(`${result.tokenFile} holds a token: keep it out of version control`);
      if (ctx.http && !result.tokenFile)
        messages.push(`Create the token with \`baton token create --agent default --permissions hooks\` and export it as ${ctx.http.tokenEnvVar}.`);
      return { ...result, messages };
    },
    uninstall(ctx) {
      return { ...uninstallClaudeCode(target(ctx.scope, ctx.projectDir)), messages: [] };
    },
    menu: [
      { label: 'Claude Code — this workspace', description: '.claude/settings.json and .mcp.json', scope: 'project' },
      { label: 'Claude Code — all projects (user settings)', description: '$CLAUDE_CONFIG_DIR/settings.json', scope: 'user' },
    ],
  },
};
