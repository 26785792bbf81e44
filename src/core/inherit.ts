// The "Inherited from Parent Session" block: a pure function of what the store holds about the
// parent. Deterministic (same inputs, same bytes), no language model, secrets redacted, omitted
// when there is nothing to inherit.

import { fitConstraints, orderConstraints, type RankedConstraint } from './constraintBudget';
import { PROFILE_SECTIONS, type InheritProfile } from './inheritProfiles';
import { redactSecrets } from './redact';
import { selectTurns, type ParentTurn, type SelectionRule } from './turnSelection';

export interface InheritSettings {
  inheritContext: boolean;
  tailChars: number;
  /** Total budget of the block in (estimated) tokens; active constraints take at most CONSTRAINT_SHARE of it (docs/inheritance.md, "Budget"). */
  maxTokens?: number;
  /** Which sections the child gets (docs/inheritance.md, "Profiles"); `full` when absent. */
  profile?: InheritProfile;
  /** How a child with a task gets the parent's turns (docs/inheritance.md, "Choosing the parent's turns for the task"). */
  selection?: SelectionRule;
}

export const DEFAULT_MAX_TOKENS = 2000;
export const DEFAULT_INHERIT: InheritSettings = { inheritContext: true, tailChars: 3000, maxTokens: DEFAULT_MAX_TOKENS };

export interface InheritSources {
  parentKey: string;
  title: string | null;
  harness: string;
  checkpoint: { digest: string; createdAt: string } | null;
  /**
   * The rolling digest: the last compaction summary and every checkpoint since, oldest first.
   * When absent, the checkpoint's digest alone.
   */
  digests?: Array<{ digest: string; source: string | null }>;
  /** The parent's transcript since its last checkpoint, already cut to the last tailChars characters. */
  tail: string;
  /** Whether the tail was cut (there was more before it). */
  tailTruncated: boolean;
  /**
   * `origin` says where the rule came from ("user, turn 12", "added by hand"): shown by the preview,
   * not in the block. Source, importance and recency order them when they do not all fit
   * (constraintBudget.ts).
   */
  constraints: Array<{ entity: string; content: string; origin?: string } & RankedConstraint>;
  /** Focal entities: those in focus by hand, then those of the rolling span's checkpoints. */
  focalEntities: string[];
  /** Set when the parent was inferred (recency fallback) rather than named. */
  inferredParent?: boolean;
  /** The child's task (what it was asked to do): its turns are then chosen for it, not only the newest. */
  task?: string;
  /** The parent's turns since its last checkpoint (a bounded read, newest last): what a task chooses from. */
  turns?: ParentTurn[];
  /** How many turns since the checkpoint came before `turns` (the read's bound left them out). */
  turnsOmitted?: number;
  /** The parent's last stored turn: the block says it was taken there. */
  lastTurn?: { seq: number; at: string | null } | null;
}

export interface InheritBlock {
  text: string;
  sections: {
    header: string;
    checkpoint: string | null;
    recentContext: string | null;
    focalEntities: string[];
    constraints: string[];
  };
  chars: number;
  estimatedTokens: number;
  budget: { maxTokens: number; usedTokens: number; cut: string[] };
  profile: InheritProfile;
  /** Each constraint line of the block with where it came from. */
  constraintOrigins: Array<{ text: string; origin: string }>;
  /** With a task: the parent's turns shown (seqs, transcript order) and those chosen for their relevance. */
  selection: { task: string; turns: number[]; relevant: number[] } | null;
}

/** The label of the parent's turns when they were chosen for the child's task. */
export const TASK_CONTEXT_LABEL = 'Relevant and recent context (for the task):';

/** The line saying which of the parent's turns the block was taken at. */
export function stampLine(last: { seq: number; at: string | null }): string {
  return `Taken at turn ${last.seq} of the parent${last.at ? ` (${last.at})` : ''}`;
}

export const INHERIT_HEADING = '## Inherited from Parent Session';

/**
 * The share of the block's budget the rules may always take. They take more when the summary, the
 * recent context and the focal entities need less than the rest (all of it without those).
 */
export const CONSTRAINT_SHARE = 0.5;
/** Characters kept for the budget line (with its list of what was cut). */
const BUDGET_RESERVE = 120;

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? '  ' + line : ''))
    .join('\n');
}

