// `baton import <harness>` (claude-code, codex, copilot, opencode): backfill existing harness history
// into the store, through the same writes the live hooks make. One subcommand per harness with an
// importer in the registry (Harness.importer): this file names no harness.

import { Command, Option } from 'commander';
import { harnessImporters } from '../harnesses/registry';
import type { ImportCounts, ImportIo } from '../harnesses/sessionImport';
import { loadSqlJs } from '../store/engine/sqljs';
import { liveEndpoint } from '../node/endpointCall';
import { openApi } from '../server/localApi';
import { printRecoveryLine } from './openStore';
import { resolveDataDir } from '../node/paths';
import { assertWritableDataDir, warnAboutPermissions } from './dataDirChecks';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

/** One self-erasing status line on a terminal's stderr; nothing at all when stderr is not a TTY. */
class ProgressLine {
  private lastDraw = 0;
  private shown = false;
  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(done: number, total: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (done < total && now - this.lastDraw < 100) return; // at most ten redraws a second
    this.lastDraw = now;
    const width = 24;
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    this.stream.write(`\r\x1b[2K${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
    this.shown = true;
  }

  /** Erases the line (before a warning, and at the end). */
  clear(): void {
    if (!this.shown) return;
    this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}

export function importSummary(result: ImportCounts): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  let line = `imported ${plural(result.sessions, 'session')} (${plural(result.subagents, 'sub-agent')}), ${plural(result.turnsAdded, 'turn')} added`;
  const extras: string[] = [];
  const known = result.sessions - result.created;
  if (known > 0) extras.push(`${known} already stored`);
  if (result.skipped > 0) extras.push(`${plural(result.skipped, 'file')} skipped`);
  if (extras.length) line += `; ${extras.join(', ')}`;
  return line;
}

/**
 * What every `baton import <harness>` does around the harness's own import: checks the data
 * directory, writes through the running server or the store, shows a progress line and the
 * warnings, and prints the summary (or the whole result with --json).
 */
async function runImport<R>(
  opts: { dataDir?: string; json?: boolean },
  label: string,
  out: (text: string) => void,
  run: (io: ImportIo) => Promise<R>,
  summary: (result: R) => string,
): Promise<void> {
  const dataDir = resolveDataDir({ flag: opts.dataDir });
  // Through a running server nothing is written here; otherwise this process writes the store.
  if (!liveEndpoint(dataDir)) assertWritableDataDir(dataDir);
  warnAboutPermissions(dataDir);
  const progress = new ProgressLine(`importing ${label} history`);
  const result = await run({
    open: () => openApi(dataDir, { holder: 'baton import', onRecovery: printRecoveryLine }, 60_000),
    loadSqlJs,
    onProgress: (done, total) => progress.update(done, total),
    onWarning: (message) => {
      progress.clear();
      process.stderr.write(`warning: ${message}\n`);
    },
  }).finally(() => progress.clear());
  out(opts.json ? JSON.stringify(result, null, 2) : summary(result));
}

type ImportOpts = { dataDir?: string; json?: boolean };

export function registerImportCommands(program: Command, { dataDirOption, out }: Helpers): void {
  const importCommand = program.command('import').description('backfill existing history of a harness into Baton (idempotent)');

  // Alphabetical in `baton import --help`.
  const harnesses = [...harnessImporters()].sort((a, b) => a.id.localeCompare(b.id));
  for (const { id, importer } of harnesses) {
    const command = importCommand.command(id).description(importer.description);
    if (importer.source.as === 'argument') command.argument('[dir]', importer.source.help);
    else command.option('--path <path>', importer.source.help);
    command
      .addOption(dataDirOption())
      .option('--json', 'machine-readable summary')
      .action((...args: unknown[]) => {
        // Commander passes the arguments, then the options, then the command itself.
        const self = args[args.length - 1] as Command;
        const opts = self.opts<ImportOpts & { path?: string }>();
        const source = importer.source.as === 'argument' ? (self.processedArgs[0] as string | undefined) : opts.path;
        return runImport(opts, importer.label, out, (io) => importer.run(source, io), importer.summary ?? importSummary);
      });
  }
}
