// Hook health in `baton doctor`: hooks fired through the built hook command (dist/hook.js) against
// a real server, some of them failing, then the built CLI's report: per harness when its hooks last
// got through, the recent failures from hooks.log grouped, and the fix for each.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hookHealthReport, parseHookLogLine, renderHookHealth } from '../../src/core/hookHealth';
import { HookHealthRecorder, readHookFirings } from '../../src/node/hookHealth';
import { startDaemon } from '../../src/server/daemon';
import { runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { runHook as runHookProcess } from '../helpers/hookProcess';

/** The hook's exit status (its output is not what these tests look at). */
const runHook = async (harness: string, dataDir: string, payload: unknown) => (await runHookProcess(harness, dataDir, payload)).status;

interface HarnessJson {
  id: string;
  lastFired: { at: string; event: string } | null;
  events: Array<{ event: string; at: string }>;
  failures: Array<{ kind: string; event: string; step: string | null; reason: string; count: number }>;
  fixes: Array<{ kind: string; text: string; command?: string }>;
}

describe('baton doctor: the Hooks section (real hook command, real server, built CLI)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('shows per harness when hooks last fired, the recent failures grouped, and the fix for each', async () => {
    const dataDir = tempDir();
    const foreign = tempDir('baton-foreign-');
    // Outside the roots and unreadable for the hook too (a folder where the file should be), so the
    // hook cannot send the bytes itself (docs/security.md, "Transcripts outside the roots").
    const parentFile = path.join(foreign, 'p.jsonl');
    fs.mkdirSync(parentFile);
    const daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-roots-')] } });
    const firedFrom = new Date().toISOString();
    try {
      assert.equal(await runHook('claude-code', dataDir, { hook_event_name: 'UserPromptSubmit', session_id: 'p', cwd: '/r', prompt: 'hello' }), 0);
      // Twice: the same failure is one group with a count.
      for (const agent of ['a1', 'a2'])
        await runHook('claude-code', dataDir, { hook_event_name: 'SubagentStart', session_id: 'p', cwd: '/r', transcript_path: parentFile, agent_id: agent });
      // What the server recorded, right away: a new event is written at once.
      const firings = readHookFirings(dataDir).harnesses['claude-code'];
      assert.deepEqual(Object.keys(firings ?? {}).sort(), ['SubagentStart', 'UserPromptSubmit']);
      assert.ok(firings.SubagentStart >= firedFrom);
    } finally {
      await daemon.stop();
    }
    // No server any more: the hook notes that nothing listens.
    await runHook('claude-code', dataDir, { hook_event_name: 'Stop', session_id: 'p', cwd: '/r' });

    const text = runCli(['doctor', '--data-dir', dataDir]);
    assert.equal(text.status, 0, `hook failures do not fail doctor:\n${text.stdout}${text.stderr}`);
    const section = text.stdout.slice(text.stdout.indexOf('\nhooks\n'));
    if (process.env.BATON_TEST_SHOW) process.stdout.write(`--- baton doctor${section}\n`);
    assert.match(section, /\n {2}Claude Code \(claude-code\): last fired \S+ \(SubagentStart\)\n/);
    assert.match(section, /failed: SubagentStart step refresh-parent: \/api\/hooks\/user-prompt-submit: HTTP 400 invalid_request \(2×\), last /);
    assert.match(section, /failed: Stop: no running Baton endpoint for this data directory/);
    assert.match(section, /fix: The server refused a transcript file .*`baton install claude-code`.*transcriptRoots/);
    assert.match(section, /fix: No Baton endpoint was running .*`baton serve`/);
    assert.match(section, /Codex \(codex\): never fired\n {4}fix: .*trust/);
    assert.match(section, /OpenCode \(opencode\): never fired\n {4}fix: .*`baton install opencode`/);

    const json = JSON.parse(runCli(['doctor', '--json', '--data-dir', dataDir]).stdout) as { hooks: { harnesses: HarnessJson[] }; problems: string[] };
    const claude = json.hooks.harnesses.find((h) => h.id === 'claude-code')!;
    assert.equal(claude.lastFired?.event, 'SubagentStart');
    assert.deepEqual(
      claude.failures.map((f) => [f.kind, f.event, f.step, f.count]),
      [
        ['no-endpoint', 'Stop', null, 1],
        ['transcript-refused', 'SubagentStart', 'refresh-parent', 2],
      ],
    );
    assert.deepEqual(
      claude.fixes.map((f) => [f.kind, f.command]),
      [
        ['no-endpoint', undefined],
        ['transcript-refused', 'baton install claude-code'],
      ],
    );
    assert.deepEqual(json.problems, []);
  });
});

describe('baton doctor before any server ran: only hooks.log', function () {
  this.timeout(30_000);
  after(cleanupTempDirs);

  it('prints the full report with the hooks section and its fix (start a server), and exits 0', async () => {
    const dataDir = tempDir();
    assert.equal(await runHook('codex', dataDir, { hook_event_name: 'SessionStart', session_id: 's', cwd: '/r', source: 'startup' }), 0);
    const run = runCli(['doctor', '--data-dir', dataDir]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /\nserver {5}not running/);
    assert.match(run.stdout, /\nhooks\n {2}Claude Code \(claude-code\): never fired\n/);
    assert.match(
      run.stdout,
      /Codex \(codex\): never fired\n {4}failed: SessionStart: no running Baton endpoint for this data directory, last \S+\n {4}fix: .*`baton serve`/,
    );
  });
});

