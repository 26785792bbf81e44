// How much archival saves: a long `@baton` conversation, generated deterministically (seeded), is
// replayed twice through the rules the participant uses (src/core/archival.ts): once with archival
// off, once on with the default triggers (8,000 tokens, 5 tool calls, the max-turns ending). For
// every request it counts the estimated tokens (characters / 4, as the triggers do) of what the
// model is sent: the history (archived turns only as their marker), the Live Subagents section and
// the new question. Not a test and not timed: the figures only depend on the seed.
//
//   node --import tsx bench/archival.ts          print the figures
//   BENCH_WRITE=1 node --import tsx bench/archival.ts   also write bench/RESULTS-archival.md

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ARCHIVAL_DEFAULTS,
  MAX_TURNS_MARKER,
  archivedMarker,
  deterministicSummary,
  endedAtMaxTurns,
  historyForModel,
  holderTask,
  liveSubagentsSection,
  shouldArchive,
  type ConversationTurn,
  type LiveHolder,
} from '../src/core/archival';
import { estimateTokens } from '../src/core/inherit';
import { prng } from './workload';

const ROOT = path.resolve(__dirname, '..');
const TURNS = Number(process.env.BENCH_ARCHIVAL_TURNS ?? 60);
const SEED = 20261127;

// A seeded generator (the workload's), so every run produces the same conversation.
const rand = prng(SEED);
const between = (lo: number, hi: number) => Math.floor(lo + rand() * (hi - lo));
const WORDS = 'auth handler login token refresh schema migration index query cache worker route test build deploy config error retry timeout parser'.split(' ');
const FILES = ['src/auth/login.ts', 'src/store/schema.ts', 'src/server/routes.ts', 'test/api.test.ts', 'package.json'];

function prose(chars: number): string {
  let out = '';
  while (out.length < chars) out += `${WORDS[between(0, WORDS.length)]}${rand() < 0.1 ? '. ' : ' '}`;
  return out.slice(0, chars);
}

interface GeneratedTurn {
  prompt: string;
  response: string;
  toolCalls: string[];
  kind: 'chat' | 'tool-heavy' | 'long-output' | 'max-turns';
}

/** A mix like a working session: mostly short exchanges, some tool-heavy ones, some long outputs, a few loops that hit their limit. */
function generate(n: number): GeneratedTurn[] {
  const turns: GeneratedTurn[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    const prompt = `${prose(between(60, 400))}?`;
    if (r < 0.55) turns.push({ prompt, response: prose(between(300, 2_500)), toolCalls: [], kind: 'chat' });
    else if (r < 0.8) {
      const calls = Array.from({ length: between(5, 12) }, () => ['read_file', 'grep', 'bash'][between(0, 3)]);
      const output = calls.map((c) => `${c} ${FILES[between(0, FILES.length)]}\n${prose(between(400, 1_600))}`).join('\n');
      turns.push({ prompt, response: `${output}\n${prose(600)}`, toolCalls: calls, kind: 'tool-heavy' });
    } else if (r < 0.95) turns.push({ prompt, response: prose(between(32_000, 90_000)), toolCalls: ['bash'], kind: 'long-output' });
    else turns.push({ prompt, response: `${prose(between(1_000, 3_000))}\n\n${MAX_TURNS_MARKER}`, toolCalls: ['read_file', 'grep'], kind: 'max-turns' });
  }
  return turns;
}

interface Replay {
  /** Estimated tokens of each request, in order. */
  perRequest: number[];
  archived: Record<string, number>;
}

/** Replays the conversation: request i sends the history of turns 0..i-1, then question i; turn i may then be archived. */
function replay(generated: GeneratedTurn[], archival: boolean, key = 'bench-chat'): Replay {
  const settings = { ...ARCHIVAL_DEFAULTS, enabled: archival };
  const turns: ConversationTurn[] = [];
  const holders: LiveHolder[] = [];
  const perRequest: number[] = [];
  const archived: Record<string, number> = {};
  for (const g of generated) {
    const history = historyForModel(turns);
    const request = [...history.map((m) => m.content), liveSubagentsSection(holders), `Question: ${g.prompt}`];
    perRequest.push(request.reduce((sum, text) => sum + estimateTokens(text), 0));
    const turn: ConversationTurn = { prompt: g.prompt, response: g.response };
    const decision = shouldArchive(settings, {
      text: `${g.prompt}\n${g.response}`,
      maxTurnsEnding: endedAtMaxTurns(g.response),
      toolCalls: g.toolCalls.length,
      toolCallOpen: false,
      depth: 0,
    });
    if (decision.archive) {
      const id = `${key}/holder-${holders.length + 1}`;
      turn.archivedMarker = archivedMarker(id, { kind: 'structured', value: deterministicSummary(g.prompt, g.response, g.toolCalls) });
      holders.push({ id, task: holderTask(g.prompt) });
      archived[decision.reason] = (archived[decision.reason] ?? 0) + 1;
    }
    turns.push(turn);
  }
  return { perRequest, archived };
}

const fmt = (n: number) => n.toLocaleString('en-US');
const generated = generate(TURNS);
const off = replay(generated, false);
const on = replay(generated, true);
const total = (r: Replay) => r.perRequest.reduce((a, b) => a + b, 0);
const last = (r: Replay) => r.perRequest[r.perRequest.length - 1];
const peak = (r: Replay) => Math.max(...r.perRequest);
const saved = (a: number, b: number) => `${(((a - b) / a) * 100).toFixed(1)}%`;
const kinds = generated.reduce<Record<string, number>>((acc, g) => ((acc[g.kind] = (acc[g.kind] ?? 0) + 1), acc), {});
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';

const report = [
  '# Archival: tokens sent to the model',
  '',
  `Generated by \`node --import tsx bench/archival.ts\` (BENCH_WRITE=1 writes this file). A ${TURNS}-turn \`@baton\``,
  `conversation (seed ${SEED}: ${Object.entries(kinds)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}) replayed with archival off and on (default triggers: ${fmt(ARCHIVAL_DEFAULTS.tokenThreshold)} tokens,`,
  `${ARCHIVAL_DEFAULTS.toolCallThreshold} tool calls, the max-turns ending). Tokens are estimated (characters / 4) over every message of each`,
  'request: history (archived turns as their marker), Live Subagents section, question.',
  '',
  '| | archival off | archival on | saved |',
  '|---|---:|---:|---:|',
  `| tokens, all ${TURNS} requests | ${fmt(total(off))} | ${fmt(total(on))} | ${saved(total(off), total(on))} |`,
  `| tokens, last request | ${fmt(last(off))} | ${fmt(last(on))} | ${saved(last(off), last(on))} |`,
  `| tokens, largest request | ${fmt(peak(off))} | ${fmt(peak(on))} | ${saved(peak(off), peak(on))} |`,
  `| turns archived | 0 | ${Object.values(on.archived).reduce((a, b) => a + b, 0)} (${Object.entries(on.archived)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}) | |`,
  '',
  `Machine: ${cpu}, ${os.cpus().length} cores, Node ${process.version}, ${os.platform()} ${os.release()}. The figures depend only on the seed, not on the machine.`,
  '',
].join('\n');

process.stdout.write(report);
if (process.env.BENCH_WRITE === '1') fs.writeFileSync(path.join(ROOT, 'bench', 'RESULTS-archival.md'), report);
