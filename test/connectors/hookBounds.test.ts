// The hook command's own bounds (docs/security.md, "The hook command"): whatever answers on the
// endpoint's port, and whatever file a payload names, the built hook command (dist/hook.js) ends
// within its budget, exits 0, prints nothing or valid hook output, and stays small in memory.
// Real processes: misbehaving servers on 127.0.0.1, a real Baton server, FIFOs, /dev/zero, a
// 150 MB sparse file.

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { writeEndpoint } from '../../src/node/endpoint';
import { layout } from '../../src/node/paths';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonl, runHookMeasured, type HookProcessResult } from '../helpers/hookProcess';

/** Far above the hook's ~1 s budget, far below "hangs": a loaded machine still makes it. */
const GENEROUS_MS = 5_000;
/** A hook process peaks near 55 MB; a reply or a file read whole takes hundreds of MB more. */
const MAX_RSS_MB = 120;

/** Exit 0 within the bound, small, and stdout empty or one JSON object. */
function assertWithinBounds(r: HookProcessResult, what: string): void {
  assert.equal(r.status, 0, `${what}: exit code (null: killed after 10 s)`);
  assert.ok(r.ms < GENEROUS_MS, `${what}: took ${r.ms} ms`);
  assert.ok(r.maxRssMb !== null && r.maxRssMb < MAX_RSS_MB, `${what}: peak memory ${r.maxRssMb} MB`);
  if (r.stdout !== '') assert.equal(typeof JSON.parse(r.stdout), 'object', `${what}: stdout is hook output`);
}

/** A data directory whose endpoint.json points at `port`, "held" by this (live) test process. */
function dataDirServedAt(port: number): string {
  const dataDir = tempDir();
  fs.writeFileSync(layout(dataDir).lock, JSON.stringify({ pid: process.pid, port, startedAt: new Date().toISOString(), holder: 'a test' }));
  writeEndpoint(dataDir, { url: `http://127.0.0.1:${port}`, port, pid: process.pid, token: 'test-token' });
  return dataDir;
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

describe('the hook command against an endpoint that misbehaves', function () {
  this.timeout(60_000);
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  after(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    cleanupTempDirs();
  });

  /** An HTTP server answering every request with `answer`; its sockets are dropped at the end. */
  async function serve(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<string> {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(req, res));
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    servers.push(server);
    return dataDirServedAt(await listen(server));
  }

  const payload = { hook_event_name: 'SessionStart', session_id: 'bounded-1', cwd: '/repo', source: 'startup' };

  it('an endless body: the reply read is capped, memory stays bounded', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x7b); // "{{{{…": never a valid reply
    let sent = 0;
    const dataDir = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (!res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    const r = await runHookMeasured('claude-code', dataDir, payload);
    assertWithinBounds(r, 'endless body');
    // The hook stopped reading after its cap: the server got no further than what the sockets' buffers hold.
    assert.ok(sent < 40 * 1024 * 1024, `the server could send ${sent} bytes`);
  });

  it('a 50 MB body (its length announced): refused, not read', async () => {
    const body = Buffer.alloc(50 * 1024 * 1024, 0x20);
    const dataDir = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length + 2 });
      res.end(Buffer.concat([Buffer.from('{'), body, Buffer.from('}')]));
    });
    assertWithinBounds(await runHookMeasured('claude-code', dataDir, payload), '50 MB body');
  });

  it('one byte every 100 ms, forever: the overall deadline ends it', async () => {
    const dataDir = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 100);
      res.on('close', () => clearInterval(drip));
    });
    assertWithinBounds(await runHookMeasured('claude-code', dataDir, payload), 'drip');
  });

  it('a server that accepts and never answers', async () => {
    const silent = net.createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.resume(); // reads the request, never writes a byte
    });
    servers.push(silent);
    const dataDir = dataDirServedAt(await listen(silent));
    for (const harness of ['claude-code', 'codex', 'copilot']) {
      assertWithinBounds(await runHookMeasured(harness, dataDir, payload), `never answers (${harness})`);
    }
  });
});