/** About four characters a token for English prose and code: enough for budgeting and previews. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export const CUT_MARKER = '[…cut]';

/** The first part of `text` within `max` characters, ended on a sentence boundary, with a marker. */
export function cutHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - CUT_MARKER.length - 1;
  if (room <= 0) return '';
  const slice = text.slice(0, room);
  const ends = [...slice.matchAll(/[.!?](?=\s)|\n/g)].map((m) => (m.index ?? 0) + 1);
  const at = ends.length ? ends[ends.length - 1] : slice.lastIndexOf(' ') > 0 ? slice.lastIndexOf(' ') : room;
  return `${slice.slice(0, at).trimEnd()} ${CUT_MARKER}`;
}

/** The last part of `text` within `max` characters, started on a turn (line) boundary, with a marker. */
export function cutTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - CUT_MARKER.length - 1;
  if (room <= 0) return '';
  const slice = text.slice(text.length - room);
  const nl = slice.indexOf('\n');
  const from = nl >= 0 && nl < slice.length - 1 ? nl + 1 : 0;
  const kept = slice.slice(from).trimStart();
  return kept ? `${CUT_MARKER}\n${kept}` : '';
}

/** The rolling digest condensed within `max` characters: every part keeps its opening sentences. */
function condenseDigests(parts: string[], max: number): { text: string; cut: boolean } {
  const whole = parts.join('\n');
  if (whole.length <= max) return { text: whole, cut: false };
  // Share the room equally; a short part gives what it does not use to the others.
  const sorted = parts.map((p, i) => ({ p, i })).sort((a, b) => a.p.length - b.p.length);
  const out: string[] = new Array(parts.length);
  let room = max - (parts.length - 1);
  let left = parts.length;
  for (const { p, i } of sorted) {
    const share = Math.floor(room / left);
    out[i] = cutHead(p, share);
    room -= out[i].length;
    left--;
  }
  return { text: out.filter(Boolean).join('\n'), cut: true };
}

