// `baton doctor`: a read-only health report (exit 1 when anything is wrong), and with --repair the
// one command that changes a damaged data directory: it says what it will do, moves every damaged
// file into DIR/quarantine/ (never deleting one), and checks again. On a fresh machine (no data
// directory yet) it reports just as fully and creates nothing: where the data will go, that no
// server runs, each harness's hooks with their fix; that is not a problem. A path Baton cannot use
// or record in is (node/dataDirState.ts). A stale lock is a note: the next open takes it over.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command, Option } from 'commander';
import { runDoctor, type DoctorReport } from '../store/doctor';
import { cleanJournalBytes, scanJournal } from '../store/engine/journal';
import { moveToQuarantine, replaceKeepingOriginal } from '../store/engine/quarantine';
import { ACCEPT_LOSS_COMMAND, describeRange } from '../store/engine/recovery';
import { resolveDataDir } from '../node/paths';
import { Store } from '../store/store';
import { warnAboutPermissions } from './dataDirChecks';
import { renderHookHealth, type HookHealthReport } from '../core/hookHealth';
import { readHookHealthReport } from '../node/hookHealth';
import { inspectDataDir, recordingProblem } from '../node/dataDirState';
import { liveEndpoint } from '../node/endpointCall';
import { firstSteps } from './firstSteps';
import { hookHealthHarnesses } from '../harnesses/registry';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

/** The "Hooks" section: per harness, when its hooks last got through, what failed lately and the fix. */
function renderHooks(hooks: HookHealthReport): string {
  return ['hooks', ...renderHookHealth(hooks).map((line) => `  ${line}`)].join('\n');
}

/** Whether a server holds the data directory, and where (never its token). */
type ServerState = { running: false } | { running: true; url: string; pid: number };

function serverState(dataDir: string): ServerState {
  const endpoint = liveEndpoint(dataDir);
  return endpoint ? { running: true, url: endpoint.url, pid: endpoint.pid } : { running: false };
}

function renderServer(server: ServerState): string {
  return `server     ${server.running ? `running at ${server.url} (pid ${server.pid})` : 'not running (baton serve, or VS Code with the Baton extension, starts one)'}`;
}

function render(report: DoctorReport, server: ServerState): string {
  const lock = report.lock.holder
    ? ` (${report.lock.holder.holder}, pid ${report.lock.holder.pid}${report.lock.holder.port ? `, port ${report.lock.holder.port}` : ''}${report.lock.state === 'stale' ? ', not running' : ''})`
    : '';
  const recovery = report.recovery;
  const recorded = report.exists && (report.snapshots.length > 0 || report.journal.length > 0);
  return [
    `data dir   ${report.dataDir}${report.exists ? '' : ' (does not exist yet: created when Baton first records)'}`,
    renderServer(server),
    `lock       ${report.lock.state}${lock}`,
    ...(recorded || report.store
      ? [
          `snapshots  ${report.snapshots.length === 0 ? 'none' : report.snapshots.map((s) => `seq ${s.seq} ${(s.bytes / 1e6).toFixed(1)} MB ${s.valid ? 'ok' : 'DAMAGED'}`).join('; ')}`,
          `journal    ${report.journal.length} file(s), ${report.journal.reduce((n, j) => n + j.frames, 0)} frame(s), ${report.journal.reduce((n, j) => n + j.bytes, 0)} bytes`,
          recovery
            ? `state      reaches seq ${recovery.appliedSeq} of ${recovery.knownSeq} written${recovery.snapshot ? ` (from ${path.basename(recovery.snapshot)} and the journal)` : ' (from the journal alone)'}`
            : '',
          `integrity  ${report.integrity ? report.integrity.join('; ') : report.lock.state === 'held' ? 'not checked (held by a running process)' : 'n/a'}`,
        ]
      : []),
    report.store
      ? `store      ${report.store.sessions} sessions, ${report.store.turns} turns, ${report.store.textChars} chars, seq ${report.store.appliedSeq}`
      : 'store      nothing recorded yet',
    ...(report.store?.sessions ? [] : firstSteps().map((line) => `           ${line}`)),
    report.quarantine.length ? `quarantine ${report.quarantine.length} file(s) in ${path.dirname(report.quarantine[0])}` : '',
    ...report.notes.map((n) => `note       ${n}`),
    report.storage
      ? `size       database file ${(report.storage.fileBytes / 1e6).toFixed(1)} MB of its ${(report.storage.limitBytes / 1e6).toFixed(0)} MB limit (${report.storage.state})`
      : '',
    ...report.warnings.map((w) => `warning    ${w}`),
    ...report.problems.map((p) => `problem    ${p}`),
  ]
    .filter(Boolean)
    .join('\n');
}

