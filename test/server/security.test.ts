// The endpoint's security rules, route by route, against a real in-process server over real HTTP
// on 127.0.0.1: bearer tokens, Host/Origin checks (DNS rebinding, web pages), no CORS, content
// type, body caps, body validation, JSON errors without stack traces, slow clients, agent-scoped
// tokens and isolation, logs without secrets, endpoint.json, loopback-only listening and
// transcriptPath confinement. Every rejection must also leave the store exactly as it was.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { layout } from '../../src/node/paths';
import {
  LOOPBACK,
  assertNoCors,
  assertStoreUnchanged,
  bearer,
  observedResponses,
  rawRequest,
  rawSocket,
  sleep,
  startTestServer,
  storeState,
  type RawResponse,
  type TestServer,
} from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HARNESS = 'claude-code';

interface SendOptions {
  method?: string;
  path: string;
  token?: string;
  headers?: Record<string, string | undefined>;
  body?: string | Buffer | object;
  timeoutMs?: number;
}

/** Every error body seen in this file, checked for shape and leaks at the end. */
const errorResponses: Array<{ what: string; res: RawResponse }> = [];

function assertNoInternals(text: string, what: string): void {
  assert.doesNotMatch(text, /\n\s*at\s/, `${what}: no stack frames`);
  assert.doesNotMatch(text, /\bat [\w.<>$]+ \(/, `${what}: no stack frames`);
  assert.doesNotMatch(text, /\/src\//, `${what}: no source paths`);
  assert.doesNotMatch(text, /\.[cm]?[jt]s:\d+/, `${what}: no file:line references`);
  assert.doesNotMatch(text, /node:internal|node_modules/, `${what}: no runtime internals`);
}

/** The error contract: JSON {error, code} and nothing else, no stack, no paths. */
function assertErrorShape(res: RawResponse, what: string): void {
  assert.match(String(res.headers['content-type']), /^application\/json/, `${what}: errors are JSON (got ${res.headers['content-type']}: ${res.text})`);
  assert.ok(res.json && typeof res.json === 'object' && !Array.isArray(res.json), `${what}: error body is a JSON object: ${res.text}`);
  assert.deepEqual(Object.keys(res.json).sort(), ['code', 'error'], `${what}: error body is exactly {error, code}: ${res.text}`);
  assert.equal(typeof res.json.error, 'string', `${what}: error is a string`);
  assert.ok(res.json.error.length > 0, `${what}: error message is not empty`);
  assert.equal(typeof res.json.code, 'string', `${what}: code is a string`);
  assertNoInternals(res.text, what);
  assertNoInternals(res.json.error, what);
}

async function send(port: number, opts: SendOptions): Promise<RawResponse> {
  const headers = { ...(opts.token !== undefined ? bearer(opts.token) : {}), ...(opts.headers ?? {}) };
  const res = await rawRequest({ port, method: opts.method ?? 'GET', path: opts.path, headers, body: opts.body, timeoutMs: opts.timeoutMs });
  const what = `${opts.method ?? 'GET'} ${opts.path} -> ${res.status}`;
  if (res.status >= 400) {
    errorResponses.push({ what, res });
    assertErrorShape(res, what);
  }
  return res;
}

function expectError(res: RawResponse, status: number, code: string, what: string): void {
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.code, code, `${what}: expected code ${code}: ${res.text}`);
}

function expectOk(res: RawResponse, what: string): void {
  assert.equal(res.status, 200, `${what}: expected 200, got ${res.status}: ${res.text}`);
}

/** Same length, one character different. */
function oneCharOff(token: string): string {
  const i = Math.floor(token.length / 2);
  const replacement = token[i] === 'A' ? 'B' : 'A';
  const out = token.slice(0, i) + replacement + token.slice(i + 1);
  assert.equal(out.length, token.length);
  assert.notEqual(out, token);
  return out;
}

function treeKeys(nodes: Array<{ key: string; children?: unknown[] }>): string[] {
  return nodes.flatMap((n) => [n.key, ...treeKeys((n.children ?? []) as Array<{ key: string; children?: unknown[] }>)]);
}

async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

function otherPort(port: number): number {
  return port < 65535 ? port + 1 : port - 1;
}

// ------------------------------------------------------------------------------------------------

describe('server security (real HTTP on 127.0.0.1)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  const KEY = 'seed-session-1';
  let s: TestServer;
  let summaryId: string;

  /** Every route of the table, with a body that would be accepted with the right token. */
  const getRoutes = () => [
    '/api/sessions',
    '/api/sessions/tree',
    '/api/sessions/summaries',
    `/api/sessions/${KEY}`,
    `/api/sessions/${KEY}/transcript`,
    `/api/sessions/${KEY}/inherited`,
    `/api/sessions/${KEY}/turns`,
    '/api/hooks/synthesis/config',
    '/api/events',
  ];
  const postRoutes = (): Array<[string, object]> => [
    ['/api/hooks/session-start', { harness: HARNESS, sessionKey: 'would-be-new-session', project: '/proj/x' }],
    ['/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: KEY, userMessage: 'a prompt that must not be stored' }],
    ['/api/hooks/session-end', { harness: HARNESS, sessionKey: KEY, reason: 'done' }],
    ['/api/hooks/remember', { harness: HARNESS, content: 'a memory that must not be stored' }],
    ['/api/hooks/recall', { harness: HARNESS, query: 'pelicans' }],
    ['/api/hooks/pre-compaction', { harness: HARNESS, sessionKey: KEY }],
    ['/api/hooks/compaction-complete', { harness: HARNESS, sessionKey: KEY, summary: 'a summary that must not be stored' }],
    ['/api/hooks/session-checkpoint-extract', { harness: HARNESS, sessionKey: KEY, transcript: [{ role: 'user', content: 'must not be stored' }] }],
    ['/api/hooks/synthesis', {}],
    ['/api/hooks/synthesis/complete', { content: '# Memory\n' }],
    ['/api/sessions/search', { query: 'pelicans' }],
    ['/api/sessions/summaries/expand', { id: 'whatever' }],
    [`/api/sessions/${KEY}/bypass`, { enabled: true }],
    ['/api/tokens', { agentId: 'mallory', permissions: ['admin'] }],
  ];

  before(async () => {
    s = await startTestServer();
    expectOk(
      await send(s.port, {
        method: 'POST',
        path: '/api/hooks/session-start',
        token: s.token,
        body: { harness: HARNESS, sessionKey: KEY, project: '/proj/seed' },
      }),
      'seed start',
    );
    expectOk(
      await send(s.port, {
        method: 'POST',
        path: '/api/hooks/user-prompt-submit',
        token: s.token,
        body: { harness: HARNESS, sessionKey: KEY, userMessage: 'seed prompt about pelicans' },
      }),
      'seed prompt',
    );
    const compact = await send(s.port, {
      method: 'POST',
      path: '/api/hooks/compaction-complete',
      token: s.token,
      body: { harness: HARNESS, sessionKey: KEY, summary: 'seed summary about pelicans' },
    });
    expectOk(compact, 'seed compaction');
    summaryId = compact.json.summaryId;
    assert.equal(typeof summaryId, 'string');
  });
  after(async () => {
    await s?.daemon.stop();
  });

  // ----------------------------------------------------------------------------------------------
  describe('1. bearer token on every route but health', () => {
    const badAuth = (token: string): Array<[string, Record<string, string | undefined>]> => [
      ['no Authorization header', {}],
      ['a wrong token', bearer('not-the-token')],
      ['a token of the right length with one character different', bearer(oneCharOff(token))],
      ['the right token with one character appended', bearer(`${token}x`)],
      ['Basic auth carrying the token as password', { authorization: `Basic ${Buffer.from(`baton:${token}`).toString('base64')}` }],
      ['Basic auth with the raw token', { authorization: `Basic ${token}` }],
      ['the raw token without a scheme', { authorization: token }],
      ['an empty Bearer', { authorization: 'Bearer ' }],
    ];

    it('refuses every GET route with 401 {error, code:"unauthorized"} for a missing, wrong, off-by-one or Basic token, and changes nothing', async () => {
      for (const route of getRoutes()) {
        const before = await storeState(s.store);
        for (const [label, headers] of badAuth(s.token)) {
          const res = await send(s.port, { path: route, headers, timeoutMs: 5000 });
          expectError(res, 401, 'unauthorized', `GET ${route} with ${label}`);
        }
        await assertStoreUnchanged(s.store, before, `GET ${route}`);
      }
    });

    it('refuses every POST and DELETE route with 401 for the same tokens, before reading the body, and changes nothing', async () => {
      const routes: Array<[string, string, object | undefined]> = [
        ...postRoutes().map(([p, b]) => ['POST', p, b] as [string, string, object]),
        ['DELETE', '/api/tokens/some-token-id', undefined],
      ];
      for (const [method, route, body] of routes) {
        const before = await storeState(s.store);
        for (const [label, headers] of badAuth(s.token)) {
          const res = await send(s.port, { method, path: route, headers, body });
          expectError(res, 401, 'unauthorized', `${method} ${route} with ${label}`);
        }
        await assertStoreUnchanged(s.store, before, `${method} ${route}`);
      }
    });

    it('does not accept the token from the query string', async () => {
      const before = await storeState(s.store);
      for (const q of [`?token=${s.token}`, `?access_token=${s.token}`, `?authorization=Bearer%20${s.token}`]) {
        expectError(await send(s.port, { path: `/api/sessions${q}` }), 401, 'unauthorized', `GET /api/sessions${q.split('=')[0]}`);
        expectError(
          await send(s.port, { method: 'POST', path: `/api/hooks/session-start${q}`, body: { harness: HARNESS, sessionKey: 'via-query' } }),
          401,
          'unauthorized',
          'POST session-start with query token',
        );
      }
      await assertStoreUnchanged(s.store, before, 'query-string tokens');
    });

    it('control: the admin token opens every GET route (200), so the 401s above are about the token', async () => {
      for (const route of getRoutes().filter((r) => r !== '/api/events')) {
        expectOk(await send(s.port, { path: route, token: s.token }), `GET ${route} with the admin token`);
      }
      // Bearer is case-insensitive as an auth scheme.
      expectOk(await send(s.port, { path: '/api/sessions', headers: { authorization: `bearer ${s.token}` } }), 'lower-case bearer');
    });

    it('control: the admin token passes authentication on every POST route (never 401)', async () => {
      for (const [route, body] of postRoutes()) {
        const res = await send(s.port, { method: 'POST', path: route, token: s.token, body });
        assert.notEqual(res.status, 401, `POST ${route} with the admin token: ${res.text}`);
        assert.notEqual(res.status, 403, `POST ${route} with the admin token: ${res.text}`);
      }
    });

    it('GET /api/health answers {status:"ok"} without a token and reveals nothing else', async () => {
      const res = await send(s.port, { path: '/api/health' });
      expectOk(res, 'health');
      assert.deepEqual(res.json, { status: 'ok' });
      assert.equal(res.headers['x-powered-by'], undefined);
      assert.equal(res.headers.server, undefined);
      assert.ok(!res.text.includes(s.dataDir), 'no data directory');
      assert.ok(!res.text.includes(String(process.pid)), 'no pid');
      assert.doesNotMatch(res.text, /\d+\.\d+\.\d+/, 'no version');
      assert.doesNotMatch(res.text, /version|path|dir|count|sessions|uptime|token/i);
      // Same answer with any (even a wrong) token: health neither validates nor reflects it.
      const withToken = await send(s.port, { path: '/api/health', headers: bearer('wrong') });
      assert.deepEqual(withToken.json, { status: 'ok' });
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('2. Host header (DNS rebinding)', () => {
    const hostRequests = (): Array<[string, string, object | undefined]> => [
      ['GET', '/api/health', undefined],
      ['GET', '/api/sessions', undefined],
      ['GET', `/api/sessions/${KEY}/transcript`, undefined],
      ['GET', '/api/events', undefined],
      ['POST', '/api/hooks/session-start', { harness: HARNESS, sessionKey: 'rebinding-session' }],
      ['POST', '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: KEY, userMessage: 'rebinding write' }],
      ['POST', '/api/tokens', { agentId: 'rebinder', permissions: ['admin'] }],
    ];

    it('accepts 127.0.0.1:PORT, localhost:PORT and [::1]:PORT', async () => {
      for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `[::1]:${s.port}`]) {
        expectOk(await send(s.port, { path: '/api/sessions', token: s.token, headers: { host } }), `Host ${host}`);
        expectOk(await send(s.port, { path: '/api/health', headers: { host } }), `health with Host ${host}`);
      }
    });

    it('refuses any other Host with 403, even with a valid token, on GET and POST routes, and changes nothing', async () => {
      const bad = [
        'evil.com',
        `evil.com:${s.port}`,
        '127.0.0.1',
        'localhost',
        `127.0.0.1:${otherPort(s.port)}`,
        `localhost:${otherPort(s.port)}`,
        `localhost.evil.com:${s.port}`,
        `127.0.0.1.evil.com:${s.port}`,
        `127.0.0.1:${s.port}.evil.com`,
        `127.0.0.2:${s.port}`,
        `0.0.0.0:${s.port}`,
        `[::ffff:127.0.0.1]:${s.port}`,
        '',
      ];
      for (const [method, route, body] of hostRequests()) {
        const before = await storeState(s.store);
        for (const host of bad) {
          const res = await send(s.port, { method, path: route, token: s.token, headers: { host }, body, timeoutMs: 5000 });
          expectError(res, 403, 'forbidden', `${method} ${route} with Host "${host}"`);
        }
        await assertStoreUnchanged(s.store, before, `${method} ${route} with bad Hosts`);
      }
    });

    it('refuses a request with no Host at all (HTTP/1.1: 400 from Node; HTTP/1.0: 403) and changes nothing', async () => {
      const before = await storeState(s.store);
      const v11 = await rawSocket(s.port, `GET /api/sessions HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n\r\n`, { waitMs: 5000 });
      assert.match(v11.text, /^HTTP\/1\.1 4\d\d /, `HTTP/1.1 without Host: ${v11.text}`);
      assert.doesNotMatch(v11.text, /seed-session-1/);
      assert.doesNotMatch(v11.text, /^access-control-/im);
      const v10 = await rawSocket(s.port, `GET /api/sessions HTTP/1.0\r\nAuthorization: Bearer ${s.token}\r\n\r\n`, { waitMs: 5000 });
      assert.match(v10.text, /^HTTP\/1\.[01] 403 /, `HTTP/1.0 without Host: ${v10.text}`);
      assert.doesNotMatch(v10.text, /seed-session-1/);
      assert.doesNotMatch(v10.text, /^access-control-/im);
      const post = await rawSocket(
        s.port,
        `POST /api/hooks/session-start HTTP/1.0\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: 45\r\n\r\n${JSON.stringify({ harness: 'claude-code', sessionKey: 'no-host-1' })}`,
        { waitMs: 5000 },
      );
      assert.match(post.text, /^HTTP\/1\.[01] 403 /, `POST HTTP/1.0 without Host: ${post.text}`);
      await assertStoreUnchanged(s.store, before, 'no Host');
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('3. Origin, Sec-Fetch-Site and CORS', () => {
    const originRequests = (): Array<[string, string, object | undefined]> => [
      ['GET', '/api/health', undefined],
      ['GET', '/api/sessions', undefined],
      ['GET', `/api/sessions/${KEY}`, undefined],
      ['GET', '/api/events', undefined],
      ['POST', '/api/hooks/session-start', { harness: HARNESS, sessionKey: 'from-a-web-page' }],
      ['POST', '/api/hooks/remember', { harness: HARNESS, content: 'from a web page' }],
      ['POST', '/api/tokens', { agentId: 'webpage', permissions: ['admin'] }],
    ];

    it('refuses any Origin header (null, its own origin, a webview, another site, empty) with 403 and changes nothing', async () => {
      const origins = [
        'null',
        `http://127.0.0.1:${s.port}`,
        `http://localhost:${s.port}`,
        `http://[::1]:${s.port}`,
        'vscode-webview://x',
        'https://evil.com',
        'file://',
        '',
      ];
      for (const [method, route, body] of originRequests()) {
        const before = await storeState(s.store);
        for (const origin of origins) {
          const res = await send(s.port, { method, path: route, token: s.token, headers: { origin }, body, timeoutMs: 5000 });
          expectError(res, 403, 'forbidden', `${method} ${route} with Origin "${origin}"`);
        }
        await assertStoreUnchanged(s.store, before, `${method} ${route} with an Origin`);
      }
    });

    it('refuses Sec-Fetch-Site: cross-site (and same-site) with 403 and changes nothing; same-origin/none pass', async () => {
      for (const [method, route, body] of originRequests()) {
        const before = await storeState(s.store);
        for (const site of ['cross-site', 'same-site']) {
          const res = await send(s.port, { method, path: route, token: s.token, headers: { 'sec-fetch-site': site }, body, timeoutMs: 5000 });
          expectError(res, 403, 'forbidden', `${method} ${route} with Sec-Fetch-Site ${site}`);
        }
        await assertStoreUnchanged(s.store, before, `${method} ${route} cross-site`);
      }
      for (const site of ['same-origin', 'none']) {
        expectOk(await send(s.port, { path: '/api/sessions', token: s.token, headers: { 'sec-fetch-site': site } }), `Sec-Fetch-Site ${site}`);
      }
    });

    it('never answers an OPTIONS preflight successfully, and never with CORS headers', async () => {
      const before = await storeState(s.store);
      const paths = [
        '/api/health',
        '/api/sessions',
        '/api/hooks/session-start',
        '/api/hooks/remember',
        '/api/tokens',
        `/api/sessions/${KEY}/bypass`,
        '/api/sessions/search',
        '/api/events',
      ];
      for (const p of paths) {
        const preflight = await send(s.port, {
          method: 'OPTIONS',
          path: p,
          headers: { origin: 'https://evil.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
        });
        expectError(preflight, 403, 'forbidden', `OPTIONS ${p} preflight`);
        assertNoCors(preflight.headers, `OPTIONS ${p}`);
        const sameOrigin = await send(s.port, {
          method: 'OPTIONS',
          path: p,
          headers: { origin: `http://127.0.0.1:${s.port}`, 'access-control-request-method': 'GET' },
        });
        expectError(sameOrigin, 403, 'forbidden', `OPTIONS ${p} preflight from its own origin`);
        const bare = await send(s.port, { method: 'OPTIONS', path: p, token: s.token });
        assert.ok(bare.status >= 400, `OPTIONS ${p} without Origin must not succeed: ${bare.status}`);
        assertNoCors(bare.headers, `bare OPTIONS ${p}`);
      }
      await assertStoreUnchanged(s.store, before, 'OPTIONS');
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('4. POST bodies must be application/json', () => {
    it('answers 415 for text/plain, form-urlencoded, multipart, text/json or no Content-Type on every POST route, and changes nothing', async () => {
      const types: Array<string | undefined> = [
        'text/plain',
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'text/json',
        'application/json-patch+json',
        undefined,
      ];
      for (const [route, body] of postRoutes()) {
        const before = await storeState(s.store);
        for (const type of types) {
          const res = await send(s.port, { method: 'POST', path: route, token: s.token, headers: { 'content-type': type }, body: JSON.stringify(body) });
          expectError(res, 415, 'unsupported_media_type', `POST ${route} with Content-Type ${type ?? '(none)'}`);
        }
        await assertStoreUnchanged(s.store, before, `POST ${route} wrong content type`);
      }
    });

    it('accepts application/json; charset=utf-8', async () => {
      const search = await send(s.port, {
        method: 'POST',
        path: '/api/sessions/search',
        token: s.token,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ query: 'pelicans' }),
      });
      expectOk(search, 'search with charset');
      const before = await storeState(s.store);
      const start = await send(s.port, {
        method: 'POST',
        path: '/api/hooks/session-start',
        token: s.token,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ harness: HARNESS, sessionKey: 'charset-session' }),
      });
      expectOk(start, 'session-start with charset');
      assert.ok((await storeState(s.store)).seq > before.seq, 'the accepted write reached the store');
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('6. body validation', () => {
    it('answers 400 for invalid JSON, invalid UTF-8, and non-object JSON bodies, and changes nothing', async () => {
      const bodies: Array<[string, string | Buffer]> = [
        ['truncated JSON', '{"harness":'],
        ['unquoted keys', "{harness: 'claude-code'}"],
        ['trailing garbage', '{"harness":"claude-code"} x'],
        ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
        ['a lone surrogate byte sequence', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])],
        ['a JSON array', '[{"harness":"claude-code","sessionKey":"array-session"}]'],
        ['an empty array', '[]'],
        ['a JSON string', '"claude-code"'],
        ['a JSON number', '42'],
        ['JSON null', 'null'],
        ['JSON true', 'true'],
      ];
      for (const route of ['/api/hooks/session-start', '/api/hooks/remember', '/api/tokens', '/api/sessions/search']) {
        const before = await storeState(s.store);
        for (const [label, body] of bodies) {
          const res = await send(s.port, { method: 'POST', path: route, token: s.token, headers: { 'content-type': 'application/json' }, body });
          expectError(res, 400, 'invalid_request', `POST ${route} with ${label}`);
        }
        await assertStoreUnchanged(s.store, before, `POST ${route} bad bodies`);
      }
    });

    it('names the offending field in schema errors, and changes nothing', async () => {
      const before = await storeState(s.store);
      const cases: Array<[string, object, string]> = [
        ['/api/hooks/session-start', { sessionKey: 'no-harness' }, 'harness'],
        ['/api/hooks/session-start', {}, 'harness'],
        ['/api/hooks/session-start', { harness: 42, sessionKey: 'bad-harness' }, 'harness'],
        ['/api/hooks/user-prompt-submit', { sessionKey: KEY, userMessage: 'no harness' }, 'harness'],
        ['/api/hooks/remember', { content: 'no harness' }, 'harness'],
        ['/api/sessions/search', { query: 'pelicans', limit: 'x' }, 'limit'],
        [`/api/sessions/${KEY}/bypass`, { enabled: 'yes' }, 'enabled'],
        [`/api/sessions/${KEY}/bypass`, {}, 'enabled'],
        ['/api/tokens', { permissions: ['recall'] }, 'agentId'],
        ['/api/tokens', { agentId: 'eve', permissions: ['root'] }, 'permissions'],
        ['/api/tokens', { agentId: 'eve', permissions: ['recall'], readPolicy: 'public' }, 'readPolicy'],
      ];
      for (const [route, body, field] of cases) {
        const res = await send(s.port, { method: 'POST', path: route, token: s.token, body });
        expectError(res, 400, 'invalid_request', `POST ${route} ${JSON.stringify(body)}`);
        assert.ok(res.json.error.includes(field), `POST ${route} ${JSON.stringify(body)}: the error must name "${field}": ${res.json.error}`);
      }
      // An empty body with the JSON type is an empty object: still a schema error naming the field.
      const empty = await send(s.port, {
        method: 'POST',
        path: '/api/hooks/session-start',
        token: s.token,
        headers: { 'content-type': 'application/json' },
        body: '',
      });
      expectError(empty, 400, 'invalid_request', 'empty body');
      assert.match(empty.json.error, /harness/);
      await assertStoreUnchanged(s.store, before, 'schema errors');
      assert.equal(await s.store.read('agentPolicy', { agentId: 'eve' }), null, 'a refused token request creates no agent');
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('7. errors are JSON {error, code} without internals', () => {
    it('shapes every kind of error the same way', async () => {
      const cases: Array<[SendOptions, number, string]> = [
        [{ path: '/api/nope', token: s.token }, 404, 'not_found'],
        [{ path: '/nope' }, 404, 'not_found'],
        [{ path: '/api/sessions/does-not-exist', token: s.token }, 404, 'not_found'],
        [{ path: '/api/sessions/does-not-exist/transcript', token: s.token }, 404, 'not_found'],
        [{ path: `/api/sessions/${KEY}/turns?limit=abc`, token: s.token }, 400, 'invalid_request'],
        [{ path: '/api/sessions?limit=-1', token: s.token }, 400, 'invalid_request'],
        [{ method: 'PUT', path: '/api/sessions', token: s.token, body: {} }, 400, 'invalid_request'],
        [{ method: 'DELETE', path: '/api/sessions', token: s.token }, 400, 'invalid_request'],
        [{ method: 'POST', path: '/api/sessions/summaries/expand', token: s.token, body: { id: 'nope' } }, 404, 'not_found'],
        [
          {
            method: 'POST',
            path: '/api/hooks/session-start',
            token: s.token,
            headers: { 'content-type': 'application/json' },
            body: '{"harness": "claude-code",',
          },
          400,
          'invalid_request',
        ],
        [
          { method: 'POST', path: '/api/hooks/session-start', token: s.token, headers: { 'content-type': 'text/plain' }, body: '{}' },
          415,
          'unsupported_media_type',
        ],
        [{ path: '/api/sessions' }, 401, 'unauthorized'],
        [{ path: '/api/sessions', token: s.token, headers: { origin: 'null' } }, 403, 'forbidden'],
      ];
      for (const [opts, status, code] of cases) {
        const res = await send(s.port, opts);
        expectError(res, status, code, `${opts.method ?? 'GET'} ${opts.path}`);
      }
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('12. listening address', () => {
    it('listens on 127.0.0.1 only', () => {
      const address = s.daemon.server.server.address() as AddressInfo;
      assert.equal(address.address, '127.0.0.1');
      assert.equal(address.family, 'IPv4');
      assert.equal(address.port, s.port);
      assert.equal(s.daemon.server.url, `http://127.0.0.1:${s.port}`);
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('9. agent-scoped tokens', () => {
    const ALICE_KEY = 'alice-private-1';
    const ALICE_WORD = 'zanzibarquokka';
    const CAROL_KEY = 'carol-shared-1';
    let alice: { id: string; token: string };
    let aliceRecall: { id: string; token: string };
    let aliceWriteOnly: { id: string; token: string };
    let bob: { id: string; token: string };
    let carol: { id: string; token: string };
    let aliceSummaryId: string;

    async function createToken(body: object): Promise<{ id: string; token: string }> {
      const res = await send(s.port, { method: 'POST', path: '/api/tokens', token: s.token, body });
      expectOk(res, `create token ${JSON.stringify(body)}`);
      assert.equal(typeof res.json.id, 'string');
      assert.equal(typeof res.json.token, 'string');
      assert.ok(res.json.token.length >= 32, 'a token has at least 32 characters');
      return { id: res.json.id, token: res.json.token };
    }

    before(async () => {
      alice = await createToken({ agentId: 'alice', permissions: ['remember', 'recall'], readPolicy: 'isolated' });
      aliceRecall = await createToken({ agentId: 'alice', permissions: ['recall'], readPolicy: 'isolated' });
      aliceWriteOnly = await createToken({ agentId: 'alice', permissions: ['remember'] });
      bob = await createToken({ agentId: 'bob', permissions: ['remember', 'recall'], readPolicy: 'isolated' });
      carol = await createToken({ agentId: 'carol', permissions: ['remember', 'recall'], readPolicy: 'shared' });
    });

    it('the token response describes the token, and each token is distinct from the admin token', async () => {
      const res = await send(s.port, {
        method: 'POST',
        path: '/api/tokens',
        token: s.token,
        body: { agentId: 'frank', permissions: ['recall'], readPolicy: 'isolated' },
      });
      expectOk(res, 'create frank');
      assert.equal(res.json.agentId, 'frank');
      assert.deepEqual(res.json.permissions, ['recall']);
      assert.equal(res.json.readPolicy, 'isolated');
      const all = [s.token, alice.token, aliceRecall.token, aliceWriteOnly.token, bob.token, carol.token, res.json.token];
      assert.equal(new Set(all).size, all.length);
    });

    it('a recall-only token gets 403 on every writing hook, and changes nothing', async () => {
      const writes: Array<[string, object]> = [
        ['/api/hooks/session-start', { harness: HARNESS, sessionKey: 'reader-tries-to-start' }],
        ['/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'reader-tries-to-write', userMessage: 'reader text' }],
        ['/api/hooks/remember', { harness: HARNESS, content: 'reader memory' }],
        ['/api/hooks/session-end', { harness: HARNESS, sessionKey: 'reader-tries-to-end' }],
        ['/api/hooks/compaction-complete', { harness: HARNESS, summary: 'reader summary' }],
        ['/api/hooks/session-checkpoint-extract', { harness: HARNESS, sessionKey: 'reader-cp', transcript: 'User: hi' }],
        ['/api/hooks/pre-compaction', { harness: HARNESS }],
        ['/api/hooks/synthesis/complete', { content: '# reader' }],
        [`/api/sessions/${KEY}/bypass`, { enabled: true }],
      ];
      const before = await storeState(s.store);
      for (const [route, body] of writes) {
        expectError(await send(s.port, { method: 'POST', path: route, token: aliceRecall.token, body }), 403, 'forbidden', `recall-only POST ${route}`);
      }
      await assertStoreUnchanged(s.store, before, 'recall-only writes');
      // Control: the same token may read.
      expectOk(await send(s.port, { path: '/api/sessions', token: aliceRecall.token }), 'recall-only reads');
      expectOk(
        await send(s.port, { method: 'POST', path: '/api/hooks/recall', token: aliceRecall.token, body: { harness: HARNESS, query: 'x' } }),
        'recall-only recalls',
      );
    });

    it('a remember-only token can write but not read', async () => {
      const before = await storeState(s.store);
      const start = await send(s.port, {
        method: 'POST',
        path: '/api/hooks/session-start',
        token: aliceWriteOnly.token,
        body: { harness: HARNESS, sessionKey: 'alice-write-only-1' },
      });
      expectOk(start, 'remember-only start');
      assert.equal(start.json.agentId, 'alice');
      assert.ok((await storeState(s.store)).seq > before.seq, 'the write reached the store');
      const mid = await storeState(s.store);
      for (const route of [
        '/api/sessions',
        '/api/sessions/tree',
        '/api/sessions/alice-write-only-1',
        '/api/sessions/alice-write-only-1/transcript',
        '/api/events',
      ]) {
        expectError(await send(s.port, { path: route, token: aliceWriteOnly.token, timeoutMs: 5000 }), 403, 'forbidden', `remember-only GET ${route}`);
      }
      expectError(
        await send(s.port, { method: 'POST', path: '/api/sessions/search', token: aliceWriteOnly.token, body: { query: 'x' } }),
        403,
        'forbidden',
        'remember-only search',
      );
      await assertStoreUnchanged(s.store, mid, 'remember-only reads');
    });

    it('alice (remember+recall, isolated) writes her session, memory and summary under her own agent', async () => {
      const before = await storeState(s.store);
      const start = await send(s.port, {
        method: 'POST',
        path: '/api/hooks/session-start',
        token: alice.token,
        body: { harness: HARNESS, sessionKey: ALICE_KEY, project: '/proj/alice' },
      });
      expectOk(start, 'alice start');
      assert.equal(start.json.agentId, 'alice');
      const prompt = await send(s.port, {
        method: 'POST',
        path: '/api/hooks/user-prompt-submit',
        token: alice.token,
        body: { harness: HARNESS, sessionKey: ALICE_KEY, userMessage: `tell me about the ${ALICE_WORD} migration plan`, agentId: 'alice' },
      });
      expectOk(prompt, 'alice prompt (own agentId in the body is fine)');
      assert.equal(prompt.json.appended, 1);
      expectOk(
        await send(s.port, {
          method: 'POST',
          path: '/api/hooks/remember',
          token: alice.token,
          body: { harness: HARNESS, content: `alice remembers ${ALICE_WORD} facts` },
        }),
        'alice remember',
      );
      const compact = await send(s.port, {
        method: 'POST',
        path: '/api/hooks/compaction-complete',
        token: alice.token,
        body: { harness: HARNESS, sessionKey: ALICE_KEY, summary: `alice summary ${ALICE_WORD}` },
      });
      expectOk(compact, 'alice compaction');
      aliceSummaryId = compact.json.summaryId;
      const stored = await s.store.read('getSession', { scope: 'all', key: ALICE_KEY });
      assert.equal(stored?.agentId, 'alice');
      assert.ok((await storeState(s.store)).seq > before.seq);
      // Alice herself (and her recall-only token) sees it.
      for (const token of [alice.token, aliceRecall.token]) {
        expectOk(await send(s.port, { path: `/api/sessions/${ALICE_KEY}`, token }), 'alice reads her session');
        const t = await send(s.port, { path: `/api/sessions/${ALICE_KEY}/transcript`, token });
        expectOk(t, 'alice reads her transcript');
        assert.ok(t.json.content.includes(ALICE_WORD));
      }
      // Carol (shared) has a session of her own.
      expectOk(
        await send(s.port, { method: 'POST', path: '/api/hooks/session-start', token: carol.token, body: { harness: HARNESS, sessionKey: CAROL_KEY } }),
        'carol start',
      );
      expectOk(
        await send(s.port, {
          method: 'POST',
          path: '/api/hooks/user-prompt-submit',
          token: carol.token,
          body: { harness: HARNESS, sessionKey: CAROL_KEY, userMessage: 'carol shares hedgehogs' },
        }),
        'carol prompt',
      );
    });

    it("alice's isolated session is invisible to bob (isolated) and carol (shared): 404 not 403, no search hit, not in the tree or lists", async () => {
      const notFound = await send(s.port, { path: '/api/sessions/no-such-session-anywhere', token: bob.token });
      expectError(notFound, 404, 'not_found', 'a session that does not exist');
      for (const [name, token] of [
        ['bob', bob.token],
        ['carol', carol.token],
      ] as const) {
        const before = await storeState(s.store);
        const get = await send(s.port, { path: `/api/sessions/${ALICE_KEY}`, token });
        expectError(get, 404, 'not_found', `${name} GET alice's session`);
        assert.equal(
          get.json.error.replace(ALICE_KEY, 'K'),
          notFound.json.error.replace('no-such-session-anywhere', 'K'),
          `${name}: indistinguishable from a missing session`,
        );
        for (const sub of ['transcript', 'turns', 'inherited']) {
          const res = await send(s.port, { path: `/api/sessions/${ALICE_KEY}/${sub}`, token });
          expectError(res, 404, 'not_found', `${name} GET alice's ${sub}`);
          assert.ok(!res.text.includes(ALICE_WORD), `${name} ${sub}: no content`);
        }
        for (const query of [ALICE_WORD, ALICE_KEY, `${ALICE_WORD}*`]) {
          const search = await send(s.port, { method: 'POST', path: '/api/sessions/search', token, body: { query } });
          expectOk(search, `${name} search ${query}`);
          assert.ok(
            !search.json.hits.some((h: { sessionKey: string }) => h.sessionKey === ALICE_KEY),
            `${name} search "${query}" must not find alice's session`,
          );
          assert.ok(!search.text.includes(ALICE_WORD) || query.startsWith(ALICE_WORD), `${name} search "${query}": no excerpt of alice's text`);
          assert.equal(search.json.count, 0, `${name} search "${query}" finds nothing`);
        }
        const scoped = await send(s.port, { method: 'POST', path: '/api/sessions/search', token, body: { query: ALICE_WORD, sessionKey: ALICE_KEY } });
        expectOk(scoped, `${name} search inside alice's session`);
        assert.equal(scoped.json.count, 0);
        const viaCurrent = await send(s.port, {
          method: 'POST',
          path: '/api/sessions/search',
          token,
          body: { query: ALICE_WORD, currentSessionKey: ALICE_KEY },
        });
        expectOk(viaCurrent, `${name} search with alice's session as current`);
        assert.equal(viaCurrent.json.count, 0);
        const tree = await send(s.port, { path: '/api/sessions/tree', token });
        expectOk(tree, `${name} tree`);
        assert.ok(!treeKeys(tree.json.roots).includes(ALICE_KEY), `${name} tree must not include alice's session`);
        assert.ok(!tree.text.includes(ALICE_KEY));
        const list = await send(s.port, { path: '/api/sessions?all=1', token });
        expectOk(list, `${name} list`);
        assert.ok(!list.text.includes(ALICE_KEY), `${name} list must not include alice's session`);
        const recall = await send(s.port, { method: 'POST', path: '/api/hooks/recall', token, body: { harness: HARNESS, query: ALICE_WORD } });
        expectOk(recall, `${name} recall`);
        assert.equal(recall.json.count, 0, `${name} recall must not return alice's memories: ${recall.text}`);
        assert.ok(
          !JSON.stringify([recall.json.results, recall.json.memories, recall.json.message]).includes(ALICE_WORD),
          `${name} recall must not return alice's memories`,
        );
        const recallAs = await send(s.port, {
          method: 'POST',
          path: '/api/hooks/recall',
          token,
          body: { harness: HARNESS, query: ALICE_WORD, agentId: 'alice' },
        });
        assert.ok(
          recallAs.status === 403 || (recallAs.status === 200 && recallAs.json.count === 0),
          `${name} recall as alice: ${recallAs.status} ${recallAs.text}`,
        );
        const searchAs = await send(s.port, { method: 'POST', path: '/api/sessions/search', token, body: { query: ALICE_WORD, agentId: 'alice' } });
        assert.ok(
          searchAs.status === 403 || (searchAs.status === 200 && searchAs.json.count === 0),
          `${name} search as alice: ${searchAs.status} ${searchAs.text}`,
        );
        const summaries = await send(s.port, { path: '/api/sessions/summaries', token });
        expectOk(summaries, `${name} summaries`);
        assert.ok(!summaries.text.includes(aliceSummaryId), `${name} summaries must not list alice's summary`);
        assert.ok(!summaries.text.includes(ALICE_KEY));
        expectError(
          await send(s.port, { method: 'POST', path: '/api/sessions/summaries/expand', token, body: { id: aliceSummaryId, includeTranscript: true } }),
          404,
          'not_found',
          `${name} expand alice's summary`,
        );
        await assertStoreUnchanged(s.store, before, `${name} reading alice's session`);
        // A synthesis takes the lease on the caller's own MEMORY.md head (a write of its own), so it comes last.
        const synth = await send(s.port, { method: 'POST', path: '/api/hooks/synthesis', token, body: {} });
        expectOk(synth, `${name} synthesis`);
        assert.ok(!synth.text.includes(ALICE_KEY) && !synth.text.includes(ALICE_WORD), `${name} synthesis must not show alice's data`);
      }
      // Control: the same reads by alice find it, and bob does see carol's shared session.
      const own = await send(s.port, { method: 'POST', path: '/api/sessions/search', token: alice.token, body: { query: ALICE_WORD } });
      expectOk(own, 'alice search');
      assert.ok(
        own.json.hits.some((h: { sessionKey: string }) => h.sessionKey === ALICE_KEY),
        `alice finds her own session: ${own.text}`,
      );
      const ownSynth = await send(s.port, { method: 'POST', path: '/api/hooks/synthesis', token: alice.token, body: {} });
      assert.ok(ownSynth.text.includes(ALICE_KEY), 'alice synthesis lists her session');
      // bob is isolated: he reads only his own sessions, not even carol's shared one (docs/inheritance.md).
      assert.equal(
        (await send(s.port, { path: `/api/sessions/${CAROL_KEY}`, token: bob.token })).status,
        404,
        "isolated bob does not read carol's shared session",
      );
      const bobTree = await send(s.port, { path: '/api/sessions/tree', token: bob.token });
      assert.ok(!treeKeys(bobTree.json.roots).includes(CAROL_KEY), "isolated bob's tree leaves out carol's shared session");
    });

    it('the admin (endpoint) token sees the isolated session', async () => {
      const get = await send(s.port, { path: `/api/sessions/${ALICE_KEY}`, token: s.token });
      expectOk(get, 'admin GET');
      assert.equal(get.json.agentId, 'alice');
      const t = await send(s.port, { path: `/api/sessions/${ALICE_KEY}/transcript`, token: s.token });
      expectOk(t, 'admin transcript');
      assert.ok(t.json.content.includes(ALICE_WORD));
      const search = await send(s.port, { method: 'POST', path: '/api/sessions/search', token: s.token, body: { query: ALICE_WORD } });
      assert.ok(
        search.json.hits.some((h: { sessionKey: string }) => h.sessionKey === ALICE_KEY),
        'admin search finds it',
      );
      const tree = await send(s.port, { path: '/api/sessions/tree', token: s.token });
      assert.ok(treeKeys(tree.json.roots).includes(ALICE_KEY), 'admin tree includes it');
      expectOk(await send(s.port, { method: 'POST', path: '/api/sessions/summaries/expand', token: s.token, body: { id: aliceSummaryId } }), 'admin expand');
    });

    it("other agents cannot write to, end, bypass or inherit from alice's isolated session", async () => {
      let before = await storeState(s.store);
      expectError(
        await send(s.port, { method: 'POST', path: `/api/sessions/${ALICE_KEY}/bypass`, token: bob.token, body: { enabled: true } }),
        404,
        'not_found',
        "bob bypasses alice's session",
      );
      await assertStoreUnchanged(s.store, before, 'bob bypass');
      // A child started by bob that names alice's session as its parent inherits nothing from it.
      for (const [label, body, headers] of [
        ['body parent', { harness: HARNESS, sessionKey: 'bob-child-1', parentSessionKey: ALICE_KEY }, {}],
        ['propagated parent', { harness: HARNESS, sessionKey: 'bob-child-2' }, { 'x-agent-session-id': ALICE_KEY }],
      ] as const) {
        const child = await send(s.port, { method: 'POST', path: '/api/hooks/session-start', token: bob.token, body, headers });
        expectOk(child, `bob child with ${label}`);
        assert.equal(child.json.agentId, 'bob', `bob's child stays bob's (${label})`);
        assert.ok(!child.text.includes(ALICE_WORD), `bob's child (${label}) must not inherit alice's transcript: ${child.text}`);
        assert.equal(child.json.inherited, null);
      }
      // Bob writing to the same key writes his own session, never alice's.
      const aliceBefore = await s.store.read('getSession', { scope: { agentId: 'alice' }, key: ALICE_KEY });
      expectOk(
        await send(s.port, {
          method: 'POST',
          path: '/api/hooks/session-end',
          token: bob.token,
          body: { harness: HARNESS, sessionKey: ALICE_KEY, userMessage: 'bob was here' },
        }),
        'bob session-end on the same key',
      );
      const aliceAfter = await s.store.read('getSession', { scope: { agentId: 'alice' }, key: ALICE_KEY });
      assert.deepEqual(aliceAfter, aliceBefore, "alice's session is untouched by bob");
      before = await storeState(s.store);
      const t = await send(s.port, { path: `/api/sessions/${ALICE_KEY}/transcript`, token: alice.token });
      assert.ok(!t.json.content.includes('bob was here'));
      await assertStoreUnchanged(s.store, before, 'reads');
    });

    it('a token writing with the body agentId of another agent gets 403 and changes nothing', async () => {
      const before = await storeState(s.store);
      const cases: Array<[string, object]> = [
        ['/api/hooks/session-start', { harness: HARNESS, sessionKey: 'impersonation-1', agentId: 'bob' }],
        ['/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: ALICE_KEY, userMessage: 'as bob', agentId: 'bob' }],
        ['/api/hooks/session-end', { harness: HARNESS, sessionKey: ALICE_KEY, agentId: 'bob' }],
        ['/api/hooks/remember', { harness: HARNESS, content: 'as bob', agentId: 'bob' }],
        ['/api/hooks/compaction-complete', { harness: HARNESS, summary: 'as bob', agentId: 'bob' }],
        ['/api/hooks/session-checkpoint-extract', { harness: HARNESS, sessionKey: 'impersonation-2', agentId: 'bob', transcript: 'User: as bob' }],
        ['/api/hooks/synthesis', { agentId: 'bob' }],
        ['/api/hooks/synthesis/complete', { content: '# as bob', agentId: 'bob' }],
        ['/api/hooks/session-start', { harness: HARNESS, sessionKey: 'impersonation-3', agentId: 'default' }],
      ];
      for (const [route, body] of cases) {
        expectError(
          await send(s.port, { method: 'POST', path: route, token: alice.token, body }),
          403,
          'forbidden',
          `alice POST ${route} as ${JSON.stringify((body as { agentId: string }).agentId)}`,
        );
      }
      expectError(
        await send(s.port, {
          method: 'POST',
          path: '/api/hooks/remember',
          token: bob.token,
          body: { harness: HARNESS, content: 'as alice', agentId: 'alice' },
        }),
        403,
        'forbidden',
        'bob remembers as alice',
      );
      await assertStoreUnchanged(s.store, before, 'impersonation');
      assert.equal(fs.existsSync(path.join(s.dataDir, 'memory', 'bob', 'MEMORY.md')), false, 'no MEMORY.md written for bob');
    });

    it('only admin may create or revoke tokens (403 for agent tokens, even with an "admin"-free body)', async () => {
      const before = await storeState(s.store);
      for (const token of [alice.token, aliceRecall.token, aliceWriteOnly.token, bob.token, carol.token]) {
        expectError(
          await send(s.port, { method: 'POST', path: '/api/tokens', token, body: { agentId: 'alice', permissions: ['recall'] } }),
          403,
          'forbidden',
          'agent creates a token',
        );
        expectError(
          await send(s.port, { method: 'POST', path: '/api/tokens', token, body: { agentId: 'trudy', permissions: ['admin'], readPolicy: 'shared' } }),
          403,
          'forbidden',
          'agent creates an admin token',
        );
        expectError(await send(s.port, { method: 'DELETE', path: `/api/tokens/${bob.id}`, token }), 403, 'forbidden', 'agent revokes a token');
      }
      await assertStoreUnchanged(s.store, before, 'token management by agents');
      assert.equal(await s.store.read('agentPolicy', { agentId: 'trudy' }), null, 'no agent was created');
      expectOk(await send(s.port, { path: '/api/sessions', token: bob.token }), "bob's token still works");
    });

    it('a revoked token gets 401 afterwards, on reads and writes, and changes nothing', async () => {
      const dave = await createToken({ agentId: 'dave', permissions: ['remember', 'recall'] });
      expectOk(await send(s.port, { path: '/api/sessions', token: dave.token }), 'dave before revocation');
      expectOk(
        await send(s.port, { method: 'POST', path: '/api/hooks/remember', token: dave.token, body: { harness: HARNESS, content: 'dave memory' } }),
        'dave writes before revocation',
      );
      expectOk(await send(s.port, { method: 'DELETE', path: `/api/tokens/${dave.id}`, token: s.token }), 'admin revokes dave');
      const before = await storeState(s.store);
      expectError(await send(s.port, { path: '/api/sessions', token: dave.token }), 401, 'unauthorized', 'dave reads after revocation');
      expectError(await send(s.port, { path: '/api/events', token: dave.token, timeoutMs: 5000 }), 401, 'unauthorized', 'dave events after revocation');
      expectError(
        await send(s.port, { method: 'POST', path: '/api/hooks/remember', token: dave.token, body: { harness: HARNESS, content: 'dave after' } }),
        401,
        'unauthorized',
        'dave writes after',
      );
      expectError(
        await send(s.port, { method: 'POST', path: '/api/hooks/session-start', token: dave.token, body: { harness: HARNESS, sessionKey: 'dave-after' } }),
        401,
        'unauthorized',
        'dave starts after',
      );
      await assertStoreUnchanged(s.store, before, 'revoked token');
      expectOk(await send(s.port, { path: '/api/sessions', token: alice.token }), "revoking dave leaves alice's token working");
    });

    interface EventStream {
      text: string;
      status: number;
      close(): void;
    }

    function openEvents(token: string): Promise<EventStream> {
      return new Promise<EventStream>((resolve, reject) => {
        const req = http.request({
          host: LOOPBACK,
          port: s.port,
          path: '/api/events',
          agent: false,
          setHost: false,
          headers: { host: `127.0.0.1:${s.port}`, ...bearer(token) },
        });
        const timer = setTimeout(() => {
          req.destroy();
          reject(new Error('no event stream within 5 s'));
        }, 5000);
        req.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        req.on('response', (res) => {
          clearTimeout(timer);
          observedResponses.push({ method: 'GET', path: '/api/events', status: res.statusCode ?? 0, headers: res.headers });
          const stream: EventStream = { text: '', status: res.statusCode ?? 0, close: () => req.destroy() };
          res.on('data', (d: Buffer) => (stream.text += d.toString('utf8')));
          res.on('error', () => undefined);
          try {
            assertNoCors(res.headers, 'GET /api/events');
          } catch (err) {
            req.destroy();
            reject(err);
            return;
          }
          resolve(stream);
        });
        req.end();
      });
    }

    it("bob's event stream never hears about alice's isolated session; admin's does", async () => {
      const KEY2 = 'alice-private-events';
      const streams: EventStream[] = [];
      try {
        const bobStream = await openEvents(bob.token); // attached first: published to first
        streams.push(bobStream);
        const adminStream = await openEvents(s.token);
        streams.push(adminStream);
        assert.equal(bobStream.status, 200);
        assert.equal(adminStream.status, 200);
        expectOk(
          await send(s.port, { method: 'POST', path: '/api/hooks/session-start', token: alice.token, body: { harness: HARNESS, sessionKey: KEY2 } }),
          'alice starts',
        );
        expectOk(
          await send(s.port, {
            method: 'POST',
            path: '/api/hooks/user-prompt-submit',
            token: alice.token,
            body: { harness: HARNESS, sessionKey: KEY2, userMessage: 'another alice prompt' },
          }),
          'alice writes',
        );
        await waitFor(() => adminStream.text.includes(KEY2), 5000, "the admin stream to hear about alice's session");
        expectOk(
          await send(s.port, {
            method: 'POST',
            path: '/api/hooks/user-prompt-submit',
            token: carol.token,
            body: { harness: HARNESS, sessionKey: CAROL_KEY, userMessage: 'another carol prompt' },
          }),
          'carol writes',
        );
        await waitFor(() => bobStream.text.includes(CAROL_KEY), 5000, "bob's stream to hear about carol's shared session");
        assert.ok(!bobStream.text.includes(KEY2), `bob's stream must not mention alice's session: ${bobStream.text}`);
        assert.ok(!bobStream.text.includes('alice'), `bob's stream must not mention alice: ${bobStream.text}`);
      } finally {
        for (const stream of streams) stream.close();
      }
    });

    // Keys are only unique per agent, so an event's visibility must be decided by agent and key.
    // Bob (isolated) owns a session "alice-private-1" too (his session-end above created it); when
    // alice writes to HER isolated "alice-private-1", bob's /api/events stream must stay silent. A
    // check by key alone once told him when alice was active.
    it("bob's event stream does not hear about alice's session even when bob has a session with the same key", async () => {
      assert.ok(await s.store.read('getSession', { scope: { agentId: 'bob' }, key: ALICE_KEY }), 'precondition: bob has his own session with that key');
      const streams: EventStream[] = [];
      try {
        const bobStream = await openEvents(bob.token);
        streams.push(bobStream);
        const adminStream = await openEvents(s.token);
        streams.push(adminStream);
        expectOk(
          await send(s.port, {
            method: 'POST',
            path: '/api/hooks/user-prompt-submit',
            token: alice.token,
            body: { harness: HARNESS, sessionKey: ALICE_KEY, userMessage: 'alice, again' },
          }),
          'alice writes',
        );
        await waitFor(() => adminStream.text.includes(ALICE_KEY), 5000, 'the admin stream to hear about alice');
        await sleep(300);
        assert.ok(!bobStream.text.includes(ALICE_KEY), `bob's stream must not hear about alice's session: ${bobStream.text}`);
      } finally {
        for (const stream of streams) stream.close();
      }
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('5. body size cap (maxBodyBytes 64 KiB)', () => {
    const CAP = 64 * 1024;
    let big: TestServer;
    before(async () => {
      big = await startTestServer({ maxBodyBytes: CAP });
      expectOk(
        await send(big.port, { method: 'POST', path: '/api/hooks/session-start', token: big.token, body: { harness: HARNESS, sessionKey: 'cap-session' } }),
        'cap seed',
      );
    });
    after(async () => {
      await big?.daemon.stop();
    });

    /** Sends request headers only (Content-Length over the cap); the body is never written. */
    function headersOnly(route: string, contentLength: number): Promise<RawResponse & { bodyBytesWritten: number }> {
      return new Promise((resolve, reject) => {
        const req = http.request({
          host: LOOPBACK,
          port: big.port,
          method: 'POST',
          path: route,
          agent: false,
          setHost: false,
          headers: { host: `127.0.0.1:${big.port}`, ...bearer(big.token), 'content-type': 'application/json', 'content-length': String(contentLength) },
        });
        const timer = setTimeout(() => {
          req.destroy();
          reject(new Error(`no answer within 5 s to headers announcing ${contentLength} bytes`));
        }, 5000);
        req.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('end', () => {
            clearTimeout(timer);
            req.destroy();
            observedResponses.push({ method: 'POST', path: route, status: res.statusCode ?? 0, headers: res.headers });
            try {
              assertNoCors(res.headers, `POST ${route} (headers only)`);
            } catch (err) {
              reject(err);
              return;
            }
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, bodyBytesWritten: 0 });
          });
        });
        req.flushHeaders();
      });
    }

    /** Streams a chunked body (no Content-Length) until the server answers; at most 4 MiB. */
    function chunked(route: string): Promise<RawResponse & { sent: number }> {
      return new Promise((resolve, reject) => {
        let sent = 0;
        let answered = false;
        const req = http.request({
          host: LOOPBACK,
          port: big.port,
          method: 'POST',
          path: route,
          agent: false,
          setHost: false,
          headers: { host: `127.0.0.1:${big.port}`, ...bearer(big.token), 'content-type': 'application/json' },
        });
        const timer = setTimeout(() => {
          req.destroy();
          reject(new Error(`no answer within 10 s to a chunked body (${sent} bytes sent)`));
        }, 10_000);
        req.on('error', (err) => {
          if (answered) return; // the server closing after its answer is expected
          clearTimeout(timer);
          reject(new Error(`the connection failed before any answer (${sent} bytes sent): ${err.message}`));
        });
        req.on('response', (res) => {
          answered = true;
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('error', () => undefined);
          res.on('end', () => {
            clearTimeout(timer);
            req.destroy();
            observedResponses.push({ method: 'POST', path: route, status: res.statusCode ?? 0, headers: res.headers });
            try {
              assertNoCors(res.headers, `POST ${route} (chunked)`);
            } catch (err) {
              reject(err);
              return;
            }
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, sent });
          });
        });
        const piece = Buffer.from(`{"harness":"claude-code","content":"${'a'.repeat(8 * 1024)}`);
        const pump = () => {
          if (answered || req.destroyed || sent >= 4 * 1024 * 1024) return;
          req.write(piece);
          sent += piece.length;
          setTimeout(pump, 2);
        };
        pump();
      });
    }

    it('accepts a body of exactly the cap', async () => {
      const prefix = '{"harness":"claude-code","content":"';
      const suffix = '"}';
      const body = prefix + 'b'.repeat(CAP - prefix.length - suffix.length) + suffix;
      assert.equal(Buffer.byteLength(body), CAP);
      expectOk(
        await send(big.port, { method: 'POST', path: '/api/hooks/remember', token: big.token, headers: { 'content-type': 'application/json' }, body }),
        'body at the cap',
      );
    });

    it('refuses a body one byte over the cap with 413 and changes nothing', async () => {
      const before = await storeState(big.store);
      const prefix = '{"harness":"claude-code","content":"';
      const suffix = '"}';
      const body = prefix + 'c'.repeat(CAP + 1 - prefix.length - suffix.length) + suffix;
      const res = await send(big.port, {
        method: 'POST',
        path: '/api/hooks/remember',
        token: big.token,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expectError(res, 413, 'payload_too_large', 'cap + 1 bytes');
      await assertStoreUnchanged(big.store, before, 'cap + 1');
    });

    it('(a) refuses a Content-Length over the cap with 413 before the body is sent, and changes nothing', async () => {
      const before = await storeState(big.store);
      for (const route of ['/api/hooks/session-start', '/api/hooks/user-prompt-submit', '/api/hooks/remember', '/api/tokens', '/api/sessions/search']) {
        for (const length of [CAP + 1, 10 * 1024 * 1024, 1024 * 1024 * 1024]) {
          const res = await headersOnly(route, length);
          assert.equal(res.bodyBytesWritten, 0);
          expectError(res, 413, 'payload_too_large', `POST ${route} announcing ${length} bytes`);
          assertErrorShape(res, `POST ${route} announcing ${length} bytes`);
        }
      }
      await assertStoreUnchanged(big.store, before, 'Content-Length over the cap');
    });

    it('(b) refuses a chunked body that streams past the cap with 413, and changes nothing', async () => {
      const before = await storeState(big.store);
      for (const route of ['/api/hooks/remember', '/api/hooks/user-prompt-submit']) {
        const res = await chunked(route);
        expectError(res, 413, 'payload_too_large', `chunked POST ${route}`);
        assertErrorShape(res, `chunked POST ${route}`);
        assert.ok(res.sent > CAP, `the body went past the cap (${res.sent})`);
        assert.ok(res.sent < 4 * 1024 * 1024, `the server answered before the whole 4 MiB was sent (${res.sent})`);
      }
      await assertStoreUnchanged(big.store, before, 'chunked over the cap');
    });

    it('(c) stays healthy afterwards', async () => {
      const health = await send(big.port, { path: '/api/health' });
      assert.deepEqual(health.json, { status: 'ok' });
      const before = await storeState(big.store);
      expectOk(
        await send(big.port, {
          method: 'POST',
          path: '/api/hooks/user-prompt-submit',
          token: big.token,
          body: { harness: HARNESS, sessionKey: 'cap-session', userMessage: 'still working' },
        }),
        'a normal write',
      );
      assert.ok((await storeState(big.store)).seq > before.seq);
      const t = await send(big.port, { path: '/api/sessions/cap-session/transcript', token: big.token });
      expectOk(t, 'transcript');
      assert.ok(t.json.content.includes('still working'));
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('8. slow clients (headersTimeoutMs 1000, requestTimeoutMs 2000)', () => {
    let slow: TestServer;
    before(async () => {
      slow = await startTestServer({ headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
    });
    after(async () => {
      await slow?.daemon.stop();
    });

    // Node checks headersTimeout/requestTimeout only every `connectionsCheckingInterval` (30 s by
    // default): without setting it, a client that sends `GET /api/health HTTP/1.1\r\nHost: …\r\n`
    // and then nothing was closed after ~30 s (measured 29.9 s), not after headersTimeoutMs.
    it('closes a connection that sends a partial request line or partial headers and then nothing (within 8 s)', async () => {
      for (const partial of [
        'GET /api/hea',
        `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\n`,
        `POST /api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\nAuthorization: Bearer ${slow.token}\r\nContent-Type: appl`,
      ]) {
        const result = await rawSocket(slow.port, partial, { waitMs: 8000 });
        assert.ok(
          result.closed,
          `the server must close a stalled request (${JSON.stringify(partial.slice(0, 30))}) within 8 s; still open after ${result.elapsedMs} ms`,
        );
        assert.doesNotMatch(result.text, /^HTTP\/1\.1 2\d\d/);
      }
    });

    // Same cause: a body announced as 100 bytes of which only 10 arrive must be cut off after
    // requestTimeoutMs, not ~30 s later, since the request holds a handler open meanwhile.
    it('cuts off a client that announces Content-Length 100 and sends only 10 bytes (within 8 s)', async () => {
      const before = await storeState(slow.store);
      const head = `POST /api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\nAuthorization: Bearer ${slow.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
      const result = await rawSocket(slow.port, head + '{"harness"', { waitMs: 8000 });
      assert.ok(result.closed, `the server must cut off a stalled body within 8 s; still open after ${result.elapsedMs} ms`);
      assert.doesNotMatch(result.text, /^HTTP\/1\.1 2\d\d/);
      await assertStoreUnchanged(slow.store, before, 'stalled body');
    });

    it('keeps serving other clients while slow clients stall', async () => {
      const stalled = [
        rawSocket(slow.port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\n`, { waitMs: 3000 }),
        rawSocket(
          slow.port,
          `POST /api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\nAuthorization: Bearer ${slow.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"harness"`,
          { waitMs: 3000 },
        ),
      ];
      await sleep(200);
      const before = await storeState(slow.store);
      const started = Date.now();
      const health = await send(slow.port, { path: '/api/health', timeoutMs: 2000 });
      assert.deepEqual(health.json, { status: 'ok' });
      expectOk(await send(slow.port, { path: '/api/sessions', token: slow.token, timeoutMs: 2000 }), 'list while stalled');
      assert.ok(Date.now() - started < 2000, 'answered promptly');
      const results = await Promise.all(stalled);
      for (const r of results) assert.doesNotMatch(r.text, /^HTTP\/1\.1 2\d\d/, 'a stalled request is never answered with success');
      await assertStoreUnchanged(slow.store, before, 'stalled clients');
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('10. logs never carry tokens or transcript text', () => {
    it('logs method, path and status only', async () => {
      const logged = await startTestServer();
      try {
        const MARKER = 'ZEBRAFISH_MARKER_9f27c1';
        const SECRET = 'sk-ant-api03-' + 'Q'.repeat(12) + 'secretpart' + 'x'.repeat(20);
        const { port, token } = logged;
        expectOk(
          await send(port, {
            method: 'POST',
            path: '/api/hooks/session-start',
            token,
            body: { harness: HARNESS, sessionKey: 'log-session', title: `${MARKER} ${SECRET}`, project: `/p/${MARKER}` },
          }),
          'start',
        );
        expectOk(
          await send(port, {
            method: 'POST',
            path: '/api/hooks/user-prompt-submit',
            token,
            body: { harness: HARNESS, sessionKey: 'log-session', userMessage: `${MARKER} my key is ${SECRET}`, lastAssistantMessage: MARKER },
          }),
          'prompt',
        );
        expectOk(
          await send(port, { method: 'POST', path: '/api/hooks/remember', token, body: { harness: HARNESS, content: `${MARKER} ${SECRET}` } }),
          'remember',
        );
        expectOk(await send(port, { method: 'POST', path: '/api/sessions/search', token, body: { query: MARKER } }), 'search');
        expectOk(await send(port, { path: `/api/sessions?project=${MARKER}&token=${SECRET}`, token }), 'list with query');
        const created = await send(port, {
          method: 'POST',
          path: '/api/tokens',
          token,
          body: { agentId: 'logger', permissions: ['remember', 'recall'], label: MARKER },
        });
        expectOk(created, 'create token');
        const agentToken = created.json.token as string;
        expectOk(
          await send(port, { method: 'POST', path: '/api/hooks/remember', token: agentToken, body: { harness: HARNESS, content: `${MARKER} via agent` } }),
          'agent remember',
        );
        expectOk(await send(port, { path: '/api/sessions/log-session/transcript', token }), 'transcript');
        // Failures: wrong tokens, bad bodies, schema errors, a forbidden write, an aborted upload.
        expectError(await send(port, { path: '/api/sessions', headers: bearer(`${MARKER}-${SECRET}`) }), 401, 'unauthorized', 'wrong token');
        expectError(await send(port, { path: '/api/sessions', headers: { authorization: `Basic ${token}` } }), 401, 'unauthorized', 'basic');
        expectError(
          await send(port, {
            method: 'POST',
            path: '/api/hooks/remember',
            token,
            headers: { 'content-type': 'application/json' },
            body: `{"content":"${MARKER} ${SECRET}`,
          }),
          400,
          'invalid_request',
          'bad JSON',
        );
        expectError(
          await send(port, { method: 'POST', path: '/api/hooks/remember', token, body: { harness: 42, content: MARKER } }),
          400,
          'invalid_request',
          'schema',
        );
        expectError(
          await send(port, { method: 'POST', path: '/api/hooks/remember', token: agentToken, body: { harness: HARNESS, content: MARKER, agentId: 'other' } }),
          403,
          'forbidden',
          'impersonation',
        );
        expectError(await send(port, { path: '/api/sessions', token, headers: { host: `${MARKER}.evil.com` } }), 403, 'forbidden', 'bad host');
        const aborted = await rawSocket(
          port,
          `POST /api/hooks/remember HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"harness":"claude-code","content":"${MARKER} ${SECRET}`,
          { waitMs: 300 },
        );
        assert.equal(aborted.closed, false);
        await waitFor(() => logged.logs.some((l) => /^POST \/api\/hooks\/remember 5\d\d /.test(l)), 5000, 'the aborted upload to be logged');

        assert.ok(
          logged.logs.some((l) => /^POST \/api\/hooks\/user-prompt-submit 200 /.test(l)),
          `requests are logged: ${logged.logs.join('\n')}`,
        );
        assert.ok(
          logged.logs.some((l) => /^GET \/api\/sessions 401 /.test(l)),
          'rejections are logged',
        );
        for (const line of logged.logs) {
          for (const [name, secret] of [
            ['the marker', MARKER],
            ['the secret', SECRET],
            ['a piece of the secret', 'secretpart'],
            ['the admin token', token],
            ['the agent token', agentToken],
          ] as const) {
            assert.ok(!line.includes(secret), `log line carries ${name}: ${line}`);
          }
        }
      } finally {
        await logged.daemon.stop();
      }
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('11. endpoint.json', () => {
    it('is written with mode 0600, holds {url, port, pid, token, hookRoots} of the server, and is removed by stop()', async () => {
      const ep = await startTestServer();
      let stopped = false;
      try {
        const file = layout(ep.dataDir).endpoint;
        assert.ok(fs.existsSync(file), 'endpoint.json exists while serving');
        if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600, `mode is ${(fs.statSync(file).mode & 0o777).toString(8)}`);
        const info = JSON.parse(fs.readFileSync(file, 'utf8'));
        assert.deepEqual(Object.keys(info).sort(), ['hookRoots', 'pid', 'port', 'token', 'url']);
        const { hookRoots, ...server } = info;
        assert.deepEqual(server, { url: `http://127.0.0.1:${ep.port}`, port: ep.port, pid: process.pid, token: ep.token });
        // The roots the server reads payload files under, as the hook command checks them (absolute, links resolved).
        assert.ok(
          Array.isArray(hookRoots) && hookRoots.length > 0 && hookRoots.every((r: unknown) => typeof r === 'string' && path.isAbsolute(r)),
          JSON.stringify(hookRoots),
        );
        expectOk(await send(info.port, { path: '/api/sessions', token: info.token }), 'the endpoint token works');
        await ep.daemon.stop();
        stopped = true;
        assert.equal(fs.existsSync(file), false, 'endpoint.json is removed by stop()');
      } finally {
        if (!stopped) await ep.daemon.stop();
      }
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('13. transcriptPath confinement', () => {
    let tp: TestServer;
    let root: string;
    let outside: string;
    const OUTSIDE_TEXT = 'OUTSIDE_SECRET_BODY_41ac';

    before(async () => {
      root = tempDir('baton-roots-');
      outside = tempDir('baton-outside-');
      fs.writeFileSync(path.join(root, 'ok.json'), JSON.stringify([{ role: 'user', content: 'allowed transcript zebra' }]));
      fs.writeFileSync(path.join(outside, 'secret.json'), JSON.stringify([{ role: 'user', content: OUTSIDE_TEXT }]));
      fs.symlinkSync(path.join(outside, 'secret.json'), path.join(root, 'link.json'));
      fs.symlinkSync(outside, path.join(root, 'linkdir'));
      fs.writeFileSync(path.join(root, 'big.json'), JSON.stringify([{ role: 'user', content: 'y'.repeat(4096) }]));
      fs.mkdirSync(path.join(root, 'subdir'));
      tp = await startTestServer({ transcriptRoots: [root], maxTranscriptBytes: 2048 });
    });
    after(async () => {
      await tp?.daemon.stop();
    });

    it('refuses paths outside the roots, symlink escapes, relative paths, directories and missing files (400), and changes nothing', async () => {
      const bad = [
        path.join(outside, 'secret.json'),
        path.join(root, 'link.json'),
        path.join(root, 'linkdir', 'secret.json'),
        path.join(root, '..', path.basename(outside), 'secret.json'),
        `${root}/../${path.basename(outside)}/secret.json`,
        'ok.json',
        './ok.json',
        path.join(root, 'subdir'),
        path.join(root, 'missing.json'),
        '/etc/passwd',
        `${root}-sibling/ok.json`,
      ];
      for (const route of ['/api/hooks/user-prompt-submit', '/api/hooks/session-end', '/api/hooks/session-checkpoint-extract']) {
        const before = await storeState(tp.store);
        for (const transcriptPath of bad) {
          const res = await send(tp.port, {
            method: 'POST',
            path: route,
            token: tp.token,
            body: { harness: HARNESS, sessionKey: 'tp-session', transcriptPath },
          });
          expectError(res, 400, 'invalid_request', `POST ${route} transcriptPath ${transcriptPath}`);
          assert.match(res.json.error, /transcriptPath/);
          assert.ok(!res.text.includes(OUTSIDE_TEXT) && !res.text.includes('root:'), 'nothing of the file is echoed');
        }
        await assertStoreUnchanged(tp.store, before, `POST ${route} bad transcriptPath`);
      }
    });

    it('control: a regular file under a root is read', async () => {
      const res = await send(tp.port, {
        method: 'POST',
        path: '/api/hooks/user-prompt-submit',
        token: tp.token,
        body: { harness: HARNESS, sessionKey: 'tp-session', transcriptPath: path.join(root, 'ok.json') },
      });
      expectOk(res, 'allowed transcriptPath');
      assert.ok(res.json.appended >= 1);
      const t = await send(tp.port, { path: '/api/sessions/tp-session/transcript', token: tp.token });
      assert.ok(t.json.content.includes('allowed transcript zebra'));
      assert.ok(!t.json.content.includes(OUTSIDE_TEXT));
    });

    it('caps what one call reads, not the file: a message list over the cap is refused, a JSONL line over it is skipped', async () => {
      const body = (harness: string) => ({ harness, sessionKey: `big-${harness}`, transcriptPath: path.join(root, 'big.json') });
      // A message list means something only whole.
      const list = await send(tp.port, { method: 'POST', path: '/api/hooks/user-prompt-submit', token: tp.token, body: body('opencode') });
      expectError(list, 400, 'invalid_request', 'a message list over the cap');
      assert.match(list.json.error, /the limit is 2048/);
      // A harness's JSONL is read a cap at a time; one line longer than the cap can never be read whole.
      const lines = await send(tp.port, { method: 'POST', path: '/api/hooks/user-prompt-submit', token: tp.token, body: body(HARNESS) });
      expectOk(lines, 'a JSONL transcript over the cap');
      assert.equal(lines.json.appended, 0);
    });
  });

  // ----------------------------------------------------------------------------------------------
  describe('every response in this file', () => {
    it('carried no access-control-* header, and every error was {error, code} without internals', () => {
      assert.ok(observedResponses.length > 300, `enough responses were checked (${observedResponses.length})`);
      const withCors = observedResponses.filter((r) => Object.keys(r.headers).some((h) => h.toLowerCase().startsWith('access-control-')));
      assert.deepEqual(withCors, []);
      assert.ok(errorResponses.length > 200, `enough error responses were checked (${errorResponses.length})`);
      for (const { what, res } of errorResponses) assertErrorShape(res, what);
      const statuses = new Set(errorResponses.map((e) => e.res.status));
      for (const status of [400, 401, 403, 404, 413, 415]) assert.ok(statuses.has(status), `an error with status ${status} was checked`);
    });
  });
});
