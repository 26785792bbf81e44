// `baton constraints …` and `baton entities …`: the rules and the focal entities every sub-agent
// of a session inherits, by hand (docs/inheritance.md). Through the API's own handlers: the
// running server, else the store.

import { Command, InvalidArgumentError, Option } from 'commander';
import { BatonError } from '../core/errors';
import { resolveDataDir } from '../node/paths';
import { openAccess, type Access } from './access';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

function positiveId(value: string): string {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected an id (a positive whole number).');
  return value;
}

/** `--alias` given more than once: each one kept, in order. */
function collectAlias(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

async function withAccess<T>(dataDir: string | undefined, mode: 'read' | 'write', fn: (access: Access) => Promise<T>): Promise<T> {
  const access = await openAccess(resolveDataDir({ flag: dataDir }), mode === 'read' ? { mode: 'read' } : { mode: 'write', holder: 'baton rules' });
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

/** `deactivate` and `activate` of a constraint or an entity: the same flag, the same words. */
function registerToggles(
  cmd: Command,
  what: 'constraint' | 'entity',
  { dataDirOption, out }: Helpers,
  edit: (api: Access['api'], id: string, active: boolean) => Promise<unknown>,
) {
  for (const [name, description, active] of [
    ['deactivate', `stop handing ${what === 'entity' ? 'an entity' : 'a constraint'} down`, false],
    ['activate', `hand a deactivated ${what} down again`, true],
  ] as const) {
    cmd
      .command(name)
      .description(description)
      .argument('<id>', `${what} id`, positiveId)
      .addOption(dataDirOption())
      .action(async (id: string, opts: { dataDir?: string }) => {
        await withAccess(opts.dataDir, 'write', async ({ api }) => {
          await edit(api, id, active);
          out(`${name}d ${what} ${id}`);
        });
      });
  }
}

function originText(o: { kind: string | null; seq: number | null; role: string | null }): string {
  if (o.kind === 'hand') return 'by hand';
  if (o.kind === 'extracted' && o.seq !== null) return `${o.role === 'user' ? 'user' : 'agent'} turn ${o.seq}`;
  return '-';
}

export function registerRuleCommands(program: Command, helpers: Helpers): void {
  registerConstraintCommands(program, helpers);
  registerEntityCommands(program, helpers);
}

function registerConstraintCommands(program: Command, helpers: Helpers): void {
  const { dataDirOption, out } = helpers;
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
        out(
          constraints
            .map((c) => `${c.id}  ${c.active ? 'active  ' : 'inactive'}  ${c.sessionKey ?? '-'}  ${c.entity}: ${c.content}  (${originText(c.origin)})`)
            .join('\n'),
        );
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
  registerToggles(cmd, 'constraint', helpers, (api, id, active) => api.call('editConstraint', { params: { id }, body: { active } }));
  cmd
    .command('edit')
    .description("change a constraint's text")
    .argument('<id>', 'constraint id', positiveId)
    .argument('<text...>', 'the new text')
    .addOption(dataDirOption())
    .action(async (id: string, words: string[], opts: { dataDir?: string }) => {
      await withAccess(opts.dataDir, 'write', async ({ api }) => {
        await api.call('editConstraint', { params: { id }, body: { content: words.join(' ') } });
        out(`edited constraint ${id}`);
      });
    });
}

function registerEntityCommands(program: Command, helpers: Helpers): void {
  const { dataDirOption, out } = helpers;
  const cmd = program.command('entities').description('files, symbols and tickets a session keeps in focus');
  cmd
    .command('list')
    .description('active entities (of one session, or all)')
    .addOption(dataDirOption())
    .option('--session <key>', "only this session's focus")
    .option('--all', 'include deactivated entities')
    .option('--json', 'machine-readable output')
    .action(async (opts: { dataDir?: string; session?: string; all?: boolean; json?: boolean }) => {
      await withAccess(opts.dataDir, 'read', async ({ api }) => {
        const { entities, count } = await api.call('listEntities', { query: { sessionKey: opts.session, all: opts.all ? '1' : undefined } });
        if (opts.json) return out(JSON.stringify({ entities, count }, null, 2));
        if (count === 0) return out('No entities.');
        out(
          entities
            .map(
              (e) =>
                `${e.id}  ${e.active ? 'active  ' : 'inactive'}  ${e.name}${e.aliases.length ? ` aka ${e.aliases.join(', ')}` : ''} (${e.kind}, ${e.constraints} constraints)${e.description ? ` — ${e.description}` : ''}`,
            )
            .join('\n'),
        );
      });
    });
  cmd
    .command('add')
    .description("add an entity, optionally to a session's focus")
    .argument('<name>', 'e.g. billing.ts, PAY-123, ledger-service')
    .option('--session <key>', 'keep it in focus for the sub-agents of this session')
    .option('--kind <kind>', 'file, symbol, service, ticket…')
    .option('--description <text>', 'what it is')
    .option('--alias <name>', 'another name a prompt may call it by (repeat for more)', collectAlias)
    .addOption(dataDirOption())
    .option('--json', 'machine-readable output')
    .action(async (name: string, opts: { dataDir?: string; session?: string; kind?: string; description?: string; alias?: string[]; json?: boolean }) => {
      await withAccess(opts.dataDir, 'write', async ({ api }) => {
        const e = await api.call('addEntity', {
          body: { name, sessionKey: opts.session, kind: opts.kind, description: opts.description, aliases: opts.alias },
        });
        out(opts.json ? JSON.stringify(e, null, 2) : `added entity #${e.id} ${e.name}${opts.session ? ` to the focus of ${opts.session}` : ''}`);
      });
    });
  registerToggles(cmd, 'entity', helpers, (api, id, active) => api.call('editEntity', { params: { id }, body: { active } }));
  cmd
    .command('edit')
    .description('rename, describe or re-alias an entity')
    .argument('<id>', 'entity id', positiveId)
    .option('--name <name>', 'new name')
    .option('--kind <kind>', 'new kind')
    .option('--description <text>', 'new description')
    .option('--alias <name>', 'its aliases from now on, replacing the old ones (repeat for more)', collectAlias)
    .option('--no-aliases', 'take all its aliases away')
    .addOption(dataDirOption())
    .action(async (id: string, opts: { dataDir?: string; name?: string; kind?: string; description?: string; alias?: string[]; aliases?: boolean }) => {
      // --no-aliases sets `aliases` to false (commander's negation); absent, it stays true.
      const aliases = opts.aliases === false ? [] : opts.alias;
      if (opts.aliases === false && opts.alias) throw new BatonError('invalid_request', 'give either --alias or --no-aliases, not both');
      if (opts.name === undefined && opts.kind === undefined && opts.description === undefined && aliases === undefined)
        throw new BatonError('invalid_request', 'nothing to change: give --name, --kind, --description, --alias or --no-aliases');
      await withAccess(opts.dataDir, 'write', async ({ api }) => {
        await api.call('editEntity', { params: { id }, body: { name: opts.name, kind: opts.kind, description: opts.description, aliases } });
        out(`edited entity ${id}`);
      });
    });
}