/** What --repair will change, one line each. */
function plan(report: DoctorReport, acceptLoss: boolean): string[] {
  const lines: string[] = [];
  if (report.lock.state === 'stale') lines.push(`take over the stale lock ${path.join(report.dataDir, 'baton.lock')}`);
  for (const s of report.snapshots.filter((s) => !s.valid)) lines.push(`move the damaged snapshot ${s.file} to quarantine`);
  for (const j of report.journal.filter((j) => j.tornBytes + j.damagedBytes + j.repairedFrames > 0)) {
    lines.push(`replace ${j.file} by a copy holding its ${j.frames} valid frame(s); the original goes to quarantine`);
  }
  if (acceptLoss) for (const m of report.recovery?.missing ?? []) lines.push(`open without ${describeRange(m)} and write a snapshot of what remains`);
  else if (report.snapshots.some((s) => !s.valid) && report.recovery?.appliedSeq) lines.push(`write a fresh snapshot at seq ${report.recovery.appliedSeq}`);
  return lines;
}

/** Applies the plan: an open (with the store's own recovery), then the damage an open does not read. */
async function repair(dataDir: string, report: DoctorReport, acceptLoss: boolean, out: (text: string) => void): Promise<void> {
  const store = await Store.open({ dataDir, holder: 'baton doctor --repair', acceptLoss });
  try {
    for (const event of store.report.events) out(`done       ${event.message}`);
    // Older snapshots and journal files inside the snapshot: an open does not need (or read) them.
    for (const s of report.snapshots.filter((s) => !s.valid && fs.existsSync(s.file))) {
      out(`done       damaged snapshot ${s.file} moved to ${moveToQuarantine(dataDir, s.file)}`);
    }
    for (const j of report.journal.filter((j) => j.tornBytes + j.damagedBytes + j.repairedFrames > 0 && fs.existsSync(j.file))) {
      const data = fs.readFileSync(j.file);
      const read = scanJournal(data);
      if (read.droppedBytes === 0 && !read.frames.some((f) => f.lengthRepaired)) continue; // the open already did it
      out(`done       journal ${j.file} rewritten; the original is in ${replaceKeepingOriginal(dataDir, j.file, cleanJournalBytes(data, read.frames))}`);
    }
  } finally {
    await store.close();
  }
}

export function registerDoctorCommand(program: Command, { dataDirOption, out }: Helpers): void {
  program
    .command('doctor')
    .description(
      'check the data directory (read-only, creates nothing): server, lock, snapshots, journal, database integrity and hooks; exits 1 on any problem',
    )
    .addOption(dataDirOption())
    .option('--json', 'machine-readable output')
    .option('--repair', 'fix what was found: damaged files are moved to DIR/quarantine/, never deleted')
    .option('--accept-loss', 'with --repair: go ahead even when acknowledged writes are missing')
    .action(async (opts: { dataDir?: string; json?: boolean; repair?: boolean; acceptLoss?: boolean }) => {
      const dataDir = resolveDataDir({ flag: opts.dataDir });
      // Hook health is a report, not a problem of the data directory: it leaves the exit code alone.
      const hooks = readHookHealthReport(dataDir, hookHealthHarnesses());
      const server = serverState(dataDir);
      const state = inspectDataDir(dataDir);
      if (state.kind === 'unusable') {
        // Nothing in it can be checked: the cause is the report's one problem.
        const problems = [`Baton cannot use this data directory: ${state.problem}`];
        out(
          opts.json
            ? JSON.stringify({ dataDir, server, problems, hooks }, null, 2)
            : [`data dir   ${dataDir}`, renderServer(server), ...problems.map((p) => `problem    ${p}`), renderHooks(hooks)].join('\n'),
        );
        process.exitCode = 1;
        return;
      }
      warnAboutPermissions(dataDir);
      let report = await runDoctor(dataDir);
      // Nothing recorded yet is no problem; a place where nothing ever could be is.
      const cannotRecord = state.kind === 'empty' ? recordingProblem(dataDir) : null;
      if (cannotRecord) report.problems.push(`Baton cannot record here: ${cannotRecord}`);
      out(opts.json ? JSON.stringify({ ...report, server, hooks }, null, 2) : `${render(report, server)}\n${renderHooks(hooks)}`);
      if (report.problems.length > 0) process.exitCode = 1;
      if (!opts.repair || report.problems.length === 0 || state.kind === 'empty') return; // nothing recorded: nothing to repair
      if (report.lock.state === 'held')
        throw new Error(`not repairing: ${report.lock.holder!.holder} (pid ${report.lock.holder!.pid}) holds ${dataDir}; stop it first`);
      if (report.recovery?.missing.length && !opts.acceptLoss) {
        throw new Error(
          `not repairing: acknowledged writes are missing (see above). To repair without them: baton doctor --repair --accept-loss (or ${ACCEPT_LOSS_COMMAND})`,
        );
      }
      const steps = plan(report, opts.acceptLoss ?? false);
      process.stderr.write(`repairing ${dataDir}:\n${steps.map((s) => `  will ${s}`).join('\n')}\n`);
      await repair(dataDir, report, opts.acceptLoss ?? false, (line) => process.stderr.write(line + '\n'));
      report = await runDoctor(dataDir);
      process.stderr.write(`after repair:\n${render(report, serverState(dataDir))}\n`);
      process.exitCode = report.problems.length > 0 ? 1 : 0;
    });
}
