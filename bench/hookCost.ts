// `npm run bench` (fourth part): what a Baton hook costs as the harness sees it, the wall time from
// handing the event over to having the answer, per event and per harness, in one run against:
//   - no hook: the harness spawns nothing (0 ms by definition), and any process at all (/bin/true);
//   - the Node floor: `node -e 0`, and a node that reads stdin and prints (what any hook written
//     for Node costs before it does anything);
//   - the command hook itself, `node dist/hook.js <harness>` with the payload on stdin, with the
//     endpoint down (its start-up alone) and against a running `baton serve`;
//   - Claude Code's HTTP path: the same payloads POSTed to /api/hooks/claude-code by a client that
//     is already running (what a harness's own HTTP hooks do), over one kept-alive connection.
// Everything is interleaved: each iteration runs every floor and every harness's events once, so
// the shared machine's load falls on all rows alike. Then the real Claude Code CLI runs a 20-prompt
// session against a scripted model, with and without Baton's hooks (bench/hookSession.ts).
// Loopback only, bounded: every process is killed after 10 s, every loop has its count.
//
//   node --import tsx bench/hookCost.ts [--iterations 30] [--prompts 20] [--no-cli] [--write]
//   --write (or BENCH_WRITE=1) writes bench/RESULTS-hook-cost.md.
//   BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { deliversBlock, EVENTS, HARNESSES, iterationCalls, type BenchEvent, type BenchHarness, type HookCall, type PayloadFolders } from './hookPayloads';
import { claudeSessionCost, startServe, type SessionCost } from './hookSession';
import { summarize } from './stats';
import type { Summary } from './types';

const ROOT = path.resolve(__dirname, '..');
const HOOK = path.join(ROOT, 'dist', 'hook.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const RESULTS = path.join(ROOT, 'bench', 'RESULTS-hook-cost.md');
const PROCESS_KILL_MS = 10_000;
/** What the command hooks aim for: within this of the Node floor (node reading stdin and printing), p50. */
const COMMAND_TARGET_MS = 10;
/** What Claude Code's events aim for, p50 (whichever path). */
const CLAUDE_TARGET_MS = 15;

interface Options {
  iterations: number;
  prompts: number;
  cli: boolean;
  write: boolean;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const iterations = Number(value('--iterations') ?? 30);
  const prompts = Number(value('--prompts') ?? 20);
  if (!(iterations > 0 && iterations <= 1000) || !(prompts > 0 && prompts <= 200))
    throw new Error('usage: hookCost.ts [--iterations 1..1000] [--prompts 1..200] [--no-cli] [--write]');
  return { iterations, prompts, cli: !argv.includes('--no-cli'), write: argv.includes('--write') || process.env.BENCH_WRITE === '1' };
}

/** A process run to its end: wall time from spawn to its output closed, exit status and stdout. */
function timedProcess(
  command: string,
  args: string[],
  input: string | null,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c));
    const kill = setTimeout(() => child.kill('SIGKILL'), PROCESS_KILL_MS);
    child.on('close', (status) => {
      clearTimeout(kill);
      resolve({ ms: performance.now() - started, status, stdout });
    });
    if (input !== null) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(input);
    }
  });
}

/** `baton serve` on a fresh data directory whose config allows the benchmark's harness folders. */
/** BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=DIR") goes to the server's node: profiles it. */
function serverNodeArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

async function startServer(dataDir: string, roots: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; token: string }> {
  fs.writeFileSync(path.join(dataDir, 'config.json'), JSON.stringify({ transcriptRoots: roots }));
  const child = await startServe(dataDir, env, serverNodeArgs());
  const endpoint = JSON.parse(fs.readFileSync(path.join(dataDir, 'endpoint.json'), 'utf8')) as { port: number; token: string };
  return { child, port: endpoint.port, token: endpoint.token };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000)).then(() => child.kill('SIGKILL'))]);
}

/** A running client's POST over one kept-alive connection: the HTTP path's wall time. */
function httpPoster(
  port: number,
  token: string,
): { post: (route: string, body: unknown) => Promise<{ ms: number; status: number; text: string }>; agent: http.Agent } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (route: string, body: unknown) =>
    new Promise<{ ms: number; status: number; text: string }>((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const started = performance.now();
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: route,
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': payload.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.setTimeout(PROCESS_KILL_MS, () => req.destroy(new Error(`${route}: no answer in ${PROCESS_KILL_MS} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  return { post, agent };
}

/** Samples of one row; failures (a non-zero exit, an HTTP error, a block not delivered) are counted, not timed. */
class Row {
  readonly ms: number[] = [];
  failed = 0;
  why?: string;
  add(ms: number, ok: boolean, why?: string): void {
    if (ok) this.ms.push(ms);
    else {
      this.failed++;
      this.why ??= why;
    }
  }
  summary(): Summary | null {
    return this.ms.length ? summarize(this.ms) : null;
  }
}

/** The 95th percentile (nearest rank) of a row's samples. */
function p95(row: Row): number {
  const sorted = [...row.ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(0.95 * sorted.length) - 1))] ?? NaN;
}