describe('the hook command reads only regular files, in bounded pieces', function () {
  this.timeout(120_000);
  let dataDir: string;
  let outside: string;
  let daemon: Daemon;
  before(async function () {
    if (process.platform === 'win32') this.skip();
    dataDir = tempDir();
    // The server knows only this folder: the files below are the hook's to read (or to skip).
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-roots-')] } });
    outside = tempDir('baton-hostile-files-');
  });
  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  function fifo(name: string): string {
    const at = path.join(outside, name);
    const made = spawnSync('mkfifo', [at]);
    assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
    return at;
  }

  /** A file of `bytes` bytes that takes no room on disk (ftruncate). */
  function sparse(name: string, bytes: number): string {
    const at = path.join(outside, name);
    const fd = fs.openSync(at, 'w');
    fs.ftruncateSync(fd, bytes);
    fs.closeSync(fd);
    return at;
  }

  async function childOf(key: string) {
    return daemon.store.read('getSession', { scope: 'all', key });
  }

  /** What a payload may name instead of a transcript; fresh files each time (`tag` keeps their names apart). */
  function hostile(tag: string): Array<[string, string]> {
    fifo(`agent-${tag}.meta.json`); // read for a nested sub-agent's spawner, beside the transcript
    return [
      ['a FIFO', fifo(`pipe-${tag}`)],
      ['a FIFO named .jsonl, its .meta.json a FIFO too', fifo(`agent-${tag}.jsonl`)],
      ['/dev/zero', '/dev/zero'],
      ['a 150 MB file', sparse(`big-${tag}.jsonl`, 150 * 1024 * 1024)],
    ];
  }

  it('Claude Code SubagentStop: the sub-agent still ends with its last message, whatever its transcript is', async () => {
    let n = 0;
    for (const [what, file] of hostile('claude')) {
      const agent = `a${++n}`;
      const r = await runHookMeasured('claude-code', dataDir, {
        hook_event_name: 'SubagentStop',
        session_id: 'sess-h',
        cwd: '/repo-h',
        agent_id: agent,
        agent_transcript_path: file,
        last_assistant_message: `Finished ${agent}.`,
      });
      assertWithinBounds(r, what);
      const child = await childOf(`sess-h/agent-${agent}`);
      assert.equal(child?.status, 'completed', `${what}: the child ended`);
      assert.match((await daemon.store.read('transcript', { scope: 'all', key: `sess-h/agent-${agent}` })).content, new RegExp(`Finished ${agent}\\.`));
    }
  });

  it('Codex SubagentStart: the child still opens under its parent, whatever its rollout is', async () => {
    let n = 0;
    for (const [what, file] of hostile('codex')) {
      const agent = `t${++n}`;
      const r = await runHookMeasured('codex', dataDir, {
        hook_event_name: 'SubagentStart',
        session_id: 'root-h',
        cwd: '/repo-h',
        agent_id: agent,
        agent_type: 'worker',
        transcript_path: file,
      });
      assertWithinBounds(r, what);
      assert.equal((await childOf(`root-h/agent-${agent}`))?.parentSessionKey, 'root-h', `${what}: the child opened`);
    }
  });

  it('VS Code agent mode: the prompt is still recorded and the turn still ends, whatever its hook transcript is', async () => {
    let n = 0;
    for (const [what, file] of hostile('copilot')) {
      const common = { sessionId: 'chat-h', cwd: '/repo-h', transcript_path: file };
      const submit = await runHookMeasured('copilot', dataDir, { ...common, hookEventName: 'UserPromptSubmit', prompt: `prompt ${++n} of chat-h` });
      assertWithinBounds(submit, `UserPromptSubmit beside ${what}`);
      // Without a last message in the payload, Stop looks for the reply in the transcript.
      assertWithinBounds(await runHookMeasured('copilot', dataDir, { ...common, hookEventName: 'Stop' }), `Stop beside ${what}`);
      assert.match((await daemon.store.read('transcript', { scope: 'all', key: 'chat-h' })).content, new RegExp(`prompt ${n} of chat-h`), what);
    }
  });

  it('a symlink or a folder as the transcript is skipped; the prompt is still recorded', async () => {
    const real = path.join(outside, 'real.jsonl');
    fs.writeFileSync(real, jsonl([{ type: 'user', uuid: 'u1', sessionId: 'sess-l', message: { role: 'user', content: 'LINKED-FILE-4471' } }]));
    const link = path.join(outside, 'link.jsonl');
    fs.symlinkSync(real, link);
    const folder = path.join(outside, 'folder.jsonl');
    fs.mkdirSync(folder);
    for (const [what, file] of [
      ['a symlink', link],
      ['a folder', folder],
    ]) {
      const r = await runHookMeasured('claude-code', dataDir, {
        hook_event_name: 'UserPromptSubmit',
        session_id: 'sess-l',
        cwd: '/repo-l',
        transcript_path: file,
        prompt: `prompt beside ${what}`,
      });
      assertWithinBounds(r, what);
    }
    const content = (await daemon.store.read('transcript', { scope: 'all', key: 'sess-l' })).content;
    assert.match(content, /prompt beside a symlink/);
    assert.match(content, /prompt beside a folder/);
    assert.doesNotMatch(content, /LINKED-FILE-4471/, 'the file behind the symlink was not read');
  });
});
