// `npm run bench` (third part): what Claude Code's hooks cost as a session's transcript grows.
// Claude Code-format JSONL sessions (bench/claudeSession.ts) are grown to each size under the
// Claude Code transcript folder the server allows (CLAUDE_CONFIG_DIR/projects), with a hook call
// every few MB as a live session would make. Every size's server runs at once and the iterations
// alternate between sizes, so the shared machine's load falls on all sizes alike. Over HTTP on
// 127.0.0.1 with the hook token and through Claude Code's own hook mapping
// (src/harnesses/claudeCode/hooks.ts), each iteration appends one new exchange to the file and times:
//   - prompt-submit: the UserPromptSubmit hook (the server reads the transcript named by its path),
//     with a search sent at the same moment ("search alongside");
//   - a quiet search: the same query with nothing else running;
//   - sub-agent-start: the SubagentStart hook (refreshes the parent's transcript, then opens the
//     child and builds its inherited block).
// Native baselines in the same run, in this process: reading only the appended bytes, parsing
// them and inserting their turns into SQLite (better-sqlite3, FTS5, durable), and reading and
// parsing the whole file (what any full re-read costs before any store work).
// Targets: the 200 MB figures within 1.5× of the 1 MB ones; the search alongside within 1.5× of
// the quiet search.
//
//   node --import tsx bench/transcripts.ts [--sizes 1,20,200] [--iterations 30] [--write] [--label NAME]
//   BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the servers.
//   BENCH_WRITE=1 is the same as --write: the run becomes the section NAME of bench/RESULTS-transcripts.md
//   (other sections are kept, so a "before" and an "after" run sit side by side).

import Database from 'better-sqlite3';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiClient, type Transport } from '../src/api/client';
import { pathOf, ROUTES } from '../src/api/routes';
import { hookHarnesses } from '../src/harnesses/registry';
import { ClaudeSessionWriter } from './claudeSession';
import { mix } from './workload';
import { summarize } from './stats';
import type { Summary } from './types';

const ROOT = path.resolve(__dirname, '..');
const MB = 1024 * 1024;
const RESULTS = path.join(ROOT, 'bench', 'RESULTS-transcripts.md');
const SEED = 0x7a5c;
const TARGET_RATIO = 1.5;
/** A live session's hooks while the file grows to size: one every this many bytes (at most 25 calls). */
const GROW_STEPS = 25;
/** Samples of the whole-file read baseline (it is slow at 200 MB and tells the same thing each time). */
const FULL_READ_SAMPLES = 3;
/** Pause between timed operations, so one's after-work does not land in the next one's time. */
const SETTLE_MS = 30;

interface Options {
  sizes: number[];
  iterations: number;
  write: boolean;
  label: string;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const sizes = (value('--sizes') ?? process.env.BENCH_TRANSCRIPT_SIZES ?? '1,20,200')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  const iterations = Number(value('--iterations') ?? 30);
  if (!sizes.length || !(iterations > 0)) throw new Error('usage: transcripts.ts [--sizes 1,20,200] [--iterations 30] [--write] [--label NAME]');
  return { sizes, iterations, write: argv.includes('--write') || process.env.BENCH_WRITE === '1', label: value('--label') ?? 'latest' };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A timed operation's outcome: its milliseconds, or why the server refused it. */
type Outcome = { ms: number; error?: string };

async function timed(op: () => Promise<unknown>): Promise<Outcome> {
  const started = performance.now();
  try {
    await op();
    return { ms: performance.now() - started };
  } catch (err) {
    return { ms: performance.now() - started, error: (err as Error).message };
  }
}

/** Samples of one operation; the first refusal, when the server refused any. */
class Series {
  readonly ms: number[] = [];
  refused = 0;
  reason?: string;
  add(o: Outcome): void {
    if (o.error === undefined) this.ms.push(o.ms);
    else {
      this.refused++;
      this.reason ??= o.error;
    }
  }
  summary(): Summary | null {
    return this.ms.length ? summarize(this.ms) : null;
  }
}

/**
 * Calls over one kept-alive connection of its own. The hooks and the searches each get one, so a
 * search sent alongside a prompt-submit never waits for a connection to be opened or freed.
 */
function connectionTransport(url: string, token: string): { transport: Transport; agent: http.Agent; calls: Array<{ id: string; ms: number }> } {
  /** Every call's route and time, so a hook's time can be split into its calls. */
  const calls: Array<{ id: string; ms: number }> = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  const transport: Transport = {
    send: (id, input) =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        const route = ROUTES[id];
        const query = new URLSearchParams(input.query).toString();
        const payload = route.method === 'POST' ? Buffer.from(JSON.stringify(input.body ?? {})) : undefined;
        const req = http.request(
          {
            host: hostname,
            port,
            path: pathOf(id, input.params) + (query ? `?${query}` : ''),
            method: route.method,
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { error?: string };
              calls.push({ id, ms: performance.now() - started });
              if (res.statusCode === 200) resolve(json);
              else reject(new Error(`HTTP ${res.statusCode}: ${json.error ?? ''}`));
            });
          },
        );
        req.setTimeout(120_000, () => req.destroy(new Error(`${id}: no answer in 120 s`)));
        req.on('error', reject);
        req.end(payload);
      }),
  };
  return { transport, agent, calls };
}

