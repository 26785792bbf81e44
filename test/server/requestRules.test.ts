// The endpoint's request rules (docs/security.md, "Request rules") against a real server on
// 127.0.0.1: the JSON nesting-depth limit, origin-form request targets, single Host headers,
// Sec-Fetch-Site, one Host rule for REST and /mcp, the claude-code hook payload, session keys
// that could never be read back, and a close that does not wait for open streams.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { MAX_JSON_DEPTH } from '../../src/core/safeJson';
import {
  LOOPBACK,
  assertStoreUnchanged,
  bearer,
  rawRequest,
  rawSocket,
  startTestServer,
  storeState,
  type RawResponse,
  type TestServer,
} from '../helpers/server';
import { CLI, ROOT } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HARNESS = 'claude-code';

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function assertJsonError(res: RawResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, `${what}: the error is JSON`);
  assert.equal(typeof res.json?.error, 'string', `${what}: {error} names the problem: ${res.text.slice(0, 300)}`);
  assert.doesNotMatch(res.text, /call stack|\n\s+at /, `${what}: no stack overflow, no stack trace`);
}

/** Status line and parsed JSON body of a raw HTTP exchange (Connection: close). */
function parseRaw(text: string): { status: number; json: { error?: string; code?: string } | undefined } {
  const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(text)?.[1] ?? 0);
  const body = text.split('\r\n\r\n').slice(1).join('\r\n\r\n');
  let json: { error?: string; code?: string } | undefined;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, json };
}

interface OpenStream {
  socket: net.Socket;
  closed: Promise<void>;
  /** Resolves with everything received once the response head has arrived. */
  head: Promise<string>;
}

/** A raw connection to 127.0.0.1:port that sends `request` and keeps reading; pushed to `sockets` for cleanup. */
function openStream(port: number, request: string, sockets: net.Socket[]): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, LOOPBACK);
    sockets.push(socket);
    let text = '';
    let gotHead: (head: string) => void = () => undefined;
    const head = new Promise<string>((r) => (gotHead = r));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\r\n\r\n')) gotHead(text);
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(request);
      resolve({ socket, closed, head });
    });
    setTimeout(() => reject(new Error('could not connect')), 5000).unref();
  });
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref())]);
}

const MCP_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rules-test', version: '1.0.0' } },
};

