// `baton`: the headless front door. Every command takes --data-dir; listing commands take --json.
// Exit codes: 0 ok, 1 failure (one `error: …` line on stderr), 2 usage.
// Read-only commands (sessions, transcript, search, recall without --session, export,
// constraints/entities list) read without the lock and change nothing (store/lockFreeReadView.ts);
// they and doctor never create a data directory: with nothing recorded yet they answer as an empty
// store (and say how to record). A path Baton cannot use is an error naming why; writing commands
// also check ownership and that they can write (cli/dataDirChecks.ts).

import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { BatonError } from './core/errors';
import { renderMarkdownSession, renderSessionTable, renderTree } from './core/format';
import { formatHits, HIT_FORMATS } from './core/searchHits';
import { renderSpendReport } from './core/spendReport';
import { resolveDataDir } from './node/paths';
import { openAccess, type Access } from './cli/access';
import { registerDoctorCommand } from './cli/doctorCommand';
import { Output } from './cli/output';
import { registerServerCommands } from './cli/serverCommands';
import { registerRuleCommands } from './cli/ruleCommands';
import { registerMemoryCommands } from './cli/memoryCommands';
import { registerConnectorCommands } from './cli/connectorCommands';
import { registerImportCommands } from './cli/importCommands';
import { registerRunCommand } from './cli/runCommand';
import { registerDemoCommand } from './cli/demoCommand';
import { firstSteps } from './cli/firstSteps';

function dataDirOption(): Option {
  return new Option('--data-dir <dir>', 'data directory (default: $BATON_DATA_DIR, $XDG_DATA_HOME/baton or ~/.local/share/baton)');
}

let output: Output | null = null;

function stdout(): Output {
  output ??= new Output(process.stdout);
  return output;
}

function out(text: string): void {
  stdout().line(text);
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number.');
  return n;
}

/** `--since`: an ISO 8601 date or time as given, or `Nd` (the last N days) as the time N days ago. */
function sinceDate(value: string): string {
  const days = /^(\d{1,5})d$/.exec(value.trim());
  if (days) return new Date(Date.now() - Number(days[1]) * 86_400_000).toISOString();
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('expected an ISO 8601 date or time (2026-11-01) or a number of days (7d).');
  return value;
}

/** What `baton sessions` says when it lists nothing: with no filter, how sessions get recorded. */
function noSessions(project: string | undefined): string {
  return project ? `No sessions of ${project}.` : ['No sessions yet.', ...firstSteps()].join('\n');
}

