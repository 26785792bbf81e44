// Hook health, per harness: when its hooks last got through to the server (recorded by the server
// in DIR/hook-health.json) and what failed lately (the hook command's and the OpenCode plugin's
// lines in DIR/hooks.log), each kind of failure with its fix. `baton doctor` prints it and VS
// Code's "Baton: Check Hooks" shows it (docs/harnesses.md, "When hooks fail"). Pure: the callers
// read the files and pass the harnesses of the registry.

/** What the server recorded: per harness, per event, when a hook call last succeeded (ISO time). */
export interface HookFirings {
  harnesses: Record<string, Record<string, string>>;
}

/** A harness as the report needs it (from the registry). */
export interface HookHarnessInfo {
  id: string;
  displayName: string;
  /** `baton install <id>` sets it up. */
  installable: boolean;
  /** Why its hooks may never have fired although installed, and the fix (e.g. a trust step). */
  neverFiredHint?: string;
  /** The harness posts HTTP hooks (all events but SessionStart, which runs the hook command). */
  httpHooks?: boolean;
}

/** How long only SessionStart may be the newest event before the report says the others stopped arriving. */
export const HTTP_SILENT_AFTER_MS = 10 * 60 * 1000;

/** One hooks.log line: `<ISO time> <harness> <event>: [step <step>: ]<reason>`. */
export interface HookLogLine {
  at: string;
  harness: string;
  event: string;
  step: string | null;
  reason: string;
}

export type FailureKind = 'no-endpoint' | 'transcript-refused' | 'token-refused' | 'too-slow' | 'bad-payload' | 'store-full' | 'other';

/** Failures of one kind at one event and step, grouped. */
export interface HookFailureGroup {
  kind: FailureKind;
  event: string;
  step: string | null;
  /** The reason with its timings dropped (it is the same failure however long it took). */
  reason: string;
  count: number;
  lastAt: string;
}

export interface HarnessHookHealth {
  id: string;
  displayName: string;
  /** The newest success of any event, or null: never. */
  lastFired: { at: string; event: string } | null;
  /** Every event with its last success, newest first. */
  events: Array<{ event: string; at: string }>;
  /** Among the last lines of hooks.log for this harness, newest group first. */
  failures: HookFailureGroup[];
  /** What to do, one line each: for every kind of failure seen, and for hooks that never fired. */
  fixes: HookFix[];
}

export interface HookFix {
  kind: FailureKind | 'never-fired' | 'http-silent';
  text: string;
  /** A command that applies it, when there is one (`baton install <id>`). */
  command?: string;
}

export interface HookHealthReport {
  harnesses: HarnessHookHealth[];
}

const LINE = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) (\S+) (\S+): (?:step ([\w-]+): )?(.*)$/;

export function parseHookLogLine(line: string): HookLogLine | null {
  const m = LINE.exec(line.trim());
  return m ? { at: m[1], harness: m[2], event: m[3], step: m[4] ?? null, reason: m[5] } : null;
}

/** The reason without its timings: `... after 12 ms (hook ran 30 ms)` → `...`. */
function withoutTimings(reason: string): string {
  return reason
    .replace(/ \(hook ran \d+ ms\)$/, '')
    .replace(/ after \d+ ms/g, '')
    .replace(/ gave up after \d+ ms/, ' gave up')
    .trim();
}

/** Steps and routes that carry a transcript file: a 400 there is the server refusing the file. */
const TRANSCRIPT_STEPS = new Set(['refresh-parent', 'transcript', 'agent-transcript', 'sync-subagent']);

export function failureKind(line: Pick<HookLogLine, 'step' | 'reason'>): FailureKind {
  const r = line.reason;
  if (/no running Baton endpoint|ECONNREFUSED/.test(r)) return 'no-endpoint';
  if (/HTTP 401\b/.test(r)) return 'token-refused';
  if (/HTTP 507\b|store full/.test(r)) return 'store-full';
  if (/timed out|deadline passed|gave up after|not closed in time/.test(r)) return 'too-slow';
  if (/HTTP (400|413)\b/.test(r) && ((line.step !== null && TRANSCRIPT_STEPS.has(line.step)) || /user-prompt-submit|session-end/.test(r)))
    return 'transcript-refused';
  if (/^stdin:|is required|must be a JSON object|HookInputError/.test(r)) return 'bad-payload';
  return 'other';
}

