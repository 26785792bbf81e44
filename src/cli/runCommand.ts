// `baton run`: spawns a sub-agent run with a runner of the server's config (docs/runs.md) through
// POST /api/runs/spawn: the running server, else in-process over the store. SYNC prints the
// result; the async modes print the run id. In-process, the command then stays until the child
// has finished, since it holds the store the run is recorded in.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { BatonError } from '../core/errors';
import { AGENT_SESSION_ENV, EXECUTION_MODES } from '../core/runs';
import type { ExecutionMode } from '../core/types';
import { resolveDataDir } from '../node/paths';
import { openAccess } from './access';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

interface RunOptions {
  dataDir?: string;
  parent?: string;
  mode: ExecutionMode;
  runner?: string;
  spec?: string;
  file: string[];
  workspace?: string;
  title?: string;
  agent?: string;
  timeout?: number;
  json?: boolean;
}

/** A SYNC call waits for the child: as long as any runner may take, plus a margin. */
const SYNC_CALL_TIMEOUT_MS = 24 * 3_600_000 + 60_000;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 100) throw new InvalidArgumentError('expected whole milliseconds, at least 100.');
  return n;
}

function workspaceOf(flag: string | undefined): string {
  const dir = path.resolve(flag ?? process.cwd());
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new BatonError('invalid_request', `--workspace: ${dir} is not a directory`);
  return dir;
}

export function registerRunCommand(program: Command, { dataDirOption, out }: Helpers): void {
  program
    .command('run')
    .description('spawn a sub-agent run with a configured runner (runners in DATA_DIR/config.json)')
    .argument('<task...>', 'what the sub-agent should do')
    .option('--parent <key>', 'the parent session: the child inherits its context (default: $AGENT_SESSION_ID; required for ASYNC_CALLBACK)')
    .addOption(new Option('--mode <mode>', 'how the result comes back').choices(EXECUTION_MODES).default('SYNC'))
    .option('--runner <name>', 'a runner of the config (default: its defaultRunner, or the only one)')
    .option('--spec <id>', "the spec the task belongs to (named in the child's prompt)")
    .option('--file <path>', 'a file for the child, relative to the workspace (repeatable)', collect, [])
    .option('--workspace <dir>', "the child's working directory and the root of --file paths (default: the current directory)")
    .option('--title <text>', 'a label for the child session')
    .option('--agent <id>', "the agent the child is written for; its parent is that agent's session of --parent (default: the default agent)")
    .option('--timeout <ms>', "end the child after this long (at most the runner's own timeout)", milliseconds)
    .option('--json', 'print the run record')
    .addOption(dataDirOption())
    .action(async (words: string[], opts: RunOptions) => {
      const task = words.join(' ').trim();
      if (!task) throw new BatonError('invalid_request', 'the task is empty');
      // Inside a run (or any process Baton started) the parent is the session it belongs to (docs/runs.md).
      const parent = opts.parent ?? (process.env[AGENT_SESSION_ENV] || undefined);
      if (opts.mode === 'ASYNC_CALLBACK' && !parent) throw new BatonError('invalid_request', '--parent is required with --mode ASYNC_CALLBACK');
      const workspacePath = workspaceOf(opts.workspace);
      const access = await openAccess(resolveDataDir({ flag: opts.dataDir }), { mode: 'write', holder: 'baton run' }, SYNC_CALL_TIMEOUT_MS);
      try {
        const run = await access.api.call('spawnRun', {
          body: {
            task,
            parentSessionKey: parent,
            runner: opts.runner,
            executionMode: opts.mode,
            specId: opts.spec,
            files: opts.file.length ? opts.file : undefined,
            workspacePath,
            title: opts.title,
            timeoutMs: opts.timeout,
            agentId: opts.agent,
          },
        });
        if (opts.json) out(JSON.stringify(run, null, 2));
        else if (opts.mode !== 'SYNC') out(run.id);
        else if (run.status === 'completed') out(run.resultContent ?? '');
        if (opts.mode === 'SYNC' && run.status === 'failed') throw new BatonError('internal', `run ${run.id} failed: ${run.error ?? 'unknown error'}`);
        if (opts.mode !== 'SYNC' && access.via === 'store') process.stderr.write(`no server is running: waiting here for run ${run.id} to finish\n`);
      } finally {
        await access.close();
      }
    });
}
