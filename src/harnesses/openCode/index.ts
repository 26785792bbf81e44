// OpenCode (docs/harnesses.md): no hook command; a plugin (plugin.ts, bundled) reports sessions
// from inside OpenCode. Transcripts are sent inline (message lists); OpenCode keeps its own under
// $XDG_DATA_HOME/opencode. MCP server in opencode.json.

import type { Harness } from '../harness';
import { defaultOpenCodeDataDir, HARNESS, importOpenCode } from './import';
import { installOpenCode, registerOpenCodeMcp, uninstallOpenCode, unregisterOpenCodeMcp } from './install';
import type { HarnessLineage } from '../../core/lineage';

// OpenCode's lineage signal (docs/harnesses.md): a task child's Session.Info carries `parentID`.
// The plugin reads it and sends it as the explicit parent at session-start (recorded 'explicit',
// like any caller-named parent); when the plugin re-parents a session at its end, the change is
// recorded as 'opencode-parent'.
export const openCodeLineage: HarnessLineage = {
  reparentSource: 'opencode-parent',
};

export const openCode: Harness = {
  id: HARNESS,
  displayName: 'OpenCode',
  transcripts: {
    fallbackFormat: 'messages-json',
    matchesName: (name) => name.toLowerCase().includes('opencode'),
    roots: (env, home) => [defaultOpenCodeDataDir(env, home)],
  },
  lineage: openCodeLineage,
  // Its database, read from the bytes (docs/harnesses.md), or `opencode export` files.
  importer: {
    description: 'import OpenCode sessions and their task sub-agents from its database (or from `opencode export` files)',
    label: 'OpenCode',
    source: {
      as: 'option',
      help: "OpenCode's data folder or its opencode.db, or a folder of `opencode export` JSON files, or one (default: $XDG_DATA_HOME/opencode or ~/.local/share/opencode)",
    },
    defaultSource: () => defaultOpenCodeDataDir(),
    run: (source, io) =>
      importOpenCode({
        ...io,
        source: source ?? defaultOpenCodeDataDir(),
        loadSqlJs: io.loadSqlJs ?? (() => Promise.reject(new Error('reading an OpenCode database needs sql.js (ImportIo.loadSqlJs)'))),
      }),
  },
  install: {
    scopes: ['project', 'user'],
    install(ctx) {
      const where = { scope: ctx.scope, projectDir: ctx.projectDir };
      const result = installOpenCode({ ...where, dataDir: ctx.command.dataDir });
      const mcp = registerOpenCodeMcp(where, ctx.command);
      const messages = [
        result.changed ? `Installed the Baton plugin in ${result.file}` : `The Baton plugin in ${result.file} is up to date`,
        `Registered the Baton MCP server in ${mcp.file}`,
      ];
      return { ...result, mcpFile: mcp.file, messages };
    },
    uninstall(ctx) {
      const where = { scope: ctx.scope, projectDir: ctx.projectDir };
      const result = uninstallOpenCode(where);
      return { ...result, messages: unregisterOpenCodeMcp(where) ? ['Removed the Baton MCP server from OpenCode'] : [] };
    },
    menu: [
      { label: 'OpenCode — this workspace', description: '.opencode/plugin/baton.js and opencode.json', scope: 'project' },
      { label: 'OpenCode — all projects (user plugin)', description: '$XDG_CONFIG_HOME/opencode/plugin/baton.js', scope: 'user' },
    ],
  },
};
