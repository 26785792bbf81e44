// How big a store can grow, measured (docs/storage.md, "How big a store can grow"): a real server
// in its own process with the REAL default size limit, fed 200 KB prompts of transcript-like text
// through the HTTP API until writes are refused with 507 (the driver offers well over 2 GiB of
// text). At a few sizes on the way the server is killed with SIGKILL and started again: the time
// to start (snapshot load and journal replay) and the resident memory before and after are
// recorded, and every acknowledged write is checked to be back (each session's turn count, and
// the newest turn's marker). At the limit it checks the 507, kills, restarts, checks every write
// again and that the next write is refused too. Not a test (it takes minutes and a few GB of
// memory): run it alone, after nothing else that is heavy.
//
//   node --import tsx bench/storeLimit.ts [--offer-gib 4] [--turn-kb 200] [--restarts-at-mb 256,512,1024]
//   node --import tsx bench/storeLimit.ts serve DIR     (the server process it starts)

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lineLogger } from '../src/core/logger';
import { startDaemon } from '../src/server/daemon';

const MB = 1e6;

async function serve(dataDir: string): Promise<void> {
  const say = (line: string) => fs.writeSync(1, line + '\n');
  const daemon = await startDaemon({ dataDir, port: 0, holder: 'bench storeLimit', logger: lineLogger((line) => say(`log ${line}`)) });
  for (const event of daemon.store.report.events) say(`log recovery: ${event.message}`);
  if (daemon.store.storageAtOpen.message) say(`log storage: ${daemon.store.storageAtOpen.message}`);
  say(`listening ${daemon.server.port} ${daemon.token}`);
  const alive = setInterval(() => undefined, 1000);
  process.once('SIGTERM', () => {
    void daemon.stop().finally(() => {
      clearInterval(alive);
      process.exit(0);
    });
  });
}

interface Server {
  child: ChildProcess;
  port: number;
  token: string;
  lines: string[];
  startMs: number;
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function hwmMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function start(dir: string): Promise<Server> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, 'serve', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let buffer = '';
  const ready = await new Promise<string>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        if (/^log (store |recovery:|storage:)/.test(line)) console.log(`  server: ${line.slice(4)}`);
        if (line.startsWith('listening ')) resolve(line);
      }
    });
    child.on('exit', (code) => resolve(`exited ${code}`));
  });
  if (!ready.startsWith('listening ')) throw new Error(`the server did not start: ${ready}: ${lines.slice(-5).join(' | ')}`);
  const [, port, token] = ready.split(' ');
  return { child, port: Number(port), token, lines, startMs: Date.now() - started };
}

function kill(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}

/** The parts of the replies this bench reads. */
interface Reply {
  error?: string;
  storage?: { fileBytes: number; state: string };
  total?: number;
  turns?: Array<{ text: string }>;
}

async function call(server: Server, method: string, route: string, body?: unknown): Promise<{ status: number; json: Reply }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${route}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as Reply };
}