const READ_AND_PRINT = "let n=0;process.stdin.on('data',(c)=>{n+=c.length}).on('end',()=>process.stdout.write(n+'\\n'))";

interface Measured {
  floors: Map<string, Row>;
  command: Map<string, Row>;
  httpPath: Map<BenchEvent, Row>;
}

const key = (harness: BenchHarness, event: BenchEvent) => `${harness} ${event}`;

async function measure(opts: Options, work: string): Promise<Measured> {
  const folders: PayloadFolders = {
    claudeDir: path.join(work, 'claude'),
    copilotDir: path.join(work, 'vscode-transcripts'),
    copilotHome: path.join(work, 'copilot-home'),
  };
  for (const dir of Object.values(folders)) fs.mkdirSync(dir, { recursive: true });
  const dataDir = path.join(work, 'baton-data');
  const downDir = path.join(work, 'baton-down');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  fs.mkdirSync(downDir, { mode: 0o700 });
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_CONFIG_DIR: folders.claudeDir, COPILOT_HOME: folders.copilotHome, NO_PROXY: '127.0.0.1' };
  delete env.AGENT_SESSION_ID;
  const server = await startServer(
    dataDir,
    [path.join(folders.claudeDir, 'projects'), folders.copilotDir, path.join(folders.copilotHome, 'session-state')],
    env,
  );
  const client = httpPoster(server.port, server.token);
  const floors = new Map<string, Row>(
    ['any process (/bin/true)', 'node -e 0', 'node reading stdin and printing', 'node dist/hook.js, endpoint down'].map((n) => [n, new Row()]),
  );
  const command = new Map<string, Row>();
  const httpPath = new Map<BenchEvent, Row>(EVENTS.map((e) => [e, new Row()]));
  const sample = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'floor', prompt: 'Refactor the checkout flow' });
  try {
    for (let i = 0; i < opts.iterations; i++) {
      const floor = async (name: string, command: string, args: string[], input: string | null) => {
        const r = await timedProcess(command, args, input, env);
        floors.get(name)!.add(r.ms, r.status === 0, `exit ${r.status}`);
      };
      await floor('any process (/bin/true)', '/bin/true', [], null);
      await floor('node -e 0', process.execPath, ['-e', '0'], null);
      await floor('node reading stdin and printing', process.execPath, ['-e', READ_AND_PRINT], sample);
      await floor('node dist/hook.js, endpoint down', process.execPath, [HOOK, 'claude-code', '--data-dir', downDir], sample);
      for (const harness of HARNESSES) {
        const calls = iterationCalls(harness, folders, `bench-${harness}-${i}`);
        for (const call of calls.timed) {
          for (const setup of calls.setup.filter((s) => s.before === call.event)) await runCommandHook(harness, setup.call, dataDir, env);
          const r = await runCommandHook(harness, call, dataDir, env);
          const row = command.get(key(harness, call.event)) ?? command.set(key(harness, call.event), new Row()).get(key(harness, call.event))!;
          const delivered = !call.deliversBlock || deliversBlock(r.stdout);
          row.add(r.ms, r.status === 0 && delivered, r.status !== 0 ? `exit ${r.status}` : 'no inherited block in the output');
        }
      }
      // Claude Code's HTTP path: the same calls, sessions of their own.
      for (const call of iterationCalls('claude-code', folders, `bench-http-${i}`).timed) {
        const r = await client.post('/api/hooks/claude-code', call.payload);
        const delivered = !call.deliversBlock || deliversBlock(r.text);
        httpPath.get(call.event)!.add(r.ms, r.status === 200 && delivered, r.status !== 200 ? `HTTP ${r.status}` : 'no inherited block in the answer');
      }
      if ((i + 1) % 10 === 0) process.stderr.write(`[hook-cost] ${i + 1}/${opts.iterations} iterations\n`);
    }
  } finally {
    client.agent.destroy();
    await stopServer(server.child);
  }
  return { floors, command, httpPath };
}

function runCommandHook(harness: BenchHarness, call: HookCall, dataDir: string, env: NodeJS.ProcessEnv) {
  const args = [HOOK, harness, ...(call.eventFlag ? ['--event', call.eventFlag] : []), '--data-dir', dataDir];
  return timedProcess(process.execPath, args, JSON.stringify(call.payload), env);
}

// ---- the report ----

const fmt = (v: number) => (Number.isNaN(v) ? '—' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));

function cells(row: Row | undefined): string {
  const s = row?.summary();
  if (!row || !s) return row?.failed ? `failed ${row.failed}/${row.failed} (${row.why}) | — ` : '— | —';
  return `${fmt(s.p50)}${row.failed ? ` (${row.failed} failed: ${row.why})` : ''} | ${fmt(p95(row))}`;
}

function machine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function codeVersion(): string {
  try {
    const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim() ? ' (src modified)' : '';
    return `commit ${commit}${dirty}`;
  } catch {
    return 'unknown commit';
  }
}