/** `baton serve` on a fresh data directory, its Claude Code transcript folder under claudeDir. */
async function startServer(dataDir: string, claudeDir: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  // BENCH_SERVER_NODE_ARGS: extra Node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where its time goes.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'dist', 'cli.js'), 'serve', '--data-dir', dataDir, '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, CLAUDE_CONFIG_DIR: claudeDir },
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    setTimeout(() => reject(new Error('serve did not start')), 30_000);
  });
  const endpoint = JSON.parse(fs.readFileSync(path.join(dataDir, 'endpoint.json'), 'utf8')) as { port: number; token: string };
  return { child, url: `http://127.0.0.1:${endpoint.port}`, token: endpoint.token };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

/** Resident memory of a process (Linux), in bytes; null elsewhere. */
function rssOf(pid: number | undefined): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The bytes [from, to) of a file. */
function readRange(file: string, from: number, to: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(to - from);
    let done = 0;
    while (done < buf.length) {
      const n = fs.readSync(fd, buf, done, buf.length - done, from + done);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
}

/** The text a turn row would hold, per JSONL line: prompt and answer text, tool calls and results. */
function turnsOf(jsonl: string): string[] {
  const out: string[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as { message?: { content?: unknown } };
    const content = r.message?.content;
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content))
      for (const b of content as Array<Record<string, unknown>>) {
        if (b.type === 'text') out.push(String(b.text));
        else if (b.type === 'tool_use') out.push(`${String(b.name)} ${JSON.stringify(b.input)}`);
        else if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
      }
  }
  return out;
}

