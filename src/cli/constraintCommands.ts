// `baton constraints …`: the rules every sub-agent of a session inherits, by hand
// (docs/inheritance.md). Through the API's own handlers: the running server, else the store.

import { Command, InvalidArgumentError, Option } from 'commander';
import { resolveDataDir } from '../node/paths';
import { openAccess, type Access } from './access';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

function constraintId(value: string): string {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a constraint id (a positive whole number).');
  return value;
}

async function withAccess<T>(dataDir: string | undefined, mode: 'read' | 'write', fn: (access: Access) => Promise<T>): Promise<T> {
  const access = await openAccess(resolveDataDir({ flag: dataDir }), mode === 'read' ? { mode: 'read' } : { mode: 'write', holder: 'baton constraints' });
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

export function registerConstraintCommands(program: Command, { dataDirOption, out }: Helpers): void {
  const cmd = program.command('constraints').description('rules every sub-agent of a session inherits');
  cmd
    .command('list')
    .description('active constraints (of one session, or all)')
    .addOption(dataDirOption())
    .option('--session <key>', 'only this session')
    .option('--all', 'include deactivated constraints')
    .option('--json', 'machine-readable output')
    .action(async (opts: { dataDir?: string; session?: string; all?: boolean; json?: boolean }) => {
      await withAccess(opts.dataDir, 'read', async ({ api }) => {
        const { constraints, count } = await api.call('listConstraints', { query: { sessionKey: opts.session, all: opts.all ? '1' : undefined } });
        if (opts.json) return out(JSON.stringify({ constraints, count }, null, 2));
        if (count === 0) return out('No constraints.');
        out(constraints.map((c) => `${c.id}  ${c.active ? 'active  ' : 'inactive'}  ${c.sessionKey ?? '-'}  ${c.entity}: ${c.content}`).join('\n'));
      });
    });
  cmd
    .command('add')
    .description('add a constraint to a session')
    .argument('<text...>', 'the rule, e.g. never drop the users table')
    .requiredOption('--session <key>', 'the session whose sub-agents must follow it')
    .option('--entity <name>', 'the entity it is about', 'rules')
    .addOption(dataDirOption())
    .option('--json', 'machine-readable output')
    .action(async (words: string[], opts: { dataDir?: string; session: string; entity: string; json?: boolean }) => {
      await withAccess(opts.dataDir, 'write', async ({ api }) => {
        const c = await api.call('addConstraint', { body: { content: words.join(' '), sessionKey: opts.session, entity: opts.entity } });
        out(opts.json ? JSON.stringify(c, null, 2) : `added constraint ${c.id} to ${c.sessionKey}`);
      });
    });
  for (const [name, description, body] of [
    ['deactivate', 'stop handing a constraint down', { active: false }],
    ['activate', 'hand a deactivated constraint down again', { active: true }],
  ] as const) {
    cmd
      .command(name)
      .description(description)
      .argument('<id>', 'constraint id', constraintId)
      .addOption(dataDirOption())
      .action(async (id: string, opts: { dataDir?: string }) => {
        await withAccess(opts.dataDir, 'write', async ({ api }) => {
          await api.call('editConstraint', { params: { id }, body });
          out(`${name}d constraint ${id}`);
        });
      });
  }
  cmd
    .command('edit')
    .description("change a constraint's text")
    .argument('<id>', 'constraint id', constraintId)
    .argument('<text...>', 'the new text')
    .addOption(dataDirOption())
    .action(async (id: string, words: string[], opts: { dataDir?: string }) => {
      await withAccess(opts.dataDir, 'write', async ({ api }) => {
        await api.call('editConstraint', { params: { id }, body: { content: words.join(' ') } });
        out(`edited constraint ${id}`);
      });
    });
}
