// `npm run bench` (second part): end-to-end HTTP latency of the hook endpoint, measured from a
// separate process against `baton serve` on 127.0.0.1, with 50 concurrent clients replaying hook
// traffic. For each size N: N sessions are created first (10 turns each), then the three hook
// paths are timed under load: user-prompt-submit (a transcript delta), a sub-agent session-start
// (which builds the inherited block) and a search. Targets at 2,000 sessions: p99 ≤ 10 ms each.
// Before that, a burst of one request from every client at the same instant is timed on its own:
// it is not steady traffic, and its 50 queued requests would otherwise make up the p99.
//
//   BENCH_HTTP_SESSIONS=200,2000   sizes (default 200,2000; BENCH_QUICK=1: 50)
//   BENCH_WRITE=1                  also write bench/RESULTS-http.md

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const quick = process.env.BENCH_QUICK === '1';
const sizes = (process.env.BENCH_HTTP_SESSIONS ?? (quick ? '50' : '200,2000'))
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const CLIENTS = 50;
const TURNS = 10;
const SAMPLES = quick ? 200 : 2000;
/** Think time of each client between two timed requests: 50 clients offer about 100 requests a second. */
const THINK_MS: [number, number] = [250, 750];
// A vocabulary of 5,000 made-up words drawn with a Zipf-like skew, so that, as in real
// transcripts, a few words are everywhere and most are rare (queries use mid-frequency words).
const SYLLABLES = 'ka lo mi ne ru sa to vi ze po da fe gu hi jo'.split(' ');
const WORDS = Array.from({ length: 5000 }, (_, i) => {
  let w = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length];
  return w;
});

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function text(seed: number, words: number): string {
  let s = seed + 1;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    // Zipf-like: rank ~ 1 / u, capped to the vocabulary.
    const u = (s % 100_000) / 100_000 + 1e-5;
    out.push(WORDS[Math.min(WORDS.length - 1, Math.floor(1 / u) - 1)]);
  }
  return out.join(' ');
}