/** How the server marks the hooks.log lines it writes for a harness's HTTP hooks (server/routes.ts, server/app.ts). */
export const HTTP_HOOK_SUFFIX = '(HTTP hook)';
/** How the server marks the lines it writes for a hook command's relayed payload (its steps ran in the server). */
export const RELAYED_HOOK_SUFFIX = '(relayed hook)';

function fixFor(kind: FailureKind, harness: HookHarnessInfo, dataDir: string, viaHttp = false): HookFix | null {
  const install = harness.installable ? `baton install ${harness.id}` : undefined;
  switch (kind) {
    case 'no-endpoint':
      return { kind, text: 'No Baton endpoint was running for this data directory: open VS Code with the Baton extension, or run `baton serve`.' };
    case 'transcript-refused':
      return {
        kind,
        text:
          'The server refused a transcript file (outside the folders it reads, unreadable, or over the size limit)' +
          (viaHttp && install
            ? `: an HTTP hook carries no transcript bytes, so install the hook command (\`${install} --command\`), which sends them itself`
            : install
              ? `: run \`${install}\` again from the environment the harness runs in (its config folder)`
              : '') +
          `, or add the folder to \`transcriptRoots\` in ${dataDir}/config.json.`,
        command: viaHttp && install ? `${install} --command` : install,
      };
    case 'token-refused':
      return {
        kind,
        text: `The endpoint refused the hook's token: the hook reads another data directory than the running server${install ? `; run \`${install}\` again` : ''}.`,
        command: install,
      };
    case 'too-slow':
      return { kind, text: "The endpoint did not answer within the hook's budget: check the store above (a busy or damaged store), and the server log." };
    case 'store-full':
      return {
        kind,
        text: `The store is at its size limit and refuses what would make it larger (docs/storage.md, "How big a store can grow"): export the sessions you want to keep (\`baton export > sessions.jsonl\`), then move ${dataDir} aside or run Baton with another --data-dir.`,
      };
    case 'bad-payload':
      return {
        kind,
        text: `The hook got a payload it cannot use: the harness version may send other fields${install ? `; update Baton and run \`${install}\` again` : ''}.`,
        command: install,
      };
    default:
      return null;
  }
}

/**
 * The report: every harness given, with its last firing, its failures among `logLines` (the tail of
 * hooks.log, oldest first; the last `maxFailures` lines per harness are kept) and the fixes.
 */
export function hookHealthReport(
  harnesses: readonly HookHarnessInfo[],
  firings: HookFirings,
  logLines: readonly string[],
  options: { dataDir: string; maxFailures?: number; now?: Date },
): HookHealthReport {
  const now = (options.now ?? new Date()).getTime();
  const parsed = logLines.map(parseHookLogLine).filter((l): l is HookLogLine => l !== null);
  return {
    harnesses: harnesses.map((h) => {
      const events = Object.entries(firings.harnesses[h.id] ?? {})
        .map(([event, at]) => ({ event, at }))
        .sort((a, b) => b.at.localeCompare(a.at));
      const mine = parsed.filter((l) => l.harness === h.id).slice(-(options.maxFailures ?? 20));
      const groups = new Map<string, HookFailureGroup>();
      for (const line of mine) {
        const kind = failureKind(line);
        const reason = withoutTimings(line.reason);
        const key = `${line.event}\u0000${line.step ?? ''}\u0000${reason}`;
        const group = groups.get(key) ?? { kind, event: line.event, step: line.step, reason, count: 0, lastAt: line.at };
        group.count++;
        if (line.at > group.lastAt) group.lastAt = line.at;
        groups.set(key, group);
      }
      const failures = [...groups.values()].sort((a, b) => b.lastAt.localeCompare(a.lastAt));
      const fixes: HookFix[] = [];
      for (const kind of new Set(failures.map((f) => f.kind))) {
        const viaHttp = failures.some((f) => f.kind === kind && f.reason.endsWith(HTTP_HOOK_SUFFIX));
        const fix = fixFor(kind, h, options.dataDir, viaHttp);
        if (fix) fixes.push(fix);
      }
      if (events.length === 0 && h.installable) {
        const install = `baton install ${h.id}`;
        fixes.push({
          kind: 'never-fired',
          text: h.neverFiredHint ?? `No hook of ${h.displayName} has reached Baton yet: run \`${install}\`, then start a new ${h.displayName} session.`,
          command: install,
        });
      }
      // SessionStart (the hook command) still arrives but no HTTP-posted event since, for a while:
      // Claude Code's HTTP hooks do not get through, and Claude Code says nothing of it.
      const newest = events[0];
      if (h.httpHooks && newest?.event === 'SessionStart' && now - Date.parse(newest.at) > HTTP_SILENT_AFTER_MS) {
        const install = `baton install ${h.id}`;
        fixes.push({
          kind: 'http-silent',
          text:
            `Only SessionStart has reached Baton since ${newest.at}: the HTTP hooks of the other events stopped arriving. ` +
            `Check that the URL in ${h.displayName}'s settings is the running server's (the next session's SessionStart points it there) ` +
            `and that its token is set (\`${install}\` writes it); \`${install} --command\` uses the hook command instead.`,
          command: install,
        });
      }
      return { id: h.id, displayName: h.displayName, lastFired: events[0] ?? null, events, failures, fixes };
    }),
  };
}