/** Transcript-like text: words from a vocabulary of a few thousand, deterministic per marker. */
const VOCABULARY = Array.from({ length: 4000 }, (_, i) => `word${(i * 2654435761) % 99991}`.slice(0, 4 + (i % 9)));
function prose(marker: string, chars: number): string {
  const words = [marker];
  let state = [...marker].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  for (let length = marker.length; length < chars;) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const word = VOCABULARY[Math.floor(((state >>> 8) / 2 ** 24) ** 2 * VOCABULARY.length)]; // common words more often
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

const SESSIONS = 40;

/** Every acknowledged write is back: each session's turn count, and its newest marker. */
async function check(server: Server, acked: Map<string, string[]>): Promise<void> {
  for (const [key, markers] of acked) {
    const last = await call(server, 'GET', `/api/sessions/${key}/turns?from=${markers.length}&limit=1`);
    if (last.status !== 200) throw new Error(`session ${key}: HTTP ${last.status}`);
    if (last.json.total !== markers.length) throw new Error(`session ${key}: ${last.json.total} turns, ${markers.length} acknowledged`);
    const text = String(last.json.turns?.[0]?.text ?? '');
    if (!text.startsWith(markers[markers.length - 1] + ' ')) throw new Error(`session ${key}: the newest turn is not ${markers[markers.length - 1]}`);
  }
}

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'serve') return serve(process.argv[3]);
  const offerBytes = Number(arg('offer-gib', '4')) * 1024 ** 3;
  const turnChars = Number(arg('turn-kb', '200')) * 1000;
  const restartsAt = arg('restarts-at-mb', '256,512,1024')
    .split(',')
    .map((n) => Number(n) * MB);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-limit-'));
  console.log(`# store limit bench: ${os.cpus().length} cores, Node ${process.version}, ${os.type()} ${os.release()}, data ${dir}`);
  const acked = new Map<string, string[]>();
  const rows: string[] = ['| database file | event | start-up | RSS after start | peak RSS before | writes acked |', '|---:|---|---:|---:|---:|---:|'];
  let server = await start(dir);
  let offered = 0;
  let n = 0;
  let refused = 0;
  let writeMs = 0;
  const started = Date.now();
  const restart = async (event: string, fileBytes: number) => {
    const peak = hwmMb(server.child.pid!);
    await kill(server);
    server = await start(dir);
    const bad = server.lines.filter((l) => /skipped|missing|opened without/.test(l));
    if (bad.length) throw new Error(`the restart reported damage: ${bad.join(' | ')}`);
    await check(server, acked);
    const count = [...acked.values()].reduce((sum, m) => sum + m.length, 0);
    rows.push(
      `| ${(fileBytes / MB).toFixed(0)} MB | ${event} | ${(server.startMs / 1000).toFixed(1)} s | ${rssMb(server.child.pid!).toFixed(0)} MB | ${peak.toFixed(0)} MB | ${count} |`,
    );
    console.log(rows[rows.length - 1]);
  };
  try {
    while (offered < offerBytes && refused < 3) {
      const key = `s${n % SESSIONS}`;
      const marker = `m${n}x`;
      const t = Date.now();
      const res = await call(server, 'POST', '/api/hooks/user-prompt-submit', { harness: 'opencode', sessionKey: key, userPrompt: prose(marker, turnChars) });
      writeMs += Date.now() - t;
      n++;
      offered += turnChars;
      if (res.status === 200) {
        acked.set(key, [...(acked.get(key) ?? []), marker]);
      } else if (res.status === 507) {
        refused++;
        if (refused === 1) console.log(`507 at write ${n}: ${res.json.error}`);
      } else throw new Error(`write ${n}: HTTP ${res.status} ${JSON.stringify(res.json)}`);
      if (n % 250 === 0 || restartsAt.length > 0) {
        const storage = (await call(server, 'GET', '/api/store/recovery')).json.storage!;
        if (n % 250 === 0)
          console.log(
            `write ${n}: file ${(storage.fileBytes / MB).toFixed(0)} MB (${storage.state}), server RSS ${rssMb(server.child.pid!).toFixed(0)} MB, ${((Date.now() - started) / 1000).toFixed(0)} s`,
          );
        if (restartsAt.length > 0 && storage.fileBytes >= restartsAt[0]) {
          restartsAt.shift();
          await restart('SIGKILL, restart', storage.fileBytes);
        }
      }
    }
    const storage = (await call(server, 'GET', '/api/store/recovery')).json.storage!;
    console.log(
      `stopped offering at write ${n}: ${(offered / 1024 ** 3).toFixed(2)} GiB of text offered, ${refused} refused, file ${(storage.fileBytes / MB).toFixed(0)} MB (${storage.state})`,
    );
    if (refused === 0) throw new Error('the limit was never reached');
    await restart('at the limit: SIGKILL, restart', storage.fileBytes);
    // After the restart the turns replayed from the journal are indexed again in the background,
    // and a few writes may fit until it has caught up; then writes are refused again.
    let more = 0;
    for (; more < 2000; more++) {
      const key = `s${more % SESSIONS}`;
      const marker = `after${more}x`;
      const res = await call(server, 'POST', '/api/hooks/user-prompt-submit', { harness: 'opencode', sessionKey: key, userPrompt: prose(marker, turnChars) });
      if (res.status === 507) break;
      if (res.status !== 200) throw new Error(`after the restart: HTTP ${res.status}`);
      acked.set(key, [...(acked.get(key) ?? []), marker]);
    }
    const after = (await call(server, 'GET', '/api/store/recovery')).json.storage!;
    console.log(`after the restart: ${more} more write(s) fitted before the next 507; file ${(after.fileBytes / MB).toFixed(0)} MB (${after.state})`);
    if (more >= 2000) throw new Error('the limit did not hold after the restart');
    await restart('second step at the limit: SIGKILL, restart', after.fileBytes);
    const t = Date.now();
    await new Promise<void>((resolve) => {
      server.child.once('exit', () => resolve());
      server.child.kill('SIGTERM');
    });
    console.log(`mean write ${(writeMs / n).toFixed(1)} ms; clean stop ${((Date.now() - t) / 1000).toFixed(1)} s`);
    console.log(rows.join('\n'));
  } finally {
    await kill(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
