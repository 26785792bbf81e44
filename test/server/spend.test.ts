// Spend through the real server (docs/storage.md, "Spend"): a transcript file the hooks read a
// piece at a time records each request once, even when a request's token count arrives in a later
// read than its reply; sessions and GET /api/spend are priced with the configured table (DIR/config.json
// `prices` over the shipped one); bad input gets a 400 and a clear error.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/server/config';
import { DEFAULT_PRICES } from '../../src/core/prices';
import { rawRequest, startTestServer, type TestServer } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

type Line = Record<string, unknown>;
const jsonl = (lines: Line[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');

/** One Codex exchange as Codex writes it: the turn's context, the prompt, the answer, then the request's token count. */
function codexExchange(n: number, total: number): Line[] {
  const at = new Date(Date.UTC(2026, 10, 20 + (n % 3), 9, n)).toISOString();
  const last = { input_tokens: 1000 + n, cached_input_tokens: 600, output_tokens: 50 + n, reasoning_output_tokens: 0, total_tokens: 1050 + 2 * n };
  return [
    ...(n === 0 ? [{ timestamp: at, type: 'session_meta', payload: { id: 'thread', cwd: '/p' } }] : []),
    { timestamp: at, type: 'turn_context', payload: { model: n < 2 ? 'gpt-5-codex' : 'my-own-model' } },
    { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `question ${n}` }] } },
    { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${n}` }] } },
    { timestamp: at, type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { total_tokens: total }, last_token_usage: last } } },
    // Codex repeats a count with the same totals: it is the same request.
    { timestamp: at, type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { total_tokens: total }, last_token_usage: last } } },
  ];
}

describe('spend through the server', function () {
  this.timeout(60_000);
  let s: TestServer;
  let root: string;
  const PRICES = { ...DEFAULT_PRICES, 'my-own-model': { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 0 } };

  before(async () => {
    root = tempDir('baton-spend-');
    s = await startTestServer({ transcriptRoots: [root], prices: PRICES });
  });
  after(async () => {
    await s?.daemon.stop();
    cleanupTempDirs();
  });

  const call = (method: 'GET' | 'POST', route: string, body?: object) =>
    rawRequest({ port: s.port, method, path: route, headers: { authorization: `Bearer ${s.token}` }, ...(body ? { body } : {}) });
  const session = async (key: string) => {
    const res = await call('GET', `/api/sessions/${encodeURIComponent(key)}`);
    assert.equal(res.status, 200, res.text);
    return res.json as { spend: { own: Record<string, unknown> | null; total: Record<string, unknown> | null } };
  };

  it("a rollout read a piece at a time, each token count in a later read than its reply, stores each request once, as the whole file's parse does", async () => {
    const file = path.join(root, 'rollout.jsonl');
    fs.writeFileSync(file, '');
    let whole: Line[] = [];
    let total = 0;
    for (let n = 0; n < 4; n++) {
      total += 1050 + 2 * n;
      const lines = codexExchange(n, total);
      // The reply first (a hook reads up to it), then its token counts (the next hook reads those).
      for (const piece of [lines.slice(0, -2), lines.slice(-2)]) {
        fs.appendFileSync(file, jsonl(piece));
        whole = [...whole, ...piece];
        const res = await call('POST', '/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'pieces', transcriptPath: file });
        assert.equal(res.status, 200, res.text);
      }
    }
    const inline = await call('POST', '/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'whole', transcript: jsonl(whole) });
    assert.equal(inline.status, 200, inline.text);

    const pieces = (await session('pieces')).spend.own!;
    assert.deepEqual(pieces, (await session('whole')).spend.own);
    assert.equal(pieces.requests, 4);
    assert.equal(
      pieces.inputTokens,
      [0, 1, 2, 3].reduce((acc, n) => acc + 1000 + n - 600, 0),
    );
    assert.equal(pieces.cacheReadTokens, 4 * 600);
    // Priced with the configured table: a model only it knows has a price too.
    const mine = (pieces.byModel as Array<{ model: string; costUsd: number; inputTokens: number; outputTokens: number; cacheReadTokens: number }>).find(
      (m) => m.model === 'my-own-model',
    )!;
    assert.ok(Math.abs(mine.costUsd - (mine.inputTokens * 2 + mine.outputTokens * 10 + mine.cacheReadTokens * 0.5) / 1e6) <= 1e-6);
    assert.equal(pieces.costBasis, 'estimated');
    assert.equal(pieces.costComplete, true);

    // GET /api/spend: the same requests, by day and model, priced alike.
    const report = await call('GET', '/api/spend');
    assert.equal(report.status, 200, report.text);
    const codex = (report.json.byHarness as Array<{ harness: string; spend: { requests: number; costUsd: number } }>).find((h) => h.harness === 'codex')!;
    assert.equal(codex.spend.requests, 8); // 'pieces' and 'whole'
    assert.ok(Math.abs(codex.spend.costUsd - 2 * (pieces.costUsd as number)) <= 2e-6);
    assert.deepEqual(
      (report.json.byDay as Array<{ day: string }>).map((d) => d.day),
      ['2026-11-20', '2026-11-21', '2026-11-22'],
    );
    const since = await call('GET', '/api/spend?since=2026-11-22');
    assert.equal(since.status, 200, since.text);
    assert.deepEqual(
      (since.json.byDay as Array<{ day: string }>).map((d) => d.day),
      ['2026-11-22'],
    );
  });

  it('answers a bad window with 400 and an error, never a crash', async () => {
    for (const query of ['since=not-a-date', 'top=0', `since=${'9'.repeat(100)}`]) {
      const res = await call('GET', `/api/spend?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(typeof res.json.error, 'string');
    }
  });
});

describe('prices in DIR/config.json', () => {
  after(cleanupTempDirs);

  it('go over the shipped table, model by model, and a bad entry is a clear error', () => {
    const dir = tempDir('baton-prices-');
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ prices: { 'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 } } }));
    const config = loadConfig(dir);
    assert.deepEqual(config.prices['claude-opus-5-5'], { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 });
    assert.deepEqual(config.prices['claude-sonnet-4-5'], DEFAULT_PRICES['claude-sonnet-4-5']);
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ prices: { 'claude-opus-5-5': { input: -1, output: 20, cacheRead: 0.4, cacheWrite: 5 } } }),
    );
    assert.throws(() => loadConfig(dir), /prices\.claude-opus-5-5\.input/);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ prices: { 'claude-opus-5-5': { input: 1, output: 2 } } }));
    assert.throws(() => loadConfig(dir), /prices\.claude-opus-5-5\.cacheRead/);
  });
});
