// `baton hook <harness>`, `baton install <harness>`, `baton uninstall <harness>`.

import * as fs from 'node:fs';
import { Argument, Command, Option } from 'commander';
import { runHook } from '../connectors/runHook';
import { runMcpBridge } from '../connectors/mcpBridge';
import { HARNESSES } from '../connectors/runHook';
import { installClaudeCode, uninstallClaudeCode, type InstallTarget } from '../connectors/installClaudeCode';
import { installCodex, uninstallCodex } from '../connectors/installCodex';
import { installOpenCode, uninstallOpenCode } from '../connectors/installOpenCode';
import { registerCodexMcp, registerOpenCodeMcp, unregisterCodexMcp, unregisterOpenCodeMcp } from '../connectors/mcpRegistration';
import { resolveDataDir } from '../store/paths';

/** Harnesses `baton install` knows; OpenCode gets a plugin instead of a hook command. */
const INSTALLABLE = [...HARNESSES, 'opencode'];

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

function target(opts: { project?: string | boolean; user?: boolean }): InstallTarget {
  if (opts.user) return { scope: 'user' };
  return { scope: 'project', projectDir: typeof opts.project === 'string' ? opts.project : process.cwd() };
}

export function registerConnectorCommands(program: Command, { dataDirOption, out }: Helpers): void {
  program
    .command('hook')
    .description('the hook command harnesses run: payload on stdin, hook output on stdout; always exits 0 within 1 s')
    .addArgument(new Argument('<harness>', 'which harness calls').choices(HARNESSES))
    .addOption(dataDirOption())
    .action(async (harness: string, opts: { dataDir?: string }) => {
      await runHook(harness, opts.dataDir);
    });

  program
    .command('mcp')
    .description('a stdio MCP server that bridges to the running endpoint (for harnesses that start MCP servers as processes)')
    .addOption(dataDirOption())
    .action(async (opts: { dataDir?: string }) => {
      await runMcpBridge(resolveDataDir({ flag: opts.dataDir }));
    });

  const cliPath = () => fs.realpathSync(process.argv[1]);
  program
    .command('install')
    .description("merge Baton's hooks into a harness's settings (idempotent; keeps your own hooks)")
    .addArgument(new Argument('<harness>', 'which harness').choices(INSTALLABLE))
    .addOption(dataDirOption())
    .addOption(new Option('--project [dir]', 'the project settings file (default: the current directory)').conflicts('user'))
    .option('--user', "the user's settings file (~/.claude/settings.json)")
    .option('--http', "use Claude Code's HTTP hooks (needs a fixed port and a token in $BATON_HOOK_TOKEN) instead of the hook command")
    .option('--url <url>', 'endpoint URL for --http', 'http://127.0.0.1:7433')
    .action((harness: string, opts: { dataDir?: string; project?: string | boolean; user?: boolean; http?: boolean; url: string }) => {
      const dataDir = opts.dataDir ?? process.env.BATON_DATA_DIR;
      if (harness === 'opencode') {
        const resolved = dataDir ? resolveDataDir({ flag: dataDir }) : undefined;
        const result = installOpenCode({ ...target(opts), dataDir: resolved });
        out(result.changed ? `Installed the Baton plugin in ${result.file}` : `The Baton plugin in ${result.file} is up to date`);
        const mcp = registerOpenCodeMcp(target(opts), { nodePath: process.execPath, cliPath: cliPath(), dataDir: resolved });
        out(`Registered the Baton MCP server in ${mcp.file}`);
        return;
      }
      if (harness === 'codex') {
        const command = { nodePath: process.execPath, cliPath: cliPath(), dataDir: dataDir ? resolveDataDir({ flag: dataDir }) : undefined };
        const result = installCodex(command);
        out(`Installed Baton hooks (${result.events.join(', ')}) in ${result.file}`);
        const mcp = registerCodexMcp(command);
        out(mcp.registered ? `Registered the Baton MCP server in ${mcp.file}` : `Left the MCP servers in ${mcp.file} alone: ${mcp.reason}`);
        out('Codex runs only hooks you trust: review and trust them in Codex (or run codex with --dangerously-bypass-hook-trust).');
        return;
      }
      const result = installClaudeCode(
        target(opts),
        { nodePath: process.execPath, cliPath: cliPath(), dataDir: dataDir ? resolveDataDir({ flag: dataDir }) : undefined },
        opts.http ? { url: opts.url.replace(/\/$/, ''), tokenEnvVar: 'BATON_HOOK_TOKEN' } : undefined,
      );
      out(`Installed Baton hooks (${result.events.join(', ')}) in ${result.file}`);
      out(`Registered the Baton MCP server in ${result.mcpFile}`);
      if (opts.http) out('Create the token with `baton token create --agent default --permissions remember,recall` and export it as BATON_HOOK_TOKEN.');
    });
  program
    .command('uninstall')
    .description("remove Baton's hooks (only ours) from a harness's settings")
    .addArgument(new Argument('<harness>', 'which harness').choices(INSTALLABLE))
    .addOption(new Option('--project [dir]', 'the project settings file (default: the current directory)').conflicts('user'))
    .option('--user', "the user's settings file")
    .action((harness: string, opts: { project?: string | boolean; user?: boolean }) => {
      const result = harness === 'codex' ? uninstallCodex() : harness === 'opencode' ? uninstallOpenCode(target(opts)) : uninstallClaudeCode(target(opts));
      if (harness === 'codex' && unregisterCodexMcp()) out('Removed the Baton MCP server from Codex');
      if (harness === 'opencode' && unregisterOpenCodeMcp(target(opts))) out('Removed the Baton MCP server from OpenCode');
      out(result.removed ? `Removed Baton hooks from ${result.file}` : `No Baton hooks in ${result.file}`);
    });
}
