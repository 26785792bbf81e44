// `baton serve` and `baton token`: the daemon and its access tokens.

import { Command, InvalidArgumentError, Option } from 'commander';
import { lineLogger } from '../core/logger';
import { startDaemon } from '../server/daemon';
import { resolveDataDir } from '../node/paths';
import { openAccess } from './access';
import { printRecovery } from './openStore';
import { assertWritableDataDir, warnAboutPermissions } from './dataDirChecks';
import type { Permission } from '../api/routes';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return n;
}

const PERMISSIONS = ['remember', 'recall', 'admin', 'hooks'];

function permissionList(value: string): string[] {
  const list = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (list.length === 0 || !list.every((p) => PERMISSIONS.includes(p)))
    throw new InvalidArgumentError(`expected a comma-separated list of ${PERMISSIONS.join(', ')}.`);
  return list;
}

export function registerServerCommands(program: Command, { dataDirOption, out }: Helpers): void {
  program
    .command('serve')
    .description('run the hook endpoint and the store (127.0.0.1 only) until SIGINT/SIGTERM')
    .addOption(dataDirOption())
    .option('--port <n>', 'port to listen on (0: any free port; default 7433, or the next free one)', portNumber)
    .option('--quiet', 'do not log requests to stderr')
    .option('--accept-loss', 'start even when damaged files mean acknowledged writes are missing (they are named at startup)')
    .action(async (opts: { dataDir?: string; port?: number; quiet?: boolean; acceptLoss?: boolean }) => {
      const dataDir = resolveDataDir({ flag: opts.dataDir });
      assertWritableDataDir(dataDir);
      warnAboutPermissions(dataDir);
      const daemon = await startDaemon({
        dataDir,
        port: opts.port,
        acceptLoss: opts.acceptLoss,
        logger: opts.quiet ? undefined : lineLogger((line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`)),
      });
      // Damage found at open is shown even with --quiet: one line each, file names and numbers only.
      printRecovery(daemon.store);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          process.stderr.write(`${signal}: finishing in-flight requests and flushing the store\n`);
          daemon.stop().then(resolve, (err: Error) => {
            process.stderr.write(`error while stopping: ${err.message}\n`);
            process.exitCode = 1;
            resolve();
          });
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
        // Only now: whoever waits for this line may signal at once.
        try {
          out(`Baton listening on ${daemon.server.url} (data: ${dataDir})`);
        } catch {
          // Standard output is gone: keep serving (it is reported when the command ends).
        }
      });
    });

  const token = program.command('token').description('manage agent-scoped access tokens');
  token
    .command('create')
    .description('create a token for an agent; prints the secret once')
    .addOption(dataDirOption())
    .requiredOption('--agent <id>', 'the agent the token reads and writes as')
    .requiredOption('--permissions <list>', 'comma-separated: remember, recall, admin, hooks', permissionList)
    .addOption(new Option('--read-policy <policy>', "the agent's read policy").choices(['shared', 'isolated']))
    .option('--label <text>', 'a note to recognise the token by')
    .option('--json', 'machine-readable output')
    .action(async (opts: { dataDir?: string; agent: string; permissions: string[]; readPolicy?: 'shared' | 'isolated'; label?: string; json?: boolean }) => {
      const access = await openAccess(resolveDataDir({ flag: opts.dataDir }), { mode: 'write', holder: 'baton token' });
      let created: { id: string; token: string; agentId: string; permissions: string[] };
      try {
        created = await access.api.call('createToken', {
          body: { agentId: opts.agent, permissions: opts.permissions as Permission[], readPolicy: opts.readPolicy, label: opts.label },
        });
      } finally {
        await access.close();
      }
      out(
        opts.json
          ? JSON.stringify(created, null, 2)
          : `token ${created.id} for agent ${created.agentId} (${created.permissions.join(', ')}):\n${created.token}`,
      );
    });
  token
    .command('revoke')
    .description('revoke a token by id')
    .argument('<id>', 'token id')
    .addOption(dataDirOption())
    .action(async (id: string, opts: { dataDir?: string }) => {
      const access = await openAccess(resolveDataDir({ flag: opts.dataDir }), { mode: 'write', holder: 'baton token' });
      try {
        await access.api.call('revokeToken', { params: { key: id } });
      } finally {
        await access.close();
      }
      out(`revoked ${id}`);
    });
}
