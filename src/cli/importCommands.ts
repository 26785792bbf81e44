// `baton import <harness>` (claude-code, codex, copilot, opencode): backfill existing harness history
// into the store, through the same writes the live hooks make.

import { Command, Option } from 'commander';
import { HARNESS as CLAUDE_CODE } from '../harnesses/claudeCode/hooks';
import { defaultClaudeProjectsDir, importClaudeCode, type ImportResult } from '../harnesses/claudeCode/import';
import { HARNESS as CODEX } from '../harnesses/codex/hooks';
import { defaultCodexSessionsDir, importCodex } from '../harnesses/codex/import';
import { COPILOT } from '../harnesses/copilot';
import { importCopilotChatSessions } from '../harnesses/copilot/import';
import { openCode } from '../harnesses/openCode';
import { defaultOpenCodeDataDir, importOpenCode } from '../harnesses/openCode/import';
import { loadSqlJs } from '../store/sqljs';
import type { ImportIo } from '../harnesses/sessionImport';
import { liveEndpoint } from '../node/endpoint';
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

export function importSummary(result: ImportResult): string {
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

  importCommand
    .command(CLAUDE_CODE)
    .description('import Claude Code sessions and their sub-agents from its projects folder')
    .argument('[dir]', 'the projects folder (default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects)')
    .addOption(dataDirOption())
    .option('--json', 'machine-readable summary')
    .action((dir: string | undefined, opts: ImportOpts) =>
      runImport(opts, 'Claude Code', out, (io) => importClaudeCode({ projectsDir: dir ?? defaultClaudeProjectsDir(), ...io }), importSummary),
    );

  importCommand
    .command(CODEX)
    .description('import Codex sessions and their sub-agents from its rollout files')
    .argument('[dir]', 'the sessions folder (default: $CODEX_HOME/sessions or ~/.codex/sessions)')
    .addOption(dataDirOption())
    .option('--json', 'machine-readable summary')
    .action((dir: string | undefined, opts: ImportOpts) =>
      runImport(opts, 'Codex', out, (io) => importCodex({ sessionsDir: dir ?? defaultCodexSessionsDir(), ...io }), importSummary),
    );

  importCommand
    .command(COPILOT)
    .description("import VS Code agent mode's chat sessions (workspaceStorage/*/chatSessions) and their sub-agents")
    .option(
      '--path <path>',
      'a chatSessions folder or file, a workspaceStorage/<hash> folder or a workspaceStorage folder (default: every VS Code and code-server one found)',
    )
    .addOption(dataDirOption())
    .option('--json', 'machine-readable summary')
    .action((opts: ImportOpts & { path?: string }) =>
      runImport(
        opts,
        'VS Code agent mode',
        out,
        (io) => importCopilotChatSessions({ source: opts.path, ...io }),
        (result) => {
          const known = result.sessions - result.created;
          return (
            `imported ${result.sessions} session(s) (${result.subagents} sub-agent(s)) from ${result.files} chat session file(s), ${result.turnsAdded} turn(s) added` +
            (known > 0 ? `; ${known} already stored` : '') +
            (result.skipped > 0 ? `; ${result.skipped} file(s) skipped` : '')
          );
        },
      ),
    );

  // OpenCode: its database, read from the bytes (docs/harnesses.md).
  importCommand
    .command(openCode.id)
    .description('import OpenCode sessions and their task sub-agents from its database (or from `opencode export` files)')
    .option(
      '--path <path>',
      "OpenCode's data folder or its opencode.db, or a folder of `opencode export` JSON files, or one (default: $XDG_DATA_HOME/opencode or ~/.local/share/opencode)",
    )
    .addOption(dataDirOption())
    .option('--json', 'machine-readable summary')
    .action((opts: ImportOpts & { path?: string }) =>
      runImport(opts, 'OpenCode', out, (io) => importOpenCode({ source: opts.path ?? defaultOpenCodeDataDir(), loadSqlJs, ...io }), importSummary),
    );
}
