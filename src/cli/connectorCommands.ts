// `baton hook <harness>`, `baton install <harness>`, `baton uninstall <harness>`: the harnesses
// and what installing means for each come from the registry (src/harnesses/, docs/harnesses.md).

import * as fs from 'node:fs';
import { Argument, Command, Option } from 'commander';
import { HOOK_HARNESS_IDS, runHook } from '../connectors/runHook';
import { runHookCommand } from '../connectors/hookRelay';
import { runMcpBridge } from '../connectors/mcpBridge';
import { HOOK_TOKEN_ENV, hookTokenRequest, type HttpHookOptions, type InstallScope } from '../harnesses/harness';
import { liveEndpoint } from '../node/endpointCall';
import { DEFAULT_PORT } from '../server/config';
import { openAccess } from './access';
import { installableHarness, installableHarnesses } from '../harnesses/registry';
import { resolveDataDir } from '../node/paths';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

/** `--user` or `--project [dir]`; neither: the harness's default scope (the first it lists). */
function target(scopes: readonly InstallScope[], opts: { project?: string | boolean; user?: boolean }): { scope: InstallScope; projectDir?: string } {
  const scope = opts.user ? 'user' : opts.project !== undefined ? 'project' : (scopes[0] ?? 'project');
  return scope === 'user' ? { scope } : { scope, projectDir: typeof opts.project === 'string' ? opts.project : process.cwd() };
}

function installable(id: string) {
  const harness = installableHarness(id);
  if (!harness) throw new Error(`cannot install for harness ${id}`); // commander's choices keep this from happening
  return harness;
}

/**
 * The HTTP hooks' endpoint and token: the running server's URL for the data directory (else the
 * default port, where `baton serve` listens first), and a token with only the `hooks` permission
 * (docs/security.md, "The hooks token"), the earlier install's kept while it is still valid.
 */
function httpHookOptions(dataDir: string, url: string | undefined): HttpHookOptions {
  return {
    url: (url ?? liveEndpoint(dataDir)?.url ?? `http://127.0.0.1:${DEFAULT_PORT}`).replace(/\/$/, ''),
    tokenEnvVar: HOOK_TOKEN_ENV,
    async issueToken(previous) {
      const access = await openAccess(dataDir, { mode: 'write', holder: 'baton install' });
      try {
        const created = await access.api.call('createToken', { body: hookTokenRequest(previous) });
        return created.token;
      } finally {
        await access.close();
      }
    },
  };
}

export function registerConnectorCommands(program: Command, { dataDirOption, out }: Helpers): void {
  const installIds = installableHarnesses().flatMap((h) => [h.id, ...(h.install.aliases ?? [])]);
  program
    .command('hook')
    .description('the hook command harnesses run: payload on stdin, hook output on stdout; always exits 0 within 1 s')
    .addArgument(new Argument('<harness>', 'which harness calls').choices(HOOK_HARNESS_IDS))
    .option('--event <name>', 'the event that fired, for harnesses whose payloads do not name it (their installed command gives it)')
    .addOption(dataDirOption())
    .action(async (harness: string, opts: { dataDir?: string; event?: string }) => {
      const dataDir = resolveDataDir({ flag: opts.dataDir });
      await runHookCommand(harness, dataDir, opts.event, (raw, started) => runHook(harness, dataDir, opts.event, raw, started));
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
    .addArgument(new Argument('<harness>', 'which harness').choices(installIds))
    .addOption(dataDirOption())
    .addOption(new Option('--project [dir]', 'the project settings file (default: the current directory)').conflicts('user'))
    .option('--user', "the user's settings (e.g. ~/.claude/settings.json); with neither --user nor --project: the harness's default scope")
    .option('--command', 'Claude Code: the hook command for every event instead of HTTP hooks where Claude Code honours them')
    .option('--http', 'the default; kept for scripts that pass it')
    .option('--url <url>', "HTTP hooks' endpoint URL (default: the running server's for the data directory, else http://127.0.0.1:7433)")
    .option('--no-trust', "Codex: do not record Codex's trust for Baton's hooks (Codex then skips them until you trust them)")
    .option('--settings-file <file>', "the editor's user settings.json, for harnesses configured there (vscode: default VS Code's)")
    .action(
      async (
        harness: string,
        opts: { dataDir?: string; project?: string | boolean; user?: boolean; command?: boolean; url?: string; trust: boolean; settingsFile?: string },
      ) => {
        const dataDir = opts.dataDir ?? process.env.BATON_DATA_DIR;
        const installing = installable(harness);
        const install = installing.install;
        const result = await install.install({
          ...target(install.scopes, opts),
          command: { nodePath: process.execPath, cliPath: cliPath(), dataDir: dataDir ? resolveDataDir({ flag: dataDir }) : undefined },
          http: installing.httpHooks && !opts.command ? httpHookOptions(resolveDataDir({ flag: dataDir }), opts.url) : undefined,
          trustHooks: opts.trust,
          settingsFile: opts.settingsFile,
        });
        for (const line of result.messages) out(line);
      },
    );
  program
    .command('uninstall')
    .description("remove Baton's hooks (only ours) from a harness's settings")
    .addArgument(new Argument('<harness>', 'which harness').choices(installIds))
    .addOption(new Option('--project [dir]', 'the project settings file (default: the current directory)').conflicts('user'))
    .option('--user', "the user's settings file")
    .option('--settings-file <file>', "the editor's user settings.json, for harnesses configured there (vscode: default VS Code's)")
    .action((harness: string, opts: { project?: string | boolean; user?: boolean; settingsFile?: string }) => {
      const install = installable(harness).install;
      const result = install.uninstall({ ...target(install.scopes, opts), settingsFile: opts.settingsFile });
      for (const line of result.messages) out(line);
      out(result.removed ? `Removed Baton hooks from ${result.file}` : `No Baton hooks in ${result.file}`);
    });
}