function report(m: Measured, session: SessionCost | null, opts: Options, hookBytes: number): string {
  const floor = m.floors.get('node reading stdin and printing')!.summary();
  const lines: string[] = [
    `Code: ${codeVersion()}. Machine: ${machine()}. dist/hook.js: ${(hookBytes / 1024).toFixed(0)} KB. ${opts.iterations} iterations, interleaved; wall ms from handing the event over to having the answer. Load average at the end: ${os.loadavg()[0].toFixed(2)}.`,
    '',
    '### Floors',
    '',
    '| what runs | p50 ms | p95 ms |',
    '|---|---:|---:|',
    '| no hook (the harness spawns nothing) | 0 | 0 |',
    ...[...m.floors].map(([name, row]) => `| ${name} | ${cells(row)} |`),
    '',
    `### Command hooks: \`node dist/hook.js <harness>\` against \`baton serve\``,
    '',
    `Over the Node floor = p50 minus the p50 of a node reading stdin and printing (${floor ? fmt(floor.p50) : '—'} ms); target ≤ ${COMMAND_TARGET_MS} ms. SubagentStart counts only when its output hands over the inherited block.`,
    '',
    `| harness | event | p50 ms | p95 ms | over the Node floor, p50 | |`,
    '|---|---|---:|---:|---:|---|',
  ];
  for (const harness of HARNESSES)
    for (const event of EVENTS) {
      const row = m.command.get(key(harness, event));
      if (!row) {
        lines.push(`| ${harness} | ${event} | — | — | — | no such hook |`);
        continue;
      }
      const s = row.summary();
      const over = s && floor ? s.p50 - floor.p50 : NaN;
      lines.push(`| ${harness} | ${event} | ${cells(row)} | ${fmt(over)} | ${Number.isNaN(over) ? '—' : over <= COMMAND_TARGET_MS ? 'pass' : '**fail**'} |`);
    }
  lines.push(
    '',
    `### Claude Code's HTTP path: POST /api/hooks/claude-code from a running client`,
    '',
    `One kept-alive connection, the same payloads; target ≤ ${CLAUDE_TARGET_MS} ms p50.`,
    '',
    '| event | p50 ms | p95 ms | |',
    '|---|---:|---:|---|',
    ...EVENTS.map((event) => {
      const row = m.httpPath.get(event)!;
      const s = row.summary();
      return `| ${event} | ${cells(row)} | ${s ? (s.p50 <= CLAUDE_TARGET_MS ? 'pass' : '**fail**') : '—'} |`;
    }),
  );
  if (session) {
    lines.push(
      '',
      `### The real Claude Code CLI (${session.version}): a ${session.prompts}-prompt session against a scripted model`,
      '',
      session.how,
      '',
      '| hooks | total s | per prompt ms | over no hooks, per prompt ms |',
      '|---|---:|---:|---:|',
      ...session.runs.map((r) => {
        const per = r.totalMs / session.prompts;
        const none = session.runs[0].totalMs / session.prompts;
        return `| ${r.label} | ${(r.totalMs / 1000).toFixed(2)} | ${fmt(per)} | ${r === session.runs[0] ? '—' : fmt(per - none)} |`;
      }),
      ...session.notes.map((n) => `- ${n}`),
    );
  }
  return lines.join('\n');
}

const HEADER = `# What a Baton hook costs the harness

\`bench/hookCost.ts\` (part of \`npm run bench\`): per event and per harness, the wall time from the
harness handing the event over to having the answer, with the floors measured in the same run. The
payloads are the recorded hook inputs of test/fixtures (VS Code agent mode, Copilot CLI) and the
connector tests' payloads with the recorded Claude Code session and sub-agent (Claude Code, Codex).
The server is \`baton serve\` on 127.0.0.1 in its own process; every session is fresh per iteration.

How to read it: a command hook is the Node floor, plus the hook's own start (compare "node
dist/hook.js, endpoint down" with the floor), plus one exchange with the server (the HTTP rows are
that exchange alone). On a loaded machine every wait in that exchange is a chance to lose the CPU,
so the command rows grow faster with load than the floor does; compare rows of one run only.

Below the Node floor there is no Node start per event: the harness's own HTTP hooks (Claude Code's
\`type: "http"\`, \`baton install claude-code --http\`) pay the exchange alone; for harnesses that
only run commands, a native hook client (a small static binary, or \`curl\` in a shell script)
starts in 1–5 ms but must do what \`src/connectors/runHook.ts\` does (find the endpoint, one
deadline, one hooks.log line per failure, bounded reads of the files a payload names, the
harness's output) in a second language, built per platform (docs/harnesses.md, "What a hook costs").
`;

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  for (const file of [HOOK, CLI]) if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-hooks-'));
  let body: string;
  try {
    process.stderr.write(`[hook-cost] ${opts.iterations} iterations of every floor and every harness's events…\n`);
    const measured = await measure(opts, work);
    const session = opts.cli ? await claudeSessionCost(opts.prompts, path.join(work, 'cli')) : null;
    body = report(measured, session, opts, fs.statSync(HOOK).size);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(body + '\n');
  if (opts.write) fs.writeFileSync(RESULTS, `${HEADER}\n${body}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