describe('endpoint request rules (real HTTP on 127.0.0.1)', function () {
  this.timeout(60_000);
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
    const seeded = await rawRequest({
      port: s.port,
      method: 'POST',
      path: '/api/hooks/user-prompt-submit',
      headers: bearer(s.token),
      body: { harness: HARNESS, sessionKey: 'rules-seed', userMessage: 'seed' },
    });
    assert.equal(seeded.status, 200, seeded.text);
  });
  after(async () => {
    await s?.daemon.stop();
    cleanupTempDirs();
  });

  // ----------------------------------------------------------------------------------------------
  describe('1. JSON nesting depth', () => {
    it(`answers 400 naming the nesting-depth limit (${MAX_JSON_DEPTH}) for 5,000 and 20,000 levels, on every body-reading path, and changes nothing`, async () => {
      const before = await storeState(s.store);
      for (const depth of [5_000, 20_000]) {
        const deep = nested(depth);
        const cases: Array<[string, string]> = [
          ['/api/hooks/user-prompt-submit', `{"harness":"${HARNESS}","sessionKey":"deep-1","transcript":${deep}}`],
          ['/api/hooks/session-end', `{"harness":"${HARNESS}","sessionKey":"deep-1","transcript":{"messages":${deep}}}`],
          ['/api/hooks/session-checkpoint-extract', `{"harness":"${HARNESS}","sessionKey":"deep-1","transcript":${deep}}`],
          ['/api/hooks/session-start', `{"harness":"${HARNESS}","sessionKey":"deep-1","extra":${deep}}`],
          ['/api/hooks/remember', `{"harness":"${HARNESS}","content":"x","tags":${deep}}`],
          ['/api/sessions/search', `{"query":"x","more":${deep}}`],
          ['/api/hooks/claude-code', `{"hook_event_name":"UserPromptSubmit","session_id":"deep-2","tool_input":${deep}}`],
          ['/api/tokens', `{"agentId":"deep","permissions":${deep}}`],
          ['/api/hooks/user-prompt-submit', deep],
        ];
        for (const [route, body] of cases) {
          const res = await rawRequest({
            port: s.port,
            method: 'POST',
            path: route,
            headers: { ...bearer(s.token), 'content-type': 'application/json' },
            body,
          });
          assertJsonError(res, 400, `POST ${route} nested ${depth} levels`);
          assert.equal(res.json.code, 'invalid_request');
          assert.match(res.json.error, new RegExp(`nesting-depth limit is ${MAX_JSON_DEPTH}\\b`), `POST ${route}: names the limit: ${res.json.error}`);
        }
        const mcp = await rawRequest({
          port: s.port,
          method: 'POST',
          path: '/mcp',
          headers: { ...bearer(s.token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"session_search","arguments":{"query":${deep}}}}`,
        });
        assertJsonError(mcp, 400, `POST /mcp nested ${depth} levels`);
        assert.match(mcp.json.error, /nesting-depth limit/);
      }
      await assertStoreUnchanged(s.store, before, 'deeply nested bodies');
      const health = await rawRequest({ port: s.port, path: '/api/health' });
      assert.deepEqual(health.json, { status: 'ok' }, 'the server is still up');
    });

    it('accepts nesting right at the limit, refuses one level more, and does not count brackets inside strings', async () => {
      // The body object is level 1, so `more` may hold MAX_JSON_DEPTH - 1 levels.
      const atLimit = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/sessions/search',
        headers: { ...bearer(s.token), 'content-type': 'application/json' },
        body: `{"query":"seed","more":${nested(MAX_JSON_DEPTH - 1)}}`,
      });
      assert.equal(atLimit.status, 200, atLimit.text);
      const over = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/sessions/search',
        headers: { ...bearer(s.token), 'content-type': 'application/json' },
        body: `{"query":"seed","more":${nested(MAX_JSON_DEPTH)}}`,
      });
      assertJsonError(over, 400, 'one level over the limit');
      const inString = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/sessions/search',
        headers: bearer(s.token),
        body: { query: 'seed', note: '[{'.repeat(20_000) + '\\"[' },
      });
      assert.equal(inString.status, 200, `brackets inside a string are text: ${inString.text.slice(0, 200)}`);
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('2. request line and headers', () => {
    it('answers 400 to absolute-form and authority-like request targets, even with a good Host, and changes nothing', async () => {
      const before = await storeState(s.store);
      const targets = [
        'http://evil.example/api/sessions',
        `http://127.0.0.1:${s.port}/api/sessions`,
        `http://user:pass@127.0.0.1:${s.port}/api/sessions`,
        'HTTP://EVIL.EXAMPLE/api/sessions',
        '//evil.example/api/sessions',
        '/\\evil.example/api/sessions',
        '*',
      ];
      for (const target of targets) {
        for (const method of ['GET', 'OPTIONS']) {
          const raw = await rawSocket(
            s.port,
            `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n\r\n`,
            { waitMs: 5000 },
          );
          const { status, json } = parseRaw(raw.text);
          assert.equal(status, 400, `${method} ${target}: ${raw.text.slice(0, 200)}`);
          assert.equal(json?.code, 'invalid_request', `${method} ${target}: a JSON error`);
          assert.doesNotMatch(raw.text, /rules-seed/, 'no session data');
        }
      }
      const post = await rawSocket(
        s.port,
        `POST http://evil.example/api/hooks/session-start HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: 46\r\nConnection: close\r\n\r\n${JSON.stringify({ harness: HARNESS, sessionKey: 'absolute-1' })}`,
        { waitMs: 5000 },
      );
      assert.equal(parseRaw(post.text).status, 400, post.text);
      await assertStoreUnchanged(s.store, before, 'absolute-form targets');
    });

    it('answers 400 to a request with two Host (or two Authorization) headers, whatever their values', async () => {
      const before = await storeState(s.store);
      const good = `127.0.0.1:${s.port}`;
      const pairs: Array<[string, string, string]> = [
        ['Host', good, good],
        ['Host', good, 'evil.example'],
        ['Host', 'evil.example', good],
        ['host', good, `localhost:${s.port}`],
        ['Authorization', `Bearer ${s.token}`, 'Bearer other'],
      ];
      for (const [name, first, second] of pairs) {
        const headers =
          name.toLowerCase() === 'host'
            ? `${name}: ${first}\r\n${name.toUpperCase()}: ${second}\r\nAuthorization: Bearer ${s.token}`
            : `Host: ${good}\r\n${name}: ${first}\r\n${name}: ${second}`;
        for (const route of ['/api/sessions', '/api/health']) {
          const raw = await rawSocket(s.port, `GET ${route} HTTP/1.1\r\n${headers}\r\nConnection: close\r\n\r\n`, { waitMs: 5000 });
          const { status, json } = parseRaw(raw.text);
          assert.equal(status, 400, `${route} with ${name}: ${first} + ${second}: ${raw.text.slice(0, 200)}`);
          assert.equal(json?.code, 'invalid_request');
        }
      }
      await assertStoreUnchanged(s.store, before, 'repeated headers');
    });

    it('compares Sec-Fetch-Site case-insensitively and refuses lists: only a single same-origin or none passes', async () => {
      const refused = [
        'CROSS-SITE',
        'Cross-Site',
        'cross-site',
        'same-site',
        'SAME-SITE',
        'cross-site, none',
        'none, cross-site',
        'same-origin, same-origin',
        'none,none',
        '',
        'nonsense',
      ];
      for (const site of refused) {
        const res = await rawRequest({ port: s.port, path: '/api/sessions', headers: { ...bearer(s.token), 'sec-fetch-site': site } });
        assert.ok(res.status === 403 || res.status === 400, `Sec-Fetch-Site "${site}" must be refused: ${res.status} ${res.text.slice(0, 200)}`);
        assert.equal(typeof res.json?.error, 'string');
        const write = await rawRequest({
          port: s.port,
          method: 'POST',
          path: '/api/hooks/session-start',
          headers: { ...bearer(s.token), 'sec-fetch-site': site },
          body: { harness: HARNESS, sessionKey: 'from-a-page' },
        });
        assert.ok(write.status === 403 || write.status === 400, `POST with Sec-Fetch-Site "${site}": ${write.status}`);
      }
      // Two separate headers, each harmless alone.
      const twice = await rawSocket(
        s.port,
        `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${s.token}\r\nSec-Fetch-Site: none\r\nSec-Fetch-Site: cross-site\r\nConnection: close\r\n\r\n`,
        { waitMs: 5000 },
      );
      assert.ok([400, 403].includes(parseRaw(twice.text).status), twice.text.slice(0, 200));
      for (const site of ['same-origin', 'SAME-ORIGIN', 'none', 'None', ' none ']) {
        const res = await rawRequest({ port: s.port, path: '/api/sessions', headers: { ...bearer(s.token), 'sec-fetch-site': site } });
        assert.equal(res.status, 200, `Sec-Fetch-Site "${site}" passes: ${res.text.slice(0, 200)}`);
      }
      assert.equal(await s.store.read('getSession', { scope: 'all', key: 'from-a-page' }), null);
    });

    it('applies one Host rule, case-insensitive, to REST and /mcp alike', async () => {
      const accepted = [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `LOCALHOST:${s.port}`, `LocalHost:${s.port}`, `[::1]:${s.port}`];
      const refused = [
        `evil.example:${s.port}`,
        `localhost:${s.port === 65535 ? s.port - 1 : s.port + 1}`,
        'localhost',
        '127.0.0.1',
        `LOCALHOST.:${s.port}`,
        `127.0.0.1:${s.port}@evil.example`,
      ];
      for (const host of [...accepted, ...refused]) {
        const rest = await rawRequest({ port: s.port, path: '/api/sessions', headers: { ...bearer(s.token), host } });
        const mcp = await rawRequest({
          port: s.port,
          method: 'POST',
          path: '/mcp',
          headers: { ...bearer(s.token), host, accept: 'application/json, text/event-stream' },
          body: MCP_INITIALIZE,
        });
        const want = accepted.includes(host) ? 200 : 403;
        assert.equal(rest.status, want, `REST with Host "${host}": ${rest.text.slice(0, 200)}`);
        assert.equal(mcp.status, want, `/mcp with Host "${host}": ${mcp.text.slice(0, 200)}`);
        if (want === 403) {
          for (const res of [rest, mcp]) assert.deepEqual(Object.keys(res.json).sort(), ['code', 'error'], `Host "${host}": the same {error, code} refusal`);
          assert.deepEqual(mcp.json, rest.json, `Host "${host}": REST and /mcp refuse the same way`);
        } else {
          assert.equal(mcp.json?.result?.serverInfo?.name, 'baton', `/mcp with Host "${host}" initializes`);
        }
      }
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('3. POST /api/hooks/claude-code payloads', () => {
    it('answers 400 naming the field for a payload without session_id (or with a bad one), and changes nothing', async () => {
      const before = await storeState(s.store);
      const cases: Array<[object, string]> = [
        [{ hook_event_name: 'SessionStart' }, 'session_id'],
        [{ hook_event_name: 'UserPromptSubmit', prompt: 'hello' }, 'session_id'],
        [{ hook_event_name: 'SessionStart', session_id: '' }, 'session_id'],
        [{ hook_event_name: 'SessionStart', session_id: 42 }, 'session_id'],
        [{ hook_event_name: 'SessionStart', session_id: null }, 'session_id'],
        [{ hook_event_name: 'SessionStart', session_id: ['a'] }, 'session_id'],
        [{ session_id: 'cc-1' }, 'hook_event_name'],
        [{ hook_event_name: 'SubagentStart', session_id: 'cc-1' }, 'agent_id'],
        [{ hook_event_name: 'SubagentStop', session_id: 'cc-1' }, 'agent_id'],
        [{ hook_event_name: 'SubagentStart', session_id: 'cc-1', agent_id: '  ' }, 'agent_id'],
        [{ hook_event_name: 'SessionStart', session_id: 'cc-1', cwd: 7 }, 'cwd'],
      ];
      for (const [body, field] of cases) {
        const res = await rawRequest({ port: s.port, method: 'POST', path: '/api/hooks/claude-code', headers: bearer(s.token), body });
        assertJsonError(res, 400, `claude-code ${JSON.stringify(body)}`);
        assert.equal(res.json.code, 'invalid_request');
        assert.ok(res.json.error.includes(field), `claude-code ${JSON.stringify(body)}: the error names ${field}: ${res.json.error}`);
      }
      const empty = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/hooks/claude-code',
        headers: { ...bearer(s.token), 'content-type': 'application/json' },
        body: '',
      });
      assertJsonError(empty, 400, 'empty claude-code body');
      await assertStoreUnchanged(s.store, before, 'bad claude-code payloads');
      // Control: a well-formed payload is served.
      const ok = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/hooks/claude-code',
        headers: bearer(s.token),
        body: { hook_event_name: 'SessionStart', session_id: 'cc-ok-1', cwd: '/repo', source: 'startup' },
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await s.store.read('getSession', { scope: 'all', key: 'cc-ok-1' }))?.harness, HARNESS);
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('6. session keys that could never be read back', () => {
    it('refuses "." and ".." (also with the session: prefix or padding) on every route that creates or names a session, and changes nothing', async () => {
      const before = await storeState(s.store);
      for (const key of ['.', '..', ' .. ', 'session:.', 'session:..', 'session:']) {
        const cases: Array<[string, object, string]> = [
          ['/api/hooks/session-start', { harness: HARNESS, sessionKey: key }, 'sessionKey'],
          ['/api/hooks/session-start', { harness: HARNESS, sessionId: key }, 'sessionId'],
          ['/api/hooks/session-start', { harness: HARNESS, sessionKey: 'dot-child', parentSessionKey: key }, 'parentSessionKey'],
          ['/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: key, userMessage: 'hi' }, 'sessionKey'],
          ['/api/hooks/session-end', { harness: HARNESS, sessionId: key }, 'sessionId'],
          ['/api/hooks/session-checkpoint-extract', { harness: HARNESS, sessionKey: key, transcript: 'User: hi' }, 'sessionKey'],
          ['/api/runs', { runner: 'r', sessionKey: key }, 'sessionKey'],
          ['/api/hooks/claude-code', { hook_event_name: 'SessionStart', session_id: key }, 'session_id'],
        ];
        for (const [route, body, field] of cases) {
          const res = await rawRequest({ port: s.port, method: 'POST', path: route, headers: bearer(s.token), body });
          assertJsonError(res, 400, `POST ${route} ${JSON.stringify(body)}`);
          assert.ok(res.json.error.includes(field), `POST ${route}: names ${field}: ${res.json.error}`);
        }
      }
      await assertStoreUnchanged(s.store, before, 'dot keys');
    });

    it('refuses keys with lone surrogates (400) and echoes well-formed keys exactly as given', async () => {
      const before = await storeState(s.store);
      for (const escaped of ['\\ud800', 'a\\udfffb', '\\udc00\\ud800', 'x\\ud83d']) {
        for (const [route, field] of [
          ['/api/hooks/session-start', 'sessionKey'],
          ['/api/hooks/user-prompt-submit', 'sessionKey'],
        ]) {
          const res = await rawRequest({
            port: s.port,
            method: 'POST',
            path: route,
            headers: { ...bearer(s.token), 'content-type': 'application/json' },
            body: `{"harness":"${HARNESS}","sessionKey":"${escaped}","userMessage":"hi"}`,
          });
          assertJsonError(res, 400, `POST ${route} key "${escaped}"`);
          assert.ok(res.json.error.includes(field) && /surrogate/.test(res.json.error), res.json.error);
        }
        const cc = await rawRequest({
          port: s.port,
          method: 'POST',
          path: '/api/hooks/claude-code',
          headers: { ...bearer(s.token), 'content-type': 'application/json' },
          body: `{"hook_event_name":"SessionStart","session_id":"${escaped}"}`,
        });
        assertJsonError(cc, 400, `claude-code session_id "${escaped}"`);
        const agent = await rawRequest({
          port: s.port,
          method: 'POST',
          path: '/api/hooks/claude-code',
          headers: { ...bearer(s.token), 'content-type': 'application/json' },
          body: `{"hook_event_name":"SubagentStart","session_id":"ok-root","agent_id":"${escaped}"}`,
        });
        assertJsonError(agent, 400, `claude-code agent_id "${escaped}"`);
      }
      // The same keys percent-encoded in a path (not valid UTF-8): refused the same way.
      for (const [method, route] of [
        ['GET', '/api/sessions/%ED%A0%80'],
        ['GET', '/api/sessions/a%ED%B0%80b/transcript'],
        ['GET', '/api/sessions/%FF/turns'],
        ['GET', '/api/sessions/%ED%A0%80/inherited'],
        ['POST', '/api/sessions/%ED%A0%80/bypass'],
      ]) {
        const res = await rawRequest({ port: s.port, method, path: route, headers: bearer(s.token), body: method === 'POST' ? { enabled: true } : undefined });
        assertJsonError(res, 400, `${method} ${route}`);
        assert.match(res.json.error, /^key: /, `${method} ${route}: names the key: ${res.json.error}`);
      }
      await assertStoreUnchanged(s.store, before, 'lone surrogates');
      for (const key of ['emoji-\u{1F600}-key', 'a.b', '...', '.hidden', 'ü/agent-ß']) {
        const start = await rawRequest({
          port: s.port,
          method: 'POST',
          path: '/api/hooks/session-start',
          headers: bearer(s.token),
          body: { harness: HARNESS, sessionKey: key },
        });
        assert.equal(start.status, 200, `key ${JSON.stringify(key)}: ${start.text.slice(0, 200)}`);
        const got = await rawRequest({ port: s.port, path: `/api/sessions/${encodeURIComponent(key)}`, headers: bearer(s.token) });
        assert.equal(got.status, 200, `GET key ${JSON.stringify(key)}: ${got.text.slice(0, 200)}`);
        assert.equal(got.json.key, key, 'the key reads back exactly as given');
      }
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('4. shutdown with open streams', () => {
    it('closes within 1 s while an SSE event stream and a GET /mcp stream are open (and ends both)', async () => {
      const t = await startTestServer();
      let stopped = false;
      const sockets: net.Socket[] = [];
      try {
        const auth = `Host: 127.0.0.1:${t.port}\r\nAuthorization: Bearer ${t.token}\r\n`;
        const sse = await openStream(t.port, `GET /api/events HTTP/1.1\r\n${auth}Accept: text/event-stream\r\n\r\n`, sockets);
        const mcp = await openStream(t.port, `GET /mcp HTTP/1.1\r\n${auth}Accept: text/event-stream\r\n\r\n`, sockets);
        assert.match(await within(sse.head, 5000, 'SSE headers'), /^HTTP\/1\.1 200 [\s\S]*text\/event-stream/);
        assert.match(await within(mcp.head, 5000, 'GET /mcp headers'), /^HTTP\/1\.1 200 [\s\S]*text\/event-stream/);
        // An idle keep-alive connection too.
        const idle = await openStream(t.port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n\r\n`, sockets);
        await within(idle.head, 5000, 'health');

        const started = Date.now();
        await t.daemon.server.close();
        const elapsed = Date.now() - started;
        assert.ok(elapsed < 1000, `server close took ${elapsed} ms with open streams; the bound is 1 s`);
        await within(Promise.all([sse.closed, mcp.closed, idle.closed]), 1000, 'every connection closed');
        const stopStarted = Date.now();
        await t.daemon.stop();
        stopped = true;
        assert.ok(Date.now() - stopStarted < 5000, 'stop() finishes promptly afterwards');
      } finally {
        for (const socket of sockets) socket.destroy();
        if (!stopped) await t.daemon.stop();
      }
    });

    it('baton serve exits promptly on SIGTERM while an SSE stream and a GET /mcp stream are open', async () => {
      assert.ok(fs.existsSync(CLI), 'dist/ is built (npm run build)');
      const dir = tempDir('baton-sigterm-');
      const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dir, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      const sockets: net.Socket[] = [];
      try {
        await new Promise<void>((resolve, reject) => {
          let out = '';
          child.stdout!.on('data', (c: Buffer) => {
            out += c.toString();
            if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(out)) resolve();
          });
          child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
          setTimeout(() => reject(new Error('serve did not start in 15 s')), 15_000).unref();
        });
        const endpoint = JSON.parse(fs.readFileSync(path.join(dir, 'endpoint.json'), 'utf8')) as { port: number; token: string };
        const auth = `Host: 127.0.0.1:${endpoint.port}\r\nAuthorization: Bearer ${endpoint.token}\r\nAccept: text/event-stream\r\n`;
        const sse = await openStream(endpoint.port, `GET /api/events HTTP/1.1\r\n${auth}\r\n`, sockets);
        const mcp = await openStream(endpoint.port, `GET /mcp HTTP/1.1\r\n${auth}\r\n`, sockets);
        await within(Promise.all([sse.head, mcp.head]), 5000, 'both streams open');
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        const started = Date.now();
        child.kill('SIGTERM');
        const code = await within(exited, 5000, 'serve exit after SIGTERM');
        const elapsed = Date.now() - started;
        if (process.env.BATON_TEST_SHOW) process.stdout.write(`SIGTERM to exit: ${elapsed} ms\n`);
        assert.equal(code, 0);
        // The server's part is bounded by 1 s (above); the rest is the store's final flush.
        assert.ok(elapsed < 2000, `serve took ${elapsed} ms to exit on SIGTERM with open streams (it waited 10 s before)`);
        await within(Promise.all([sse.closed, mcp.closed]), 1000, 'both streams closed');
      } finally {
        for (const socket of sockets) socket.destroy();
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });

    it('close() may be called twice (the same close), and a closed server accepts nothing', async () => {
      const t = await startTestServer();
      try {
        const first = t.daemon.server.close();
        const second = t.daemon.server.close();
        assert.equal(first, second, 'the same close');
        await first;
        await assert.rejects(rawRequest({ port: t.port, path: '/api/events', headers: bearer(t.token), timeoutMs: 2000 }), 'a closed server accepts nothing');
      } finally {
        await t.daemon.stop();
      }
    });
  });
});