/** Reaches the data for one read-only command: via the running server, or through a read-only view of the files. */
async function withStore<T>(dataDirFlag: string | undefined, fn: (access: Access) => Promise<T>): Promise<T> {
  const access = await openAccess(resolveDataDir({ flag: dataDirFlag }), { mode: 'read' });
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

export function buildProgram(): Command {
  const program = new Command('baton')
    .description('Baton: live transcripts, lineage and inherited context for AI sub-agents.')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  program.configureOutput({
    writeErr: (s) => process.stderr.write(s),
    // A failed write is reported when the command ends (see main).
    writeOut: (s) => {
      try {
        stdout().write(s);
      } catch {
        /* reported by main */
      }
    },
  });

  program
    .command('sessions')
    .description('list sessions, newest first (or as a lineage tree)')
    .addOption(dataDirOption())
    .option('--tree', 'show the parent → sub-agent forest')
    .option('--project <path>', 'only sessions of this project')
    .option('--limit <n>', 'at most this many sessions', positiveInt, 100)
    .option('--json', 'machine-readable output')
    .action(async (opts: { dataDir?: string; tree?: boolean; project?: string; limit: number; json?: boolean }) => {
      await withStore(opts.dataDir, async ({ api }) => {
        if (opts.tree) {
          const { roots } = await api.call('sessionTree', { query: { project: opts.project } });
          out(opts.json ? JSON.stringify({ roots }, null, 2) : renderTree(roots) || noSessions(opts.project));
          return;
        }
        const { sessions, total } = await api.call('listSessions', { query: { all: '1', project: opts.project, limit: String(opts.limit) } });
        out(opts.json ? JSON.stringify({ sessions, count: sessions.length, total }, null, 2) : renderSessionTable(sessions) || noSessions(opts.project));
      });
    });

  program
    .command('spend')
    .description('what the sessions spent (models, tokens, cost): totals by day, project, harness, model and the top sessions')
    .addOption(dataDirOption())
    .option('--since <date>', 'only requests since this date or time (ISO 8601, e.g. 2026-11-01), or the last N days (7d)', sinceDate)
    .option('--project <path>', 'only sessions of this project')
    .option('--top <n>', 'how many top sessions', positiveInt, 10)
    .option('--json', 'machine-readable output')
    .action(async (opts: { dataDir?: string; since?: string; project?: string; top: number; json?: boolean }) => {
      await withStore(opts.dataDir, async ({ api }) => {
        const report = await api.call('spend', { query: { since: opts.since, project: opts.project, top: String(opts.top) } });
        out(opts.json ? JSON.stringify(report, null, 2) : renderSpendReport(report));
      });
    });

  program
    .command('transcript')
    .description('print the stored transcript of a session')
    .argument('<key>', 'session key (raw or session:-prefixed)')
    .addOption(dataDirOption())
    .option('--agent <id>', "the agent whose session of the key (keys are per agent; default: the key's newest session)")
    .option('--json', 'machine-readable output')
    .action(async (key: string, opts: { dataDir?: string; agent?: string; json?: boolean }) => {
      await withStore(opts.dataDir, async ({ api }) => {
        const transcript = await api.call('transcript', { params: { key }, query: { agentId: opts.agent } });
        out(opts.json ? JSON.stringify(transcript, null, 2) : transcript.content);
      });
    });

  program
    .command('search')
    .description('full-text search over transcripts (any text is a valid query)')
    .argument('<query...>', 'words, "phrases", -exclusions, prefix*, OR')
    .addOption(dataDirOption())
    .option('--session <key>', 'only this session')
    .option('--project <path>', 'only this project')
    .option('--limit <n>', 'at most this many sessions', positiveInt, 10)
    .option('--json', 'machine-readable output')
    .action(async (words: string[], opts: { dataDir?: string; session?: string; project?: string; limit: number; json?: boolean }) => {
      const query = words.join(' ');
      await withStore(opts.dataDir, async ({ api }) => {
        const { hits } = await api.call('search', { body: { query, sessionKey: opts.session, project: opts.project, limit: Math.min(opts.limit, 20) } });
        if (opts.json) return out(JSON.stringify({ query, hits, count: hits.length }, null, 2));
        if (hits.length === 0) return out(`No matches for ${JSON.stringify(query)}.`);
        out(formatHits(hits, HIT_FORMATS.terminal));
      });
    });

  program
    .command('export')
    .description('export sessions with their transcripts to stdout')
    .addOption(dataDirOption())
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'md']).default('jsonl'))
    .option('--session <key>', 'only this session')
    .option('--agent <id>', "with --session: the agent whose session of the key (default: the key's newest session)")
    .action(async (opts: { dataDir?: string; format: 'jsonl' | 'md'; session?: string; agent?: string }) => {
      await withStore(opts.dataDir, async ({ api }) => {
        const sessions = opts.session
          ? [await api.callOrNull('getSession', { params: { key: opts.session }, query: { agentId: opts.agent } })].filter((s) => s !== null)
          : (await api.call('listSessions', { query: { all: '1', limit: '10000' } })).sessions.reverse();
        if (opts.session && sessions.length === 0) throw new BatonError('not_found', `session ${opts.session} not found`);
        for (const session of sessions) {
          const turns = [];
          for (let from = 1; ;) {
            // Each session's own turns: two agents may hold one key (docs/security.md).
            const page = await api.call('turns', { params: { key: session!.key }, query: { from: String(from), limit: '1000', agentId: session!.agentId } });
            turns.push(...page.turns);
            if (page.turns.length < 1000) break;
            from = page.turns[page.turns.length - 1].seq + 1;
          }
          out(opts.format === 'jsonl' ? JSON.stringify({ session, turns }) : renderMarkdownSession(session!, turns));
        }
      });
    });

  registerDoctorCommand(program, { dataDirOption, out });
  registerServerCommands(program, { dataDirOption, out });
  registerConnectorCommands(program, { dataDirOption, out });
  registerImportCommands(program, { dataDirOption, out });
  registerRuleCommands(program, { dataDirOption, out });
  registerMemoryCommands(program, { dataDirOption, out });
  registerRunCommand(program, { dataDirOption, out });
  registerDemoCommand(program, { out });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const written = stdout(); // catches stdout's errors from the start
  process.stderr.on('error', () => undefined); // nowhere left to report to
  const program = buildProgram();
  let code: number;
  let message: string | null = null;
  try {
    await program.parseAsync(argv, { from: 'user' });
    code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed usage errors.
      code = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 2;
    } else {
      code = 1;
      message = (err as Error).message;
    }
  }
  try {
    await written.finish();
  } catch (err) {
    // Standard output failed: that is the one thing to report (whatever it made the command throw).
    code = 1;
    message = (err as Error).message;
  }
  // Messages are composed from safe parts; a refused open lists what is missing on the lines after the first.
  if (message !== null) process.stderr.write(`error: ${message}\n`);
  return code;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