/** `baton serve`, or with `floor` the floor server (bench/floorServer.ts), on a fresh data directory. */
async function startServer(dataDir: string, floor = false): Promise<{ child: ChildProcess; port: number; token: string }> {
  const args = floor
    ? ['--import', 'tsx', path.join(ROOT, 'bench', 'floorServer.ts'), dataDir]
    : [path.join(ROOT, 'dist', 'cli.js'), 'serve', '--data-dir', dataDir, '--port', '0', '--quiet'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
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
  return { child, port: endpoint.port, token: endpoint.token };
}

type Samples = { prompt: number[]; subagent: number[]; search: number[] };
const OPERATION = { prompt: 'user-prompt-submit', subagent: 'sub-agent session-start (inherited block)', search: 'search' } as const;

/**
 * Starts a server, creates `sessions` sessions (none for the floor server), then times the three
 * hook paths under CLIENTS concurrent clients. Returns the samples and the throughput.
 */
async function measure(sessions: number, floor: boolean): Promise<{ samples: Samples; burst: number[]; perSecond: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-http-'));
  const server = await startServer(dataDir, floor);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const post = (route: string, body: unknown) =>
    new Promise<number>((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const started = process.hrtime.bigint();
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: route,
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'content-length': payload.length },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`${route}: HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  // Clients think between requests like agents do (a hook every few hundred ms each) when timing;
  // the population phase runs flat out.
  const pool = async (count: number, job: (i: number) => Promise<void>, thinkMs?: [number, number]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        let seed = client + 1;
        // Agents do not start in lockstep: each client's first request comes after a think time too
        // (the burst of all clients at once is measured on its own).
        if (thinkMs) await new Promise((r) => setTimeout(r, (seed * 7919) % thinkMs[1]));
        while (next < count) {
          await job(next++);
          if (thinkMs) {
            seed = (seed * 1103515245 + 12345) % 2 ** 31;
            await new Promise((r) => setTimeout(r, thinkMs[0] + (seed % (thinkMs[1] - thinkMs[0]))));
          }
        }
      }),
    );
  };

  if (floor) {
    // Warm-up, untimed: the real server has just served the population phase.
    await pool(1000, async (i) => void (await post('/api/hooks/user-prompt-submit', { sessionKey: `s${i}`, userPrompt: text(i, 200) })));
  } else {
    process.stderr.write(`[http] ${sessions} sessions: populating…\n`);
    await pool(sessions, async (i) => {
      await post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: `s${i}`, project: `/repo/${i % 20}` });
      for (let t = 0; t < TURNS; t++)
        await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: `s${i}`, userPrompt: `${text(i * 100 + t, 200)} marker${i}` });
    });
  }

  process.stderr.write(`[http] ${floor ? 'floor server' : `${sessions} sessions`}: measuring under ${CLIENTS} concurrent clients…\n`);
  // A burst first: every client sends one prompt-submit at the same instant.
  const burst = await Promise.all(
    Array.from({ length: CLIENTS }, (_, client) =>
      post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: `s${client % sessions}`,
        userPrompt: `${text(client, 200)} burst ${client}`,
      }),
    ),
  );
  const samples: Samples = { prompt: [], subagent: [], search: [] };
  const started = Date.now();
  await pool(
    SAMPLES * 3,
    async (i) => {
      const session = i % sessions;
      const kind = i % 3;
      if (kind === 0)
        samples.prompt.push(
          await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: `s${session}`, userPrompt: `${text(i, 200)} follow-up ${i}` }),
        );
      else if (kind === 1)
        samples.subagent.push(
          await post('/api/hooks/session-start', {
            harness: 'claude-code',
            sessionKey: `s${session}/agent-${i}`,
            parentSessionKey: `s${session}`,
            harnessAgentId: `a${i}`,
          }),
        );
      else samples.search.push(await post('/api/sessions/search', { query: `${WORDS[50 + (i % 400)]} ${WORDS[100 + ((i * 7) % 900)]}`, limit: 5 }));
    },
    THINK_MS,
  );
  const seconds = (Date.now() - started) / 1000;
  agent.destroy();
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { samples, burst, perSecond: (SAMPLES * 3) / seconds };
}

/** The burst: p50 and the slowest of CLIENTS requests sent at once (in the p99 column). */
function burstRow(label: string, burst: number[]): string {
  return `| ${label} | burst: ${burst.length} prompt-submits at once, p50 / slowest | ${pct(burst, 50).toFixed(2)} | ${Math.max(...burst).toFixed(2)} | — |`;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const n of sizes) {
    const { samples, burst, perSecond } = await measure(n, false);
    for (const [name, values] of Object.entries(samples) as Array<[keyof Samples, number[]]>) {
      const p99 = pct(values, 99);
      rows.push(`| ${n} | ${OPERATION[name]} | ${pct(values, 50).toFixed(2)} | ${p99.toFixed(2)} | ${n === 2000 ? (p99 <= 10 ? 'yes' : 'no') : '—'} |`);
    }
    rows.push(`| ${n} | throughput | ${perSecond.toFixed(0)} req/s | | |`);
    rows.push(burstRow(String(n), burst));
  }
  // The same requests, clients and think times against the floor server, in the same run.
  const floor = await measure(sizes[sizes.length - 1], true);
  const all = Object.values(floor.samples).flat();
  rows.push(`| floor | every request (${all.length}) | ${pct(all, 50).toFixed(2)} | ${pct(all, 99).toFixed(2)} | — |`);
  rows.push(burstRow('floor', floor.burst));
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const report = [
    '# Baton hook endpoint: end-to-end HTTP latency',
    '',
    `Machine: ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    `\`baton serve\` in its own process on 127.0.0.1; ${CLIENTS} concurrent keep-alive clients in another, each waiting ${THINK_MS[0]}–${THINK_MS[1]} ms between requests and before its first one (about ${Math.round((CLIENTS * 2000) / (THINK_MS[0] + THINK_MS[1]))} requests/s offered); sessions with ${TURNS} turns of ~200 words (Zipf-like over 5,000 words; searches of two mid-frequency words); ${SAMPLES} samples per operation, interleaved. Load average when the run ended: ${os.loadavg()[0].toFixed(2)}.`,
    '',
    `The burst rows: before the timed requests, all ${CLIENTS} clients send one prompt-submit at the same instant; they queue behind each other, and the row gives the median and the slowest.`,
    '',
    'The floor row: the same clients and requests against a server that only parses the body, makes one round trip to a worker thread that appends and fdatasyncs, and replies (bench/floorServer.ts): what any durable hook endpoint costs on this machine under this load.',
    '',
    '| sessions | operation | p50 ms | p99 ms | p99 ≤ 10 ms at 2,000 |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  process.stdout.write(report + '\n');
  if (process.env.BENCH_WRITE === '1') fs.writeFileSync(path.join(ROOT, 'bench', 'RESULTS-http.md'), report);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
