// The inheritance evaluation (docs/inheritance.md, "Evaluation"): for a fixed set of parent
// sessions and child tasks (bench/data/inheritSessions.ts), how often the block a child inherits
// holds the turn its task needs, and what the block costs in tokens, for each profile and each way
// of choosing the parent's turns. Pure and deterministic: the block is assembled by the same code
// the server runs (src/core/inherit.ts) from the sources the store would give it.
//
//   node --import tsx bench/inheritEval.ts          prints the tables
//   node --import tsx bench/inheritEval.ts --write  also writes bench/RESULTS-inherit-eval.md

import * as fs from 'node:fs';
import * as path from 'node:path';
import { assembleInheritBlock, DEFAULT_INHERIT, type InheritSources } from '../src/core/inherit';
import { DEFAULT_PROFILE_TOKENS, type InheritProfile } from '../src/core/inheritProfiles';
import { renderTurn } from '../src/core/normalize';
import { DEFAULT_SELECTION, type SelectionRule } from '../src/core/turnSelection';
import { SESSIONS, type EvalSession, type EvalTask } from './data/inheritSessions';

export interface Rule {
  name: string;
  /** Null: no task is passed (the newest part of the parent, as without a task). */
  selection: SelectionRule | null;
}

export const RULES: Rule[] = [
  { name: 'recency (no task)', selection: null },
  { name: 'task, recent share 0', selection: { recentShare: 0, excerptChars: 600 } },
  { name: 'task, recent share 0.25', selection: { recentShare: 0.25, excerptChars: 600 } },
  { name: 'task, recent share 0.5', selection: { recentShare: 0.5, excerptChars: 600 } },
  { name: 'task, recent share 0.75', selection: { recentShare: 0.75, excerptChars: 600 } },
  { name: 'task, share 0.25, excerpts 300', selection: { recentShare: 0.25, excerptChars: 300 } },
  { name: 'task, share 0.25, excerpts 1200', selection: { recentShare: 0.25, excerptChars: 1200 } },
  { name: 'task, share 0.25, prefixes of 5', selection: { recentShare: 0.25, excerptChars: 600, prefixChars: 5 } },
  { name: 'task, share 0.25, prefixes of 6', selection: { recentShare: 0.25, excerptChars: 600, prefixChars: 6 } },
  { name: 'task, share 0.25, diversity', selection: { recentShare: 0.25, excerptChars: 600, diversity: true } },
  { name: 'task, share 0.25, prefixes of 6, diversity', selection: { recentShare: 0.25, excerptChars: 600, prefixChars: 6, diversity: true } },
  { name: 'task, share 0, prefixes of 6, diversity', selection: { recentShare: 0, excerptChars: 600, prefixChars: 6, diversity: true } },
];

const PROFILES: InheritProfile[] = ['full', 'digest', 'routing'];
const FULL_TOKENS = DEFAULT_INHERIT.maxTokens!;
const TAKEN_AT = '2026-11-28T12:00:00.000Z';

/** The sources the store gives the block for `session` (queries.ts inheritSources): the tail cut to tailChars, the turns since the checkpoint. */
export function sourcesOf(session: EvalSession, tailChars: number, task?: string): InheritSources {
  const turns = session.turns.map((turn, i) => ({ seq: i + 1, role: turn.role, text: turn.text, at: TAKEN_AT }));
  const whole = turns.map((turn) => renderTurn({ role: turn.role, text: turn.text })).join('\n');
  return {
    parentKey: session.id,
    title: session.title,
    harness: 'claude-code',
    checkpoint: { digest: session.digest, createdAt: TAKEN_AT },
    digests: [{ digest: session.digest, source: 'checkpoint' }],
    tail: whole.length > tailChars ? whole.slice(whole.length - tailChars) : whole,
    tailTruncated: whole.length > tailChars,
    constraints: session.constraints.map((content, i) => ({ entity: 'rules', content, source: 'user', importance: 0.8, recency: i })),
    focalEntities: [],
    turns,
    turnsOmitted: 0,
    lastTurn: { seq: turns.length, at: TAKEN_AT },
    ...(task ? { task } : {}),
  };
}

export interface Cell {
  hits: number;
  pairs: number;
  earlyHits: number;
  early: number;
  recentHits: number;
  recent: number;
  tokens: number;
}

/** The rule of RULES that is the default selection (DEFAULT_SELECTION). */
export function defaultRule(): Rule {
  const same = (a: SelectionRule, b: SelectionRule) =>
    a.recentShare === b.recentShare && a.excerptChars === b.excerptChars && (a.prefixChars ?? 0) === (b.prefixChars ?? 0) && !!a.diversity === !!b.diversity;
  const rule = RULES.find((r) => r.selection && same(r.selection, DEFAULT_SELECTION));
  if (!rule) throw new Error('DEFAULT_SELECTION is not one of the rules evaluated');
  return rule;
}