describe('hook health (pure report, and the recorder on disk)', () => {
  after(cleanupTempDirs);

  it('parses both hooks.log shapes, drops timings when grouping, and classifies each reason', () => {
    const lines = [
      '2026-11-27T07:00:00.000Z opencode session.idle: /api/hooks/user-prompt-submit: HTTP 400 invalid_request',
      '2026-11-27T07:00:01.000Z claude-code SubagentStop: step agent-transcript: /api/hooks/session-end: HTTP 413 payload_too_large after 12 ms',
      '2026-11-27T07:00:02.000Z claude-code SubagentStop: step agent-transcript: /api/hooks/session-end: HTTP 413 payload_too_large after 40 ms',
      '2026-11-27T07:00:03.000Z claude-code SessionStart: /api/hooks/session-start: HTTP 401 unauthorized after 3 ms (hook ran 20 ms)',
      '2026-11-27T07:00:04.000Z claude-code SubagentStart: step refresh-parent: gave up after 410 ms to leave time for the essential step',
      'not a log line',
    ];
    assert.deepEqual(parseHookLogLine(lines[1]), {
      at: '2026-11-27T07:00:01.000Z',
      harness: 'claude-code',
      event: 'SubagentStop',
      step: 'agent-transcript',
      reason: '/api/hooks/session-end: HTTP 413 payload_too_large after 12 ms',
    });
    assert.equal(parseHookLogLine(lines[5]), null);
    const report = hookHealthReport(
      [
        { id: 'claude-code', displayName: 'Claude Code', installable: true },
        { id: 'opencode', displayName: 'OpenCode', installable: true },
      ],
      { harnesses: { opencode: { 'session.created': '2026-11-27T06:00:00.000Z' } } },
      lines,
      { dataDir: '/d' },
    );
    const [claude, open] = report.harnesses;
    assert.deepEqual(
      claude.failures.map((f) => [f.kind, f.step, f.count, f.reason]),
      [
        ['too-slow', 'refresh-parent', 1, 'gave up to leave time for the essential step'],
        ['token-refused', null, 1, '/api/hooks/session-start: HTTP 401 unauthorized'],
        ['transcript-refused', 'agent-transcript', 2, '/api/hooks/session-end: HTTP 413 payload_too_large'],
      ],
    );
    assert.deepEqual(
      claude.fixes.map((f) => f.kind),
      ['too-slow', 'token-refused', 'transcript-refused', 'never-fired'],
    );
    assert.equal(open.lastFired?.event, 'session.created');
    assert.deepEqual(
      open.failures.map((f) => f.kind),
      ['transcript-refused'],
    );
    assert.match(renderHookHealth(report).join('\n'), /OpenCode \(opencode\): last fired 2026-11-27T06:00:00.000Z \(session.created\)/);
  });

  it('says the HTTP hooks stopped arriving when only SessionStart (the hook command) got through for a while', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const claude = { id: 'claude-code', displayName: 'Claude Code', installable: true, httpHooks: true };
    const kinds = (events: Record<string, string>, info: typeof claude | Omit<typeof claude, 'httpHooks'> = claude) =>
      hookHealthReport([info], { harnesses: { 'claude-code': events } }, [], { dataDir: '/d', now }).harnesses[0].fixes.map((f) => f.kind);
    // The prompts stopped after the last session started 20 minutes ago.
    assert.deepEqual(kinds({ SessionStart: '2026-11-27T11:40:00.000Z', UserPromptSubmit: '2026-11-27T09:00:00.000Z' }), ['http-silent']);
    // Never anything but SessionStart (a token that was never set).
    assert.deepEqual(kinds({ SessionStart: '2026-11-27T11:00:00.000Z' }), ['http-silent']);
    // A session that has just started, or whose prompts arrive: nothing to say.
    assert.deepEqual(kinds({ SessionStart: '2026-11-27T11:55:00.000Z', UserPromptSubmit: '2026-11-27T09:00:00.000Z' }), []);
    assert.deepEqual(kinds({ SessionStart: '2026-11-27T11:00:00.000Z', UserPromptSubmit: '2026-11-27T11:01:00.000Z' }), []);
    // A harness without HTTP hooks: not this rule.
    const { httpHooks: _none, ...commandOnly } = claude;
    assert.deepEqual(kinds({ SessionStart: '2026-11-27T11:00:00.000Z' }, commandOnly), []);
    const text = renderHookHealth(
      hookHealthReport([claude], { harnesses: { 'claude-code': { SessionStart: '2026-11-27T11:00:00.000Z' } } }, [], { dataDir: '/d', now }),
    ).join('\n');
    assert.match(text, /HTTP hooks of the other events stopped arriving.*baton install claude-code --command/);
  });

  it('the recorder writes a new event at once, holds repeats back, flushes at close, and never records an unusable name', () => {
    const dataDir = tempDir();
    const recorder = new HookHealthRecorder(dataDir, 60_000);
    recorder.record('codex', 'SessionStart', new Date('2026-11-27T07:00:00Z'));
    assert.equal(readHookFirings(dataDir).harnesses.codex.SessionStart, '2026-11-27T07:00:00.000Z');
    recorder.record('codex', 'SessionStart', new Date('2026-11-27T07:00:05Z'));
    assert.equal(readHookFirings(dataDir).harnesses.codex.SessionStart, '2026-11-27T07:00:00.000Z', 'a repeat waits for the interval');
    recorder.record('codex', 'bad name with spaces');
    recorder.record('x'.repeat(80), 'Stop');
    recorder.flushPending();
    assert.deepEqual(readHookFirings(dataDir), { harnesses: { codex: { SessionStart: '2026-11-27T07:00:05.000Z' } } });
    assert.equal((fs.statSync(path.join(dataDir, 'hook-health.json')).mode & 0o777).toString(8), '600');
  });
});