/** The report as plain lines (the CLI indents them; VS Code wraps them in Markdown). */
export function renderHookHealth(report: HookHealthReport): string[] {
  const lines: string[] = [];
  for (const h of report.harnesses) {
    lines.push(`${h.displayName} (${h.id}): ${h.lastFired ? `last fired ${h.lastFired.at} (${h.lastFired.event})` : 'never fired'}`);
    if (h.events.length > 1) lines.push(`  events: ${h.events.map((e) => `${e.event} ${e.at}`).join(', ')}`);
    for (const f of h.failures)
      lines.push(`  failed: ${f.event}${f.step ? ` step ${f.step}` : ''}: ${f.reason}${f.count > 1 ? ` (${f.count}×)` : ''}, last ${f.lastAt}`);
    for (const fix of h.fixes) lines.push(`  fix: ${fix.text}`);
  }
  return lines;
}

/** The report as a Markdown document (VS Code's "Baton: Check Hooks"). */
export function renderHookHealthMarkdown(report: HookHealthReport, dataDir: string): string {
  const lines = ['# Baton hooks', '', `Data directory: \`${dataDir}\` (failures from \`hooks.log\`, firings from \`hook-health.json\`)`];
  for (const h of report.harnesses) {
    lines.push('', `## ${h.displayName} (\`${h.id}\`)`, '');
    lines.push(`- Last fired: ${h.lastFired ? `${h.lastFired.at} (${h.lastFired.event})` : 'never'}`);
    if (h.events.length > 1) lines.push(`- Events: ${h.events.map((e) => `${e.event} ${e.at}`).join(', ')}`);
    if (h.failures.length) {
      lines.push('', '### Recent failures', '');
      for (const f of h.failures)
        lines.push(`- ${f.event}${f.step ? ` (step ${f.step})` : ''}: \`${f.reason}\`${f.count > 1 ? ` — ${f.count}×` : ''}, last ${f.lastAt}`);
    }
    if (h.fixes.length) {
      lines.push('', '### Fix', '');
      for (const fix of h.fixes) lines.push(`- ${fix.text}`);
    }
  }
  return lines.join('\n') + '\n';
}