export function evaluate(profile: InheritProfile, rule: Rule, tailChars: number): Cell {
  const cell: Cell = { hits: 0, pairs: 0, earlyHits: 0, early: 0, recentHits: 0, recent: 0, tokens: 0 };
  const maxTokens = profile === 'full' ? FULL_TOKENS : DEFAULT_PROFILE_TOKENS[profile]!;
  for (const session of SESSIONS) {
    for (const pair of session.tasks) {
      const src = sourcesOf(session, tailChars, rule.selection ? pair.task : undefined);
      const block = assembleInheritBlock(src, {
        inheritContext: true,
        tailChars,
        maxTokens,
        profile,
        ...(rule.selection ? { selection: rule.selection } : {}),
      });
      const hit = block?.text.includes(pair.needle) ?? false;
      cell.pairs++;
      cell.hits += hit ? 1 : 0;
      cell.tokens += block?.estimatedTokens ?? 0;
      if (pair.where === 'early') {
        cell.early++;
        cell.earlyHits += hit ? 1 : 0;
      }
      if (pair.where === 'recent') {
        cell.recent++;
        cell.recentHits += hit ? 1 : 0;
      }
    }
  }
  return cell;
}

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}% (${n}/${of})` : '—');

function table(rows: Array<{ profile: string; rule: string; tailChars: number; cell: Cell }>): string {
  const out = [
    '| Profile | Turns chosen by | tailChars | Hit rate, all | Early turn needed | Recent turn needed | Mean tokens |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const { profile, rule, tailChars, cell } of rows)
    out.push(
      `| ${profile} | ${rule} | ${tailChars} | ${pct(cell.hits, cell.pairs)} | ${pct(cell.earlyHits, cell.early)} | ${pct(cell.recentHits, cell.recent)} | ${Math.round(cell.tokens / cell.pairs)} |`,
    );
  return out.join('\n');
}

/** A sanity check of the data set: every needle is in exactly one turn of its session. */
function checkNeedles(): void {
  for (const session of SESSIONS)
    for (const pair of session.tasks as EvalTask[]) {
      const holders = session.turns.filter((turn) => turn.text.includes(pair.needle)).length;
      if (holders !== 1) throw new Error(`${session.id}: "${pair.needle}" is in ${holders} turns, not 1`);
    }
}

export function report(): string {
  checkNeedles();
  const tailChars = DEFAULT_INHERIT.tailChars;
  const pairs = SESSIONS.reduce((n, s) => n + s.tasks.length, 0);
  const turns = SESSIONS.map((s) => s.turns.length);
  const chars = SESSIONS.map((s) => s.turns.map((turn) => renderTurn(turn)).join('\n').length);
  const main = PROFILES.flatMap((profile) => RULES.map((rule) => ({ profile, rule: rule.name, tailChars, cell: evaluate(profile, rule, tailChars) })));
  const chosen = defaultRule();
  const budgets = [1500, 6000].flatMap((chars) =>
    RULES.map((rule) => ({ profile: 'full', rule: rule.name, tailChars: chars, cell: evaluate('full', rule, chars) })),
  );
  return [
    '# Inheritance evaluation: does the child get the turn its task needs?',
    '',
    'Generated by `npm run bench:inherit -- --write` (`bench/inheritEval.ts`); deterministic, so the',
    'figures change only when the data set or the code does. What is measured and how the defaults',
    'were chosen from it: [docs/inheritance.md](../docs/inheritance.md), "Evaluation".',
    '',
    `Data set (\`bench/data/inheritSessions.ts\`): ${SESSIONS.length} parent sessions (${Math.min(...turns)}–${Math.max(...turns)} turns, ` +
      `${Math.min(...chars).toLocaleString('en-US')}–${Math.max(...chars).toLocaleString('en-US')} characters since the checkpoint), ${pairs} child tasks: ` +
      `${SESSIONS.flatMap((s) => s.tasks).filter((p) => p.where === 'early').length} need an early turn, ` +
      `${SESSIONS.flatMap((s) => s.tasks).filter((p) => p.where === 'middle').length} a middle one, ` +
      `${SESSIONS.flatMap((s) => s.tasks).filter((p) => p.where === 'recent').length} one of the newest.`,
    "A hit: the block holds the needed turn's key sentence verbatim. Tokens: the whole block's estimate (header, stamp, constraints, digest, turns, budget line).",
    `Budgets: full ${FULL_TOKENS}, digest ${DEFAULT_PROFILE_TOKENS.digest}, routing ${DEFAULT_PROFILE_TOKENS.routing} tokens (the defaults).`,
    '',
    `## Each profile and selection rule (tailChars ${tailChars}, the default)`,
    '',
    table(main),
    '',
    "## Less and more room for the parent's turns (full profile)",
    '',
    table(budgets),
    '',
    `Default chosen: **${chosen.name}** (\`DEFAULT_SELECTION\` in \`src/core/turnSelection.ts\`).`,
    '',
  ].join('\n');
}

/** The pairs `rule` misses with the full profile: for reading the data set, not for the results. */
function misses(rule: Rule, tailChars: number): string[] {
  const out: string[] = [];
  for (const session of SESSIONS)
    for (const pair of session.tasks) {
      const src = sourcesOf(session, tailChars, rule.selection ? pair.task : undefined);
      const block = assembleInheritBlock(src, {
        inheritContext: true,
        tailChars,
        maxTokens: FULL_TOKENS,
        ...(rule.selection ? { selection: rule.selection } : {}),
      });
      if (!block?.text.includes(pair.needle)) out.push(`${session.id} (${pair.where}): ${pair.task}`);
    }
  return out;
}

// Run as a script (the unit test imports it for its figures).
if (require.main === module) {
  const text = report();
  process.stdout.write(text);
  if (process.argv.includes('--misses'))
    for (const rule of RULES)
      process.stdout.write(
        `\n${rule.name}:\n${misses(rule, DEFAULT_INHERIT.tailChars)
          .map((m) => `  ${m}`)
          .join('\n')}\n`,
      );
  if (process.argv.includes('--write') || process.env.BENCH_WRITE === '1') {
    fs.writeFileSync(path.join(__dirname, 'RESULTS-inherit-eval.md'), text);
  }
}
