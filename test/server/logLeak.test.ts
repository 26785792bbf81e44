// Logs that cannot leak (docs/security.md, "What the logs record"): a unique secret is fed through
// every failure path of the endpoint (`baton serve`, logging to stderr) and of the hook command
// (dist/hook.js, logging to hooks.log), and then every file of the data directory and every log
// is searched for it. A control value sent through a successful request must be found, so the
// search is known to see what the store keeps.

import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { CLI, ROOT } from '../helpers/child';
import { bearer, rawRequest, rawSocket } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HOOK = path.join(ROOT, 'dist', 'hook.js');

/** Letters and digits only, so that no encoding (URL, JSON, header) could disguise a copy of it. */
const SECRET = 'lk' + crypto.randomBytes(12).toString('hex');
/** Every 10-character piece of the secret: a truncated excerpt is a leak too. */
const PIECES = Array.from({ length: SECRET.length - 9 }, (_, i) => SECRET.slice(i, i + 10));

function leaksIn(text: string): string[] {
  return PIECES.filter((piece) => text.includes(piece));
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full) : e.isFile() ? [full] : [];
  });
}

interface HookRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runHook(dataDir: string, stdin: string, env: NodeJS.ProcessEnv = {}): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK, 'claude-code', '--data-dir', dataDir], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', (status) => {
      clearTimeout(kill);
      resolve({ status, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

/** `baton serve` on a fresh data dir, logging requests to stderr (its real log). */
async function startServe(dataDir: string): Promise<{ child: ChildProcess; port: number; token: string; output: () => string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 15 s: ${out}`)), 15_000);
    const check = () => {
      if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early (${code}): ${out}`));
    });
  });
  const endpoint = JSON.parse(fs.readFileSync(path.join(dataDir, 'endpoint.json'), 'utf8')) as { port: number; token: string };
  return { child, port: endpoint.port, token: endpoint.token, output: () => out };
}