/** Native SQLite holding turns as Baton does (a row and an FTS5 row each), durable. */
function nativeStore(file: string): (turns: string[]) => void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE turns (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, line TEXT NOT NULL);
    CREATE VIRTUAL TABLE turns_fts USING fts5 (line, content='turns', content_rowid='id', tokenize='unicode61');
    CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN INSERT INTO turns_fts (rowid, line) VALUES (new.id, new.line); END;`);
  const insert = db.prepare('INSERT INTO turns (seq, line) VALUES (?, ?)');
  let seq = 0;
  return db.transaction((turns: string[]) => {
    for (const t of turns) insert.run(++seq, t);
  });
}

interface SizeResult {
  mb: number;
  fileBytes: number;
  grow: { calls: number; refused: number; reason?: string; maxMs: number };
  prompt: Series;
  alongside: Series;
  quiet: Series;
  subagent: Series;
  nativeAppend: Series;
  nativeFull: Series;
  appendedBytes: Summary;
  serverRss: number | null;
  /** Sub-agent-start's two calls: the parent's refresh and the child's session start. */
  subagentRefresh: Series;
  subagentChild: Series;
}

/** One size's session, server and figures while the iterations run. */
interface SizeRun {
  result: SizeResult;
  server: { child: ChildProcess; url: string; token: string };
  /** The hooks' client and the searches' client, each on its own connection. */
  api: ApiClient;
  search: ApiClient;
  agents: http.Agent[];
  /** The hooks connection's calls, newest last. */
  hookCalls: Array<{ id: string; ms: number }>;
  hook: (payload: Record<string, unknown>) => Promise<unknown>;
  writer: ClaudeSessionWriter;
  file: string;
  size: number;
  appended: number[];
  native: (turns: string[]) => void;
  dirs: string[];
}

/** CPU time (clock ticks) a process has used so far; null when unknown. */
function cpuTicks(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Waits (at most a minute) until none of the servers uses CPU for a second: a big ingest's after-work is over. */
async function waitIdle(runs: SizeRun[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = runs.map((r) => cpuTicks(r.server.child.pid));
  while (Date.now() < deadline) {
    await sleep(1000);
    const now = runs.map((r) => cpuTicks(r.server.child.pid));
    if (now.every((t, i) => t === null || last[i] === null || t - last[i]! <= 2)) return;
    last = now;
  }
}

/** Starts a server for one size and grows its session to size as a live one grows: a prompt-submit every step. */
async function prepareSize(mb: number, opts: Options, work: string): Promise<SizeRun> {
  const claudeDir = path.join(work, `claude-${mb}`);
  const dataDir = path.join(work, `data-${mb}`);
  const cwd = '/home/dev/bench';
  const projectDir = path.join(claudeDir, 'projects', '-home-dev-bench');
  fs.mkdirSync(projectDir, { recursive: true });
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const sessionId = `5f0c2a9e-8d1b-4c3e-9a7f-${mb.toString(16).padStart(12, '0')}`;
  const file = path.join(projectDir, `${sessionId}.jsonl`);
  const writer = new ClaudeSessionWriter(sessionId, cwd, mix(SEED, mb));
  const server = await startServer(dataDir, claudeDir);
  const hooksConnection = connectionTransport(server.url, server.token);
  const searchConnection = connectionTransport(server.url, server.token);
  const api = new ApiClient(hooksConnection.transport);
  const claude = hookHarnesses().find((h) => h.id === 'claude-code')!.hooks;
  const hook = (payload: Record<string, unknown>) => claude.handle({ session_id: sessionId, transcript_path: file, cwd, ...payload }, api);
  const run: SizeRun = {
    result: {
      mb,
      fileBytes: 0,
      grow: { calls: 0, refused: 0, maxMs: 0 },
      prompt: new Series(),
      alongside: new Series(),
      quiet: new Series(),
      subagent: new Series(),
      subagentRefresh: new Series(),
      subagentChild: new Series(),
      nativeAppend: new Series(),
      nativeFull: new Series(),
      appendedBytes: summarize([]),
      serverRss: null,
    },
    server,
    api,
    search: new ApiClient(searchConnection.transport),
    agents: [hooksConnection.agent, searchConnection.agent],
    hookCalls: hooksConnection.calls,
    hook,
    writer,
    file,
    size: 0,
    appended: [],
    native: nativeStore(path.join(work, `native-${mb}.db`)),
    dirs: [claudeDir, dataDir],
  };
  await hook({ hook_event_name: 'SessionStart', source: 'startup' });
  process.stderr.write(`[transcripts] ${mb} MB: growing the session…\n`);
  const target = mb * MB;
  const step = Math.max(MB, target / GROW_STEPS);
  const grow = run.result.grow;
  let nextHook = step;
  while (run.size < target) {
    const chunk = writer.exchange();
    fs.appendFileSync(file, chunk);
    run.size += Buffer.byteLength(chunk);
    if (run.size >= nextHook || run.size >= target) {
      nextHook += step;
      const o = await timed(() => hook({ hook_event_name: 'UserPromptSubmit', prompt: 'continue' }));
      grow.calls++;
      grow.maxMs = Math.max(grow.maxMs, o.ms);
      if (o.error !== undefined) {
        grow.refused++;
        grow.reason ??= o.error;
      }
    }
  }
  // The timed exchanges are the same at every size (their own seed), so only the file's size differs.
  writer.reseed(mix(SEED, 0x71));
  return run;
}

function append(run: SizeRun, text: string): void {
  fs.appendFileSync(run.file, text);
  run.size += Buffer.byteLength(text);
}

/** One iteration at one size: a new exchange, then each timed operation with the server otherwise idle. */
async function iterate(run: SizeRun, i: number, query: string): Promise<void> {
  const r = run.result;
  const before = run.size;
  append(run, run.writer.exchange());
  run.appended.push(run.size - before);
  // Native: only what was appended, read, parsed and stored.
  r.nativeAppend.add(await timed(async () => run.native(turnsOf(readRange(run.file, before, run.size).toString('utf8')))));
  // Both connections open (the server closes idle ones) before the pair is timed.
  await Promise.all([run.api.call('health'), run.search.call('health')]);
  await sleep(SETTLE_MS);
  const [prompt, alongside] = await Promise.all([
    timed(() => run.hook({ hook_event_name: 'UserPromptSubmit', prompt: `iteration ${i}` })),
    timed(() => run.search.call('search', { body: { query, limit: 5 } })),
  ]);
  r.prompt.add(prompt);
  r.alongside.add(alongside);
  await sleep(SETTLE_MS);
  r.quiet.add(await timed(() => run.search.call('search', { body: { query, limit: 5 } })));
  // Claude Code writes the Agent tool call, then fires SubagentStart with the parent's transcript.
  append(run, run.writer.agentCall());
  await sleep(SETTLE_MS);
  run.hookCalls.length = 0;
  r.subagent.add(await timed(() => run.hook({ hook_event_name: 'SubagentStart', agent_id: `a${r.mb}x${i}`, agent_type: 'general-purpose' })));
  for (const call of run.hookCalls) (call.id === 'sessionStart' ? r.subagentChild : r.subagentRefresh).add({ ms: call.ms });
  await sleep(SETTLE_MS);
}

async function finishSize(run: SizeRun): Promise<SizeResult> {
  const r = run.result;
  r.serverRss = rssOf(run.server.child.pid);
  await stopServer(run.server.child);
  for (let i = 0; i < FULL_READ_SAMPLES; i++) r.nativeFull.add(await timed(async () => turnsOf(fs.readFileSync(run.file, 'utf8'))));
  r.fileBytes = run.size;
  r.appendedBytes = summarize(run.appended);
  return r;
}

/**
 * Every size's server runs at once and the iterations alternate between sizes (iteration i at 1 MB,
 * at 20 MB, at 200 MB, then i + 1): on a shared machine, load that comes and goes then falls on
 * every size alike instead of on whichever size was running at the time.
 */
async function measure(opts: Options, work: string): Promise<SizeResult[]> {
  const runs: SizeRun[] = [];
  try {
    for (const mb of opts.sizes) runs.push(await prepareSize(mb, opts, work));
    await waitIdle(runs);
    const queries = runs[0].writer.queryWords(mix(SEED, 0x51), opts.iterations);
    process.stderr.write(`[transcripts] ${opts.iterations} iterations at ${opts.sizes.join(', ')} MB, interleaved…\n`);
    for (let i = 0; i < opts.iterations; i++) for (const run of runs) await iterate(run, i, queries[i]);
    const results: SizeResult[] = [];
    for (const run of runs) results.push(await finishSize(run));
    return results;
  } finally {
    for (const run of runs) {
      for (const agent of run.agents) agent.destroy();
      await stopServer(run.server.child);
      for (const dir of run.dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

// ---- the report ----

const fmt = (v: number) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));

function verdict(ok: boolean | null): string {
  return ok === null ? '—' : ok ? 'pass' : '**fail**';
}

function ratioText(a: Summary | null, b: Summary | null): string {
  if (!a || !b) return '—';
  return `${(a.p50 / b.p50).toFixed(2)}× / ${(a.p99 / b.p99).toFixed(2)}×`;
}

function within(a: Summary | null, b: Summary | null): boolean | null {
  if (!b) return null;
  if (!a) return false;
  return a.p50 <= TARGET_RATIO * b.p50 && a.p99 <= TARGET_RATIO * b.p99;
}

function cells(s: Series): [string, string] {
  const sum = s.summary();
  if (!sum) return [`refused (${s.refused}/${s.refused})`, '—'];
  const refused = s.refused ? ` (${s.refused} refused)` : '';
  return [fmt(sum.p50) + refused, fmt(sum.p99)];
}

function section(results: SizeResult[], opts: Options): string {
  const base = results.find((r) => r.mb === Math.min(...results.map((x) => x.mb)));
  const rows: string[] = [];
  const refusals = new Set<string>();
  for (const r of results) {
    const size = `${r.mb} MB`;
    const isBase = r === base;
    for (const [name, series, baseSeries] of [
      ['prompt-submit', r.prompt, base?.prompt],
      ['sub-agent-start', r.subagent, base?.subagent],
    ] as const) {
      const [p50, p99] = cells(series);
      if (series.reason) refusals.add(`${size} ${name}: ${series.reason}`);
      const target = isBase ? '—' : `≤ ${TARGET_RATIO}× ${base?.mb} MB: ${ratioText(series.summary(), baseSeries!.summary())}`;
      rows.push(`| ${size} | ${name} | ${p50} | ${p99} | ${target} | ${isBase ? '—' : verdict(within(series.summary(), baseSeries!.summary()))} |`);
    }
    const [a50, a99] = cells(r.alongside);
    const [q50, q99] = cells(r.quiet);
    rows.push(
      `| ${size} | search alongside prompt-submit | ${a50} | ${a99} | ≤ ${TARGET_RATIO}× quiet: ${ratioText(r.alongside.summary(), r.quiet.summary())} | ${verdict(within(r.alongside.summary(), r.quiet.summary()))} |`,
    );
    rows.push(`| ${size} | quiet search | ${q50} | ${q99} | — | — |`);
    const [n50, n99] = cells(r.nativeAppend);
    const [f50, f99] = cells(r.nativeFull);
    rows.push(`| ${size} | native: read + parse + SQLite insert of the appended bytes | ${n50} | ${n99} | — | — |`);
    rows.push(`| ${size} | native: read + parse the whole file (${FULL_READ_SAMPLES} samples) | ${f50} | ${f99} | — | — |`);
  }
  const growth = results.map(
    (r) =>
      `${r.mb} MB: ${r.grow.calls} hook calls while growing (slowest ${fmt(r.grow.maxMs)} ms${r.grow.refused ? `, ${r.grow.refused} refused` : ''}), file ${(r.fileBytes / MB).toFixed(1)} MB at the end, server RSS ${r.serverRss === null ? '?' : `${(r.serverRss / MB).toFixed(0)} MB`}; sub-agent-start's calls, p50 / p99: parent refresh ${cells(r.subagentRefresh).join(' / ')} ms, child start with its block ${cells(r.subagentChild).join(' / ')} ms`,
  );
  const appended = results[0]?.appendedBytes;
  return [
    `<!-- run: ${opts.label} -->`,
    `## ${opts.label}`,
    '',
    `Code: ${codeVersion()}. Machine: ${machine()}. ${opts.iterations} iterations per size; p50 / p99 in ms (with ${opts.iterations} samples the p99 is the slowest but one or the slowest). Appended per iteration: p50 ${(appended ? appended.p50 / 1024 : 0).toFixed(0)} KB, largest ${(appended ? appended.max / 1024 : 0).toFixed(0)} KB. Load average at the end: ${os.loadavg()[0].toFixed(2)}.`,
    '',
    '| size | operation | p50 ms | p99 ms | target (p50 / p99 ratio) | |',
    '|---|---|---:|---:|---|---|',
    ...rows,
    '',
    ...growth.map((g) => `- ${g}`),
    ...[...refusals].map((r) => `- refused: ${r}`),
    '<!-- /run -->',
  ].join('\n');
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

