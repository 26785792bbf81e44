// What each harness's transcript says a session spent, as its parser reads it onto the turns
// (core/spend.ts TurnUsage; docs/harnesses.md, "Spend"). Checked against the transcripts the real
// CLIs wrote (test/fixtures, demo/sessions), summed here independently of the parsers: each
// request once, whether the file is parsed whole or line by line as the live hooks read it.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseJsonLines, START_STATE, messageListFrom, type LineParseState, type Obj, type TranscriptParser } from '../../src/core/normalize';
import type { Turn } from '../../src/core/types';
import type { TurnUsage } from '../../src/core/spend';
import { claudeCodeTranscript } from '../../src/harnesses/claudeCode/transcript';
import { codexTranscript } from '../../src/harnesses/codex/transcript';
import { cliTurns, copilotCliTranscript, turnMessages } from '../../src/harnesses/copilotCli/events';
import { slimMessages, type OpenCodeMessage } from '../../src/harnesses/openCode/messages';

const ROOT = path.join(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures');
const DEMO = path.join(ROOT, 'demo', 'sessions');

type Sums = Record<string, [number, number, number, number, number]>;

/** The turns' usage, each key once (as the store counts it), summed per model: [requests, input, output, cache read, cache write]. */
function sumsOfTurns(turns: Turn[]): Sums {
  const seen = new Map<string, TurnUsage>();
  for (const t of turns) if (t.usage && !seen.has(t.usage.key)) seen.set(t.usage.key, t.usage);
  const sums: Sums = {};
  for (const u of seen.values()) add(sums, u.model ?? '', [1, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]);
  return sums;
}

function add(sums: Sums, model: string, v: [number, number, number, number, number]): void {
  const s = (sums[model] ??= [0, 0, 0, 0, 0]);
  v.forEach((n, i) => (s[i] += n));
}

/**
 * Parsed one record at a time, each from the state the one before left (the hooks' reads, at their
 * finest). A usage still waiting for a turn at the end is in the last state, where the store takes
 * it from (store/commands.ts recordTranscript): it is counted here as the store counts it.
 */
function lineByLine(parser: TranscriptParser, records: Obj[]): Turn[] {
  let state: LineParseState = { ...START_STATE, flags: { mainThread: records.some((r) => r.isSidechain === false) } };
  const turns: Turn[] = [];
  for (const record of records) {
    const parsed = parser.parseFrom([record], JSON.parse(JSON.stringify(state)) as LineParseState);
    assert.ok(!('restart' in parsed), 'a parse line by line restarted');
    turns.push(...parsed.turns);
    state = parsed.state;
  }
  if (state.pendingUsage) turns.push({ role: 'system', text: '', usage: state.pendingUsage });
  return turns;
}

function filesUnder(dir: string, ext: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() && e.name.endsWith(ext) ? [path.join(e.parentPath, e.name)] : []));
}