function stopServe(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

describe('logs that cannot leak (baton serve + dist/hook.js, real processes on 127.0.0.1)', function () {
  this.timeout(120_000);
  after(cleanupTempDirs);

  it('no file of the data dir and no log line carries a secret sent through any failure path', async () => {
    assert.ok(fs.existsSync(HOOK) && fs.existsSync(CLI), 'dist/ is built (npm run build)');
    const dataDir = tempDir('baton-leak-');
    const serve = await startServe(dataDir);
    const { port, token } = serve;
    const CONTROL = 'ctl' + crypto.randomBytes(12).toString('hex');
    const statuses: string[] = [];
    const json = { ...bearer(token), 'content-type': 'application/json' };
    const send = async (what: string, opts: Parameters<typeof rawRequest>[0]) => {
      const res = await rawRequest(opts);
      statuses.push(`${what} ${res.status}`);
      assert.ok(res.status >= 400, `${what} must fail: ${res.status} ${res.text.slice(0, 200)}`);
      assert.equal(typeof res.json?.error, 'string', `${what}: a JSON error`);
      return res;
    };
    try {
      // Control: a successful write, so the search below is known to see stored data.
      const ok = await rawRequest({
        port,
        method: 'POST',
        path: '/api/hooks/user-prompt-submit',
        headers: bearer(token),
        body: { harness: 'claude-code', sessionKey: 'leak-control', userMessage: `control ${CONTROL}` },
      });
      assert.equal(ok.status, 200, ok.text);

      // Bad JSON bodies: the engine's SyntaxError would quote them.
      const badJson = [
        `{"harness":"claude-code","content":"${SECRET}`,
        `{"harness":"claude-code","content":${SECRET}}`,
        `{"${SECRET}" 1}`,
        `{"harness":"claude-code"} ${SECRET}`,
        `${SECRET}`,
        `{"content":"${SECRET}\u0001"}`,
        `{"a":[${'['.repeat(5000)}"${SECRET}"${']'.repeat(5000)}]}`,
      ];
      for (const route of ['/api/hooks/remember', '/api/hooks/user-prompt-submit', '/api/hooks/claude-code', '/api/tokens', '/mcp']) {
        for (const body of badJson) {
          await send(`bad JSON to ${route}`, { port, method: 'POST', path: route, headers: { ...json, accept: 'application/json, text/event-stream' }, body });
        }
      }
      // Invalid UTF-8 around the secret.
      await send('invalid UTF-8', {
        port,
        method: 'POST',
        path: '/api/hooks/remember',
        headers: json,
        body: Buffer.concat([Buffer.from(`{"content":"${SECRET}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      });

      // Invalid fields: schema errors, refused keys, strict bodies, the claude-code payload.
      const invalid: Array<[string, object]> = [
        ['/api/hooks/session-start', { harness: `${SECRET}${'h'.repeat(80)}`, sessionKey: 'leak-1' }],
        ['/api/hooks/session-start', { harness: 'claude-code', sessionKey: `${SECRET}${'k'.repeat(600)}` }],
        ['/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'leak-2', executionMode: SECRET, title: SECRET }],
        ['/api/hooks/session-start', { harness: 'claude-code', sessionKey: '..', title: SECRET }],
        ['/api/hooks/user-prompt-submit', { harness: 42, sessionKey: 'leak-3', userMessage: SECRET }],
        ['/api/hooks/user-prompt-submit', { harness: 'claude-code', userMessage: SECRET }],
        [
          '/api/hooks/user-prompt-submit',
          { harness: 'claude-code', sessionKey: 'leak-4', transcriptPath: `/nonexistent/${SECRET}.jsonl`, userMessage: SECRET },
        ],
        ['/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'leak-5', status: SECRET, lastAssistantMessage: SECRET }],
        ['/api/hooks/remember', { harness: 'claude-code', content: SECRET, importance: SECRET }],
        ['/api/hooks/compaction-complete', { harness: 'claude-code', summary: SECRET, sessionKey: 'session:..' }],
        ['/api/runs', { runner: 'r', [SECRET]: SECRET }],
        ['/api/runs', { runner: 'r', status: SECRET, prompt: SECRET }],
        ['/api/tokens', { agentId: SECRET, permissions: [SECRET] }],
        ['/api/sessions/search', { query: SECRET, limit: SECRET }],
        ['/api/sessions/summaries/expand', { id: SECRET }],
        ['/api/hooks/claude-code', { hook_event_name: SECRET, prompt: SECRET }],
        ['/api/hooks/claude-code', { hook_event_name: 'UserPromptSubmit', session_id: '..', prompt: SECRET }],
        ['/api/hooks/claude-code', { hook_event_name: 'SubagentStart', session_id: 'leak-6', agent_type: SECRET }],
        ['/api/hooks/claude-code', { hook_event_name: 'UserPromptSubmit', session_id: 'leak-7', cwd: 7, prompt: SECRET }],
      ];
      for (const [route, body] of invalid) await send(`invalid fields to ${route}`, { port, method: 'POST', path: route, headers: bearer(token), body });
      await send('lone surrogate key', {
        port,
        method: 'POST',
        path: '/api/hooks/session-start',
        headers: json,
        body: `{"harness":"claude-code","sessionKey":"\\ud800","title":"${SECRET}"}`,
      });

      // Secrets in the request target: path segments, query strings (on failing requests).
      for (const target of [
        `/api/sessions/${SECRET}`,
        `/api/sessions/${SECRET}/transcript`,
        `/api/${SECRET}`,
        `/${SECRET}`,
        `/api/sessions?limit=${SECRET}`,
        `/api/nope?token=${SECRET}`,
        `/api/sessions/x/turns?from=${SECRET}#${SECRET}`,
      ]) {
        await send(`GET ${target.slice(0, 20)}`, { port, path: target, headers: bearer(token) });
      }
      await send('query string, no token', { port, path: `/api/sessions?token=${SECRET}` });
      await send('runs/:id', { port, path: `/api/runs/${SECRET}`, headers: bearer(token) });

      // Secrets in headers.
      await send('bearer secret', { port, path: '/api/sessions', headers: bearer(SECRET) });
      await send('host secret', { port, path: '/api/sessions', headers: { ...bearer(token), host: `${SECRET}.evil.example:${port}` } });
      await send('origin secret', { port, path: '/api/sessions', headers: { ...bearer(token), origin: `https://${SECRET}.example` } });
      await send('fetch-site secret', { port, path: '/api/sessions', headers: { ...bearer(token), 'sec-fetch-site': SECRET } });
      await send('content-type secret', {
        port,
        method: 'POST',
        path: '/api/hooks/remember',
        headers: { ...bearer(token), 'content-type': `text/${SECRET}` },
        body: '{}',
      });
      await send('propagated parent on a failing start', {
        port,
        method: 'POST',
        path: '/api/hooks/session-start',
        headers: { ...bearer(token), 'x-agent-session-id': SECRET, 'x-baton-runtime-path': SECRET },
        body: { sessionKey: 'leak-8' },
      });
      // An oversized body (Content-Length over the cap): refused with 413 before it is read.
      const big = await rawSocket(
        port,
        `POST /api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"content":"${SECRET}`,
        { waitMs: 3000, untilData: true },
      );
      assert.match(big.text, /^HTTP\/1\.1 413 /, big.text.slice(0, 100));

      // Raw request lines: absolute-form targets with userinfo, duplicate headers, malformed requests.
      const raw = [
        `GET http://user:${SECRET}@127.0.0.1:${port}/api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
        `GET http://${SECRET}@127.0.0.1:${port}/api/sessions?${SECRET} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        `POST http://user:${SECRET}@127.0.0.1:${port}/api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
        `GET //${SECRET}.example/api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: ${SECRET}:${port}\r\nConnection: close\r\n\r\n`,
        `GET /api/sessions/${SECRET} HTTP/9.9\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        `${SECRET} /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-${SECRET} ${SECRET}\r\n\r\n`,
      ];
      for (const request of raw) {
        const r = await rawSocket(port, request, { waitMs: 3000 });
        assert.match(r.text, /^HTTP\/1\.1 4\d\d /, `raw request refused: ${r.text.slice(0, 120)}`);
        statuses.push(`raw ${r.text.slice(9, 12)}`);
      }
      // An upload cut off halfway.
      await rawSocket(
        port,
        `POST /api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"harness":"claude-code","content":"${SECRET}`,
        { waitMs: 300 },
      );
      // MCP calls that fail inside the SDK.
      for (const body of [
        { jsonrpc: '2.0', id: 1, method: SECRET, params: { x: SECRET } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: SECRET, arguments: { query: SECRET } } },
        { jsonrpc: '1.0', id: SECRET },
      ]) {
        const res = await rawRequest({ port, method: 'POST', path: '/mcp', headers: { ...json, accept: 'application/json, text/event-stream' }, body });
        statuses.push(`mcp ${res.status}`);
      }

      // The hook command: bad stdin, unusable payloads, payloads the server refuses.
      const hookCases: Array<[string, string, NodeJS.ProcessEnv?]> = [
        ['truncated JSON', `{"hook_event_name":"UserPromptSubmit","session_id":"h1","prompt":"${SECRET}`],
        ['bare word', `{"hook_event_name": ${SECRET}}`],
        ['garbage', `${SECRET} not json`],
        ['a JSON string', JSON.stringify(SECRET)],
        ['deep', `{"hook_event_name":"UserPromptSubmit","session_id":"h2","x":${'['.repeat(10_000)}"${SECRET}"${']'.repeat(10_000)}}`],
        ['free-text event, no session', JSON.stringify({ hook_event_name: SECRET, prompt: SECRET })],
        ['dot session', JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: '..', prompt: SECRET, cwd: '/repo' })],
        ['lone surrogate session', `{"hook_event_name":"UserPromptSubmit","session_id":"\\ud800${SECRET}","prompt":"${SECRET}"}`],
        ['SubagentStart without agent_id', JSON.stringify({ hook_event_name: 'SubagentStart', session_id: 'h3', agent_type: SECRET })],
        ['bad cwd', JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'h4', cwd: { [SECRET]: SECRET }, prompt: SECRET })],
        ['oversized session key', JSON.stringify({ hook_event_name: 'SessionStart', session_id: SECRET.repeat(40) })],
        ['bad propagated parent header', JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'h5' }), { AGENT_SESSION_ID: `${SECRET}\u0001` }],
      ];
      for (const [what, stdin, env] of hookCases) {
        const r = await runHook(dataDir, stdin, env);
        assert.equal(r.status, 0, `hook (${what}) exits 0`);
        assert.equal(r.stdout, '', `hook (${what}) prints nothing`);
        assert.deepEqual(leaksIn(r.stdout + r.stderr), [], `hook (${what}) output`);
      }
      const hooksLog = fs.readFileSync(path.join(dataDir, 'hooks.log'), 'utf8');
      assert.ok(hooksLog.trim().split('\n').length >= hookCases.length, `one hooks.log line per failed hook:\n${hooksLog}`);
      assert.match(hooksLog, /nesting-depth limit is 64/, 'the deep payload is named by its limit');
      // The relayed payload (POST /api/hooks/claude-code) or, run in the hook, the mapping's own call.
      assert.match(hooksLog, /\/api\/hooks\/(claude-code|user-prompt-submit): HTTP 400 invalid_request/, 'a refused call names route, status and code');
      assert.match(hooksLog, /other-event/, 'a free-text event name is not logged');
      if (process.env.BATON_TEST_SHOW) process.stdout.write(`--- hooks.log\n${hooksLog}`);
    } finally {
      assert.equal(await stopServe(serve.child), 0, 'serve exits 0 on SIGTERM');
    }

    const serverLog = serve.output();
    if (process.env.BATON_TEST_SHOW) process.stdout.write(`--- baton serve\n${serverLog}`);
    assert.match(serverLog, /POST \/api\/hooks\/remember 400 /, `the server log records route and status:\n${serverLog.slice(0, 2000)}`);
    assert.match(serverLog, /GET \(no route\) 400 /, 'absolute-form targets are logged without their target');
    assert.match(serverLog, /GET \/api\/sessions\/:key 404 /, 'a path is logged as its route pattern');
    assert.match(serverLog, /GET \/api\/sessions 403 /, 'a refused Host is logged with the route');
    assert.match(serverLog, /client error: /, 'malformed requests are logged by error class');

    // The search: every file of the data dir (store files, hooks.log, anything else) and every log.
    const files = filesUnder(dataDir);
    const found: string[] = [];
    let controlSeen = false;
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      for (const text of [bytes.toString('latin1'), bytes.toString('utf16le')]) {
        const pieces = leaksIn(text);
        if (pieces.length) {
          const at = text.indexOf(pieces[0]);
          found.push(`${path.relative(dataDir, file)}: ...${text.slice(Math.max(0, at - 300), at + 60)}...`);
        }
        if (text.includes(CONTROL)) controlSeen = true;
      }
    }
    assert.ok(
      files.some((f) => f.endsWith('hooks.log')),
      `hooks.log was written: ${files.join(', ')}`,
    );
    assert.ok(
      controlSeen,
      `the control value stored by a successful request is found in the data dir (${files.map((f) => path.relative(dataDir, f)).join(', ')}), so the search sees stored data`,
    );
    assert.deepEqual(found, [], 'no file of the data dir carries the secret');
    assert.deepEqual(
      leaksIn(serverLog),
      [],
      `the server log carries the secret:\n${serverLog
        .split('\n')
        .filter((l) => leaksIn(l).length)
        .join('\n')}`,
    );
    assert.ok(statuses.length >= 75, `enough failure paths were exercised (${statuses.length})`);
  });

  it('a 2xx reply that is not a JSON object, or an error reply quoting the request, still leaves a hooks.log line without the reply text', async () => {
    const dataDir = tempDir('baton-leak-fake-');
    const replies: Array<[number, string, string]> = [
      [200, 'text/plain', `${SECRET} plain text`],
      [200, 'application/json', `{"broken": ${SECRET}`],
      [200, 'application/json', JSON.stringify([SECRET])],
      [200, 'application/json', ''],
      [400, 'application/json', JSON.stringify({ error: `sessionKey: ${SECRET} is odd`, code: 'invalid_request' })],
      [500, 'text/html', `<h1>${SECRET}</h1>`],
    ];
    let next = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const [status, type, body] = replies[Math.min(next++, replies.length - 1)];
        res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    try {
      // A live-looking endpoint: this process holds the lock; endpoint.json points at the stand-in.
      fs.writeFileSync(path.join(dataDir, 'baton.lock'), JSON.stringify({ pid: process.pid, port, startedAt: 'now', holder: 'test' }));
      fs.writeFileSync(path.join(dataDir, 'endpoint.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid, token: 't' }));
      for (let i = 0; i < replies.length; i++) {
        const r = await runHook(dataDir, JSON.stringify({ hook_event_name: 'SessionStart', session_id: `fake-${i}`, source: 'startup' }));
        assert.deepEqual([r.status, r.stdout], [0, ''], `reply ${i}: exit 0, no output`);
        const lines = fs.readFileSync(path.join(dataDir, 'hooks.log'), 'utf8').trim().split('\n');
        assert.equal(lines.length, i + 1, `reply ${i} (${replies[i][0]} ${replies[i][1]}) left one hooks.log line:\n${lines.join('\n')}`);
        assert.match(lines[i], /claude-code SessionStart: \/api\/hooks\/session-start: HTTP \d{3}/, `the line names event, route and status: ${lines[i]}`);
        assert.match(lines[i], /\d+ ms/, `the line carries durations: ${lines[i]}`);
      }
      const log = fs.readFileSync(path.join(dataDir, 'hooks.log'), 'utf8');
      assert.match(log, /HTTP 200 but the reply is not a JSON object/);
      assert.match(log, /HTTP 400 invalid_request/);
      assert.deepEqual(leaksIn(log), [], `hooks.log quotes a reply:\n${log}`);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