function machine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const HEADER = `# Baton hooks on long Claude Code sessions

What a hook costs as the session's transcript grows (\`bench/transcripts.ts\`, part of \`npm run bench\`).
Claude Code-format JSONL sessions (prompts, assistant text one block per line, thinking, Read /
Bash / Grep / Edit calls with results of 1.5–8 KB, 5% of Read and Bash results 40–160 KB, each with
Claude Code's structured copy beside it) are grown to 1, 20 and 200 MB in the Claude Code
transcript folder of a \`baton serve\` on 127.0.0.1, with a prompt-submit every few MB as a live
session makes; each size has its own server, all running at once, and the iterations alternate
between sizes so that load from elsewhere on the machine falls on every size alike. Each iteration appends one new exchange (the same exchanges at every size)
and, over HTTP with the hook token and through Claude Code's hook mapping, times a prompt-submit
with a search sent at the same moment, the same search alone, and a sub-agent start (refresh of
the parent's transcript, then the child's session start with its inherited block). The native
rows run in the benchmark's process: better-sqlite3 (WAL, \`synchronous=FULL\`, a row and an FTS5 row
per turn) storing only the appended turns, and a plain read and parse of the whole file.

Targets: the 200 MB prompt-submit and sub-agent-start within ${TARGET_RATIO}× of the 1 MB ones (p50 and
p99); the search sent alongside a prompt-submit within ${TARGET_RATIO}× of the quiet search at the same size.
A refused hook (the server's transcript size limit) fails its row.
`;

/** The results file: the header, then one section per label; this run replaces its label's section. */
function writeResults(body: string, label: string): void {
  const old = fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, 'utf8') : '';
  const sections = [...old.matchAll(/<!-- run: (.*?) -->[\s\S]*?<!-- \/run -->/g)].map((m) => ({ label: m[1], text: m[0] }));
  const at = sections.findIndex((s) => s.label === label);
  if (at >= 0) sections[at] = { label, text: body };
  else sections.push({ label, text: body });
  fs.writeFileSync(RESULTS, [HEADER, ...sections.map((s) => s.text)].join('\n') + '\n');
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-transcripts-'));
  const results: SizeResult[] = [];
  try {
    results.push(...(await measure(opts, work)));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const body = section(results, opts);
  process.stdout.write(body + '\n');
  if (opts.write) writeResults(body, opts.label);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