export function assembleInheritBlock(src: InheritSources, settings: InheritSettings = DEFAULT_INHERIT): InheritBlock | null {
  const profile = settings.profile ?? 'full';
  if (!settings.inheritContext || profile === 'none') return null;
  const wants = PROFILE_SECTIONS[profile];
  const maxTokens = settings.maxTokens ?? DEFAULT_MAX_TOKENS;
  const allDigests = (src.digests ?? (src.checkpoint ? [{ digest: src.checkpoint.digest, source: null }] : []))
    .map((d) => d.digest.trim())
    .filter(Boolean)
    .map((d) => redactSecrets(d));
  const parentTail = src.tail.trim() ? redactSecrets(src.tail.trim()) : null;
  // A task chooses among the parent's turns (turnSelection.ts); no task, or one of stop words only: the newest part.
  const task = src.task?.trim() ?? '';
  const pool = wants.tail && task && src.turns?.length ? src.turns.map((turn) => ({ ...turn, text: redactSecrets(turn.text) })) : null;
  const selectFor = (max: number) => (pool ? selectTurns(pool, task, max, { omittedBefore: src.turnsOmitted, rule: settings.selection }) : null);
  const forTask = selectFor(settings.tailChars);
  const ordered = orderConstraints(src.constraints);
  const allConstraints = ordered.map((c) => redactSecrets(`${c.entity}: ${c.content}`));
  if (!allDigests.length && !parentTail && !allConstraints.length) return null;
  // A profile leaves sections out on purpose: they are not "cut", the child's type does not get them.
  const digestParts = wants.digest ? allDigests : [];
  const fullTail = forTask ? forTask.text : wants.tail ? parentTail : null;
  const focalAll = wants.entities ? [...new Set(src.focalEntities)].filter(Boolean) : [];
  const header = src.title?.trim() ? src.title.trim() : 'active session';
  const headLines = [
    INHERIT_HEADING,
    '',
    `${header} (${src.harness} session ${src.parentKey})${src.inferredParent ? ' — parent inferred from recent activity' : ''}`,
  ];
  if (src.lastTurn) headLines.push(stampLine(src.lastTurn));
  const cut: string[] = [];
  // Priority: constraints (most important first, within their own budget), then the digest, then entities, then the tail.
  // The rules may take CONSTRAINT_SHARE of the room, or more when the other sections need less (all of it without them).
  const total = maxTokens * 4 - headLines.join('\n').length - 1 - BUDGET_RESERVE;
  const othersNeed =
    (digestParts.length ? 'Checkpoint summary:\n'.length + digestParts.join('\n').length * 1.05 + 30 : 0) +
    (fullTail ? 'Recent context (most recent part):\n'.length + fullTail.length + fullTail.split('\n').length * 2 + 40 : 0) +
    (focalAll.length ? `Focal entities: ${focalAll.join(', ')}`.length + 1 : 0);
  const rules = fitConstraints(allConstraints, Math.max(0, Math.floor(Math.max(total * CONSTRAINT_SHARE, total - othersNeed))));
  const constraintLines = rules.lines;
  const constraints = allConstraints.slice(0, rules.kept);
  if (rules.omitted) cut.push('constraints');
  let room = maxTokens * 4 - [...headLines, ...constraintLines].join('\n').length - BUDGET_RESERVE;
  let digest: string | null = null;
  if (digestParts.length && room > 40) {
    // The digest may take the room the tail does not need, but at most 60% when there is a tail.
    const tailNeed = fullTail ? Math.min(fullTail.length + 40, Math.floor(room * 0.4)) : 0;
    const share = room - tailNeed - 30;
    const condensed = condenseDigests(digestParts, Math.max(0, Math.floor(share / 1.05)));
    // Indentation adds two characters a line.
    if (condensed.text) {
      digest = condensed.text;
      if (condensed.cut) cut.push('checkpoint summary');
      room -= 'Checkpoint summary:\n'.length + indent(digest).length + 1;
    } else cut.push('checkpoint summary');
  } else if (digestParts.length) cut.push('checkpoint summary');
  const focal: string[] = [];
  if (focalAll.length) {
    for (const f of focalAll) {
      const line = `Focal entities: ${[...focal, f].join(', ')}`;
      if (line.length + 1 > room) break;
      focal.push(f);
    }
    if (focal.length < focalAll.length) cut.push('focal entities');
    if (focal.length) room -= `Focal entities: ${focal.join(', ')}`.length + 1;
  }
  let tail: string | null = null;
  let chosen = forTask;
  if (fullTail && forTask) {
    // Chosen again for the room left: the selection never cuts a turn at a place it did not choose.
    let budget = settings.tailChars;
    chosen = null;
    for (let tries = 0; tries < 8 && budget > 0; tries++) {
      const picked = tries === 0 ? forTask : selectFor(budget);
      if (!picked) break;
      const need = TASK_CONTEXT_LABEL.length + 1 + indent(picked.text).length + 2;
      if (need <= room) {
        chosen = picked;
        break;
      }
      // Too little room left to be worth it, as for the newest part (cutTail below).
      budget -= need - room;
      if (budget <= 40) break;
    }
    tail = chosen?.text ?? null;
    if (tail !== fullTail) cut.push('recent context');
  } else if (fullTail) {
    const label = src.tailTruncated ? 'Recent context (most recent part):' : 'Recent context:';
    const lines = fullTail.split('\n').length;
    const max = room - label.length - 1 - lines * 2 - 2;
    tail = max > 40 ? cutTail(fullTail, max) || null : null;
    if (tail !== fullTail) cut.push('recent context');
  }
  // The routing profile is the header (where to pull from) and the rules, even when there are no rules.
  if (!digest && !tail && !constraintLines.length && profile !== 'routing') return null;
  const lines = [...headLines, ...constraintLines];
  if (digest) lines.push('Checkpoint summary:', indent(digest));
  if (tail) lines.push(chosen ? TASK_CONTEXT_LABEL : src.tailTruncated ? 'Recent context (most recent part):' : 'Recent context:', indent(tail));
  if (focal.length) lines.push(`Focal entities: ${focal.join(', ')}`);
  const body = lines.join('\n');
  const profileNote = profile === 'full' ? '' : `, profile ${profile}`;
  const budgetLine = (used: number) => `Budget: ~${used} of ${maxTokens} tokens${profileNote}${cut.length ? ` (cut: ${cut.join(', ')})` : ''}`;
  let text = `${body}\n${budgetLine(estimateTokens(body))}`;
  text = `${body}\n${budgetLine(estimateTokens(text))}`;
  return {
    text,
    sections: { header, checkpoint: digest, recentContext: tail, focalEntities: focal, constraints },
    chars: text.length,
    estimatedTokens: estimateTokens(text),
    budget: { maxTokens, usedTokens: estimateTokens(text), cut },
    profile,
    constraintOrigins: constraints.map((text, i) => ({ text, origin: ordered[i].origin ?? 'stated in this session' })),
    selection: chosen && tail ? { task, turns: chosen.seqs, relevant: chosen.relevant } : null,
  };
}