describe('spend read from each harness transcript', () => {
  describe('Claude Code (message.model and message.usage, one message split over lines counted once)', () => {
    const files = [...filesUnder(path.join(FIXTURES, 'claude-projects'), '.jsonl'), ...filesUnder(path.join(DEMO, 'claude-code'), '.jsonl')];

    /** Independently: every assistant line of the file's own thread, the first usage of each message id. */
    function expected(records: Obj[]): Sums {
      const mainThread = records.some((r) => (r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true);
      const seen = new Set<string>();
      const sums: Sums = {};
      for (const r of records) {
        const m = r.message as Obj | undefined;
        if (r.type !== 'assistant' || !m?.usage || (mainThread && r.isSidechain === true) || m.model === '<synthetic>') continue;
        if (seen.has(m.id as string)) continue;
        // A message whose every block is dropped (thinking only) leaves no turn to carry it.
        const blocks = Array.isArray(m.content) ? (m.content as Obj[]) : [];
        const lines = records.filter((x) => (x.message as Obj | undefined)?.id === m.id);
        const carried = lines.some((x) =>
          ((x.message as Obj).content as Obj[]).some((b) => (b.type === 'text' && String(b.text).trim()) || b.type === 'tool_use'),
        );
        if (!carried && blocks.length > 0) continue;
        seen.add(m.id as string);
        const u = m.usage as Record<string, number>;
        add(sums, m.model as string, [1, u.input_tokens, u.output_tokens, u.cache_read_input_tokens ?? 0, u.cache_creation_input_tokens ?? 0]);
      }
      return sums;
    }

    it('reads the recorded transcripts (fixtures and the demo) whole and line by line', () => {
      assert.ok(files.length >= 10, `${files.length} Claude Code transcripts`);
      let requests = 0;
      for (const file of files) {
        const records = parseJsonLines(fs.readFileSync(file, 'utf8'));
        const want = expected(records);
        assert.deepEqual(sumsOfTurns(claudeCodeTranscript.parse(records)), want, file);
        assert.deepEqual(sumsOfTurns(lineByLine(claudeCodeTranscript, records)), want, `${file}, line by line`);
        requests += Object.values(want).reduce((n, s) => n + s[0], 0);
      }
      assert.ok(requests > 20, `${requests} requests`);
    });

    it('counts a message whose lines repeat its usage once, and a line with costUSD as reported', () => {
      const line = (uuid: string, block: Obj, extra: Obj = {}) => ({
        type: 'assistant',
        uuid,
        isSidechain: false,
        timestamp: '2026-03-02T09:14:06.410Z',
        message: {
          id: 'msg_1',
          model: 'claude-opus-4-5-20251101',
          content: [block],
          usage: { input_tokens: 3, output_tokens: 40, cache_read_input_tokens: 500, cache_creation_input_tokens: 60 },
        },
        ...extra,
      });
      const turns = claudeCodeTranscript.parse([
        { type: 'user', uuid: 'u', isSidechain: false, message: { role: 'user', content: 'go' } },
        line('a', { type: 'text', text: 'Looking.' }, { costUSD: 0.25 }),
        line('b', { type: 'tool_use', name: 'Read', input: { file: 'x' } }, { costUSD: 0.25 }),
      ]);
      const usages = turns.flatMap((t) => (t.usage ? [t.usage] : []));
      assert.equal(new Set(usages.map((u) => u.key)).size, 1);
      assert.deepEqual(usages[0], {
        key: 'msg_1',
        model: 'claude-opus-4-5-20251101',
        inputTokens: 3,
        outputTokens: 40,
        cacheReadTokens: 500,
        cacheWriteTokens: 60,
        costUsd: 0.25,
      });
    });
  });

  describe('Codex (token_count events: each request once, with the model of its turn_context)', () => {
    const files = filesUnder(path.join(DEMO, 'codex'), '.jsonl');

    /** Independently: last_token_usage of every token_count with a new running total, model from the turn_context before it. */
    function expected(records: Obj[]): Sums {
      const sums: Sums = {};
      const totals = new Set<number>();
      let model = '';
      for (const r of records) {
        const p = r.payload as Obj;
        if (r.type === 'turn_context') model = p.model as string;
        if (r.type !== 'event_msg' || p.type !== 'token_count' || !p.info) continue;
        const info = p.info as { last_token_usage: Record<string, number>; total_token_usage: Record<string, number> };
        if (totals.has(info.total_token_usage.total_tokens)) continue;
        totals.add(info.total_token_usage.total_tokens);
        const last = info.last_token_usage;
        add(sums, model, [1, last.input_tokens - last.cached_input_tokens, last.output_tokens, last.cached_input_tokens, last.cache_write_input_tokens ?? 0]);
      }
      return sums;
    }

    it('reads the demo rollouts whole and line by line', () => {
      assert.ok(files.length >= 3);
      let requests = 0;
      for (const file of files) {
        const records = parseJsonLines(fs.readFileSync(file, 'utf8'));
        const want = expected(records);
        assert.deepEqual(sumsOfTurns(codexTranscript.parse(records)), want, file);
        assert.deepEqual(sumsOfTurns(lineByLine(codexTranscript, records)), want, `${file}, line by line`);
        requests += Object.values(want).reduce((n, s) => n + s[0], 0);
      }
      assert.ok(requests >= files.length, `${requests} requests in ${files.length} rollouts`);
    });

    it('takes nothing from a token_count without usage (info null), and the cached input as the cache read', () => {
      const last = { input_tokens: 900, cached_input_tokens: 700, output_tokens: 40, total_tokens: 940 };
      const turns = codexTranscript.parse([
        { type: 'turn_context', timestamp: 't', payload: { model: 'gpt-5-codex' } },
        { type: 'response_item', timestamp: 't', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] } },
        { type: 'event_msg', timestamp: 't', payload: { type: 'token_count', info: null } },
        { type: 'response_item', timestamp: 't', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'again' }] } },
        { type: 'event_msg', timestamp: 't', payload: { type: 'token_count', info: { total_token_usage: { total_tokens: 940 }, last_token_usage: last } } },
      ]);
      assert.deepEqual(
        turns.map((t) => t.usage && [t.usage.model, t.usage.inputTokens, t.usage.cacheReadTokens, t.usage.outputTokens]),
        [undefined, ['gpt-5-codex', 200, 700, 40]],
      );
    });
  });

  describe('OpenCode (an assistant message info: modelID, tokens, cost)', () => {
    const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'opencode', 'messages.json'), 'utf8')) as Record<string, unknown>;
    const demo = filesUnder(path.join(DEMO, 'opencode'), '.json').map(
      (f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { messages: OpenCodeMessage[] }).messages,
    );
    const lists = [...Object.values(fixture).filter((v): v is OpenCodeMessage[] => Array.isArray(v)), ...demo];

    function expected(messages: OpenCodeMessage[]): Sums {
      const sums: Sums = {};
      for (const { info } of messages) {
        if (info?.role !== 'assistant' || !info.tokens || info.time?.completed === undefined) continue;
        const t = info.tokens;
        add(sums, info.modelID ?? '', [1, t.input ?? 0, (t.output ?? 0) + (t.reasoning ?? 0), t.cache?.read ?? 0, t.cache?.write ?? 0]);
      }
      return sums;
    }

    it('reads the recorded message lists, through slimMessages as the plugin and the import send them', () => {
      assert.ok(lists.length >= 3);
      let requests = 0;
      for (const messages of lists) {
        const want = expected(messages);
        const turns = messageListFrom(slimMessages(messages), START_STATE).turns;
        assert.deepEqual(sumsOfTurns(turns), want);
        requests += Object.values(want).reduce((n, s) => n + s[0], 0);
      }
      assert.ok(requests > 5, `${requests} requests`);
    });

    it('keeps a cost OpenCode reported, and a cost of 0 (no price known to OpenCode) as not reported', () => {
      const message = (cost: number): OpenCodeMessage => ({
        info: { role: 'assistant', id: `msg_${cost}`, modelID: 'claude-sonnet-4-5', time: { created: 1, completed: 2 }, cost, tokens: { input: 5, output: 6 } },
        parts: [{ type: 'text', text: `cost ${cost}` }],
      });
      const turns = messageListFrom(slimMessages([message(0.5), message(0)]), START_STATE).turns;
      assert.deepEqual(
        turns.map((t) => t.usage?.costUsd),
        [0.5, null],
      );
    });
  });

  describe('Copilot CLI (session.usage_record before the reply it produced)', () => {
    const records = parseJsonLines(
      fs.readFileSync(path.join(FIXTURES, 'copilotCli', 'session-state', 'b3695a2b-6c2e-4447-825a-c18dfbbd8099', 'events.jsonl'), 'utf8'),
    );

    function expected(owner: string | undefined): Sums {
      const sums: Sums = {};
      for (const r of records) {
        if (r.type !== 'session.usage_record' || r.agentId !== owner) continue;
        const u = (r.data as { usage: Record<string, number> & { model: string } }).usage;
        add(sums, u.model, [1, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]);
      }
      return sums;
    }

    it("reads the session's own requests whole and line by line, and each sub-agent's through the message list its hooks send", () => {
      const own = expected(undefined);
      assert.ok(Object.keys(own).length > 0);
      assert.deepEqual(sumsOfTurns(copilotCliTranscript.parse(records)), own);
      assert.deepEqual(sumsOfTurns(lineByLine(copilotCliTranscript, records)), own);
      const agents = [...new Set(records.flatMap((r) => (typeof r.agentId === 'string' ? [r.agentId] : [])))];
      assert.equal(agents.length, 3);
      for (const agent of agents) {
        const list = turnMessages(cliTurns(records, agent));
        assert.deepEqual(sumsOfTurns(messageListFrom(list, START_STATE).turns), expected(agent), agent);
      }
    });
  });
});
