// Which of the parent's turns a child with a task inherits (docs/inheritance.md, "Choosing the
// parent's turns for the task"): the newest turns first (a share of the room), then the turns most
// relevant to the task, then more of the newest. Relevance is BM25 over the turns' words as recall
// compares them (src/core/promptRelevance.ts): no language model, deterministic (same turns, same
// task, same bytes). Turns are shown in transcript order; a gap between them is marked.

import { renderTurn } from './normalize';
import { STOP_WORDS, stemWord } from './searchQuery';
import type { Role } from './types';

export interface ParentTurn {
  seq: number;
  role: Role;
  text: string;
  at?: string | null;
}

export interface SelectionRule {
  /** The share of the room the newest turns take before relevance picks (0 to 1). */
  recentShare: number;
  /** A relevant turn longer than this many characters is cut around its matching words. */
  excerptChars: number;
  /** When above 0, words match on their first this many letters too ("invalidation" and "invalidated"). */
  prefixChars?: number;
  /** Prefer a relevant turn that holds a task word the turns chosen so far lack (halves the score of one that adds none). */
  diversity?: boolean;
}

/** The parent's newest turns since its checkpoint a task chooses from (the store's bounded read). */
export const DEFAULT_TURN_POOL = { maxTurns: 200, maxChars: 60_000 };

/** Chosen by the evaluation (bench/RESULTS-inherit-eval.md): see docs/inheritance.md. */
export const DEFAULT_SELECTION: SelectionRule = { recentShare: 0.25, excerptChars: 600, prefixChars: 6 };

export interface TurnSelection {
  /** The chosen turns rendered as in the transcript, in order, gaps marked; at most `maxChars`. */
  text: string;
  /** The chosen turns' seqs, in transcript order. */
  seqs: number[];
  /** Those chosen for their relevance to the task (not for being recent). */
  relevant: number[];
  /** Whether any turn of the pool (or before it) was left out or cut. */
  cut: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;
const K1 = 1.2;
const B = 0.75;
/** At most this many relevant turns are considered (the best): the room holds far fewer. */
const MAX_RANKED = 200;
/** Under this many characters an excerpt says too little to be worth its gap markers. */
const MIN_EXCERPT = 80;
export const ELLIPSIS = '[…]';

/** The marker standing for turns left out between two shown ones (or before the first). */
export function gapMarker(count: number): string {
  return `[… ${count} turn${count === 1 ? '' : 's'} left out …]`;
}

/** A word as relevance compares it: lower case, stemmed, cut to `prefix` letters when above 0; null for a stop word. */
function keyOf(word: string, prefix = 0): string | null {
  const lower = word.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  const stem = stemWord(lower);
  return prefix > 0 ? stem.slice(0, prefix) : stem;
}

/** At most this many of the task's words count: a task is a paragraph, and the rank's cost grows with them. */
export const MAX_TASK_WORDS = 64;

/** The task's words that carry meaning, in first-seen order (the order keeps ties deterministic). */
export function taskWords(task: string, prefix = 0): string[] {
  const out = new Set<string>();
  for (const m of task.slice(0, 10_000).matchAll(WORD)) {
    const key = keyOf(m[0], prefix);
    if (key) out.add(key);
    if (out.size >= MAX_TASK_WORDS) break;
  }
  return [...out];
}

/** BM25 of each turn against the task's words (the turns are the collection), and the task words each holds. */
export function relevanceScores(turns: ParentTurn[], words: string[], prefix = 0): Array<{ score: number; held: Set<string> }> {
  const wanted = new Set(words);
  const counts = turns.map((turn) => {
    const tf = new Map<string, number>();
    let length = 0;
    for (const m of turn.text.matchAll(WORD)) {
      length++;
      const key = keyOf(m[0], prefix);
      if (key && wanted.has(key)) tf.set(key, (tf.get(key) ?? 0) + 1);
    }
    return { tf, length };
  });
  const avg = counts.reduce((sum, c) => sum + c.length, 0) / Math.max(1, counts.length) || 1;
  const idf = new Map(
    words.map((w) => {
      const df = counts.filter((c) => c.tf.has(w)).length;
      return [w, Math.log(1 + (turns.length - df + 0.5) / (df + 0.5))] as const;
    }),
  );
  return counts.map(({ tf, length }) => {
    let score = 0;
    for (const [w, n] of tf) score += (idf.get(w)! * n * (K1 + 1)) / (n + K1 * (1 - B + (B * length) / avg));
    return { score, held: new Set(tf.keys()) };
  });
}

/**
 * The part of a rendered turn of at most `max` characters holding the most distinct task words:
 * the window starts a little before the first match that opens the best window, on a word
 * boundary, and says with `[…]` where it was cut.
 */
export function excerptAround(line: string, words: string[], max: number, prefix = 0): string {
  if (line.length <= max) return line;
  const wanted = new Set(words);
  const hits: Array<{ at: number; key: string }> = [];
  for (const m of line.matchAll(WORD)) {
    const key = keyOf(m[0], prefix);
    if (key && wanted.has(key)) hits.push({ at: m.index ?? 0, key });
  }
  const label = line.slice(0, line.indexOf(': ') + 2);
  const room = max - label.length - 2 * (ELLIPSIS.length + 1);
  if (room <= 0) return '';
  let bestStart = label.length;
  let bestDistinct = 0;
  // One pass: the window opening a quarter of the room before each hit, counted with two pointers.
  const inWindow = new Map<string, number>();
  let first = 0;
  let last = 0;
  for (const hit of hits) {
    const start = Math.max(label.length, hit.at - Math.floor(room / 4));
    for (; last < hits.length && hits[last].at < start + room; last++) inWindow.set(hits[last].key, (inWindow.get(hits[last].key) ?? 0) + 1);
    for (; first < last && hits[first].at < start; first++) {
      const left = inWindow.get(hits[first].key)! - 1;
      if (left) inWindow.set(hits[first].key, left);
      else inWindow.delete(hits[first].key);
    }
    if (inWindow.size > bestDistinct) {
      bestDistinct = inWindow.size;
      bestStart = start;
    }
  }
  let start = bestStart;
  // Start on a word: step back to the last space before the window's start (within reach).
  if (start > label.length) {
    const space = line.lastIndexOf(' ', start);
    if (space > label.length && start - space < 40) start = space + 1;
  }
  let end = Math.min(line.length, start + room);
  if (end < line.length) {
    const space = line.lastIndexOf(' ', end);
    if (space > start + room / 2) end = space;
  }
  const body = line.slice(start, end).trim();
  return `${label}${start > label.length ? ELLIPSIS + ' ' : ''}${body}${end < line.length ? ' ' + ELLIPSIS : ''}`;
}

/** The last part of a rendered turn within `max` characters, after a cut marker. */
function endOf(line: string, max: number): string {
  const room = max - ELLIPSIS.length - 1;
  if (room < MIN_EXCERPT) return '';
  const label = line.slice(0, line.indexOf(': ') + 2);
  return `${label}${ELLIPSIS} ${line.slice(line.length - (room - label.length)).trimStart()}`;
}

/**
 * `ranked` (best first) reordered so that a turn holding a task word the turns before it lack comes
 * before one that adds none: each step takes the best by score, halved when it adds no word.
 */
function diverseOrder(ranked: number[], relevance: Array<{ score: number; held: Set<string> }>): number[] {
  const left = [...ranked];
  const covered = new Set<string>();
  const out: number[] = [];
  while (left.length) {
    let best = 0;
    let bestValue = -1;
    left.forEach((index, i) => {
      const adds = [...relevance[index].held].some((w) => !covered.has(w));
      const value = adds ? relevance[index].score : relevance[index].score / 2;
      // Ties keep the earlier of `ranked` (the newer turn).
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    });
    const [index] = left.splice(best, 1);
    for (const w of relevance[index].held) covered.add(w);
    out.push(index);
  }
  return out;
}

/**
 * The turns of `turns` (transcript order, the parent's turns since its last checkpoint, newest
 * last) for a child whose task is `task`, within `maxChars`. `omittedBefore`: how many turns since
 * the checkpoint came before the pool (a bounded read). Null when the task holds no meaningful word (the caller keeps the
 * recency tail) or nothing fits.
 */
export function selectTurns(
  turns: ParentTurn[],
  task: string,
  maxChars: number,
  options: { omittedBefore?: number; rule?: SelectionRule } = {},
): TurnSelection | null {
  const rule = options.rule ?? DEFAULT_SELECTION;
  const prefix = rule.prefixChars ?? 0;
  const words = taskWords(task, prefix);
  if (!words.length || !turns.length || maxChars <= 0) return null;
  const lines = turns.map((turn) => renderTurn({ role: turn.role, text: turn.text }));
  const relevance = relevanceScores(turns, words, prefix);
  /** index → the text shown for it (a whole line, an excerpt, or its end). */
  const chosen = new Map<number, string>();
  const relevant = new Set<number>();
  const earlier = Math.max(0, options.omittedBefore ?? 0);

  /** The exact length of the rendered selection with `extra` added. */
  const lengthWith = (extra?: [number, string]): number => {
    const picks = [...chosen.entries()];
    if (extra) picks.push(extra);
    picks.sort((a, b) => a[0] - b[0]);
    let total = 0;
    let previous = -1;
    for (const [index, text] of picks) {
      const skipped = index - previous - 1 + (previous < 0 ? earlier : 0);
      if (skipped > 0) total += gapMarker(skipped).length + 1;
      total += text.length + 1;
      previous = index;
    }
    const after = turns.length - 1 - previous;
    if (after > 0 && picks.length) total += gapMarker(after).length + 1;
    return Math.max(0, total - 1);
  };
  const fits = (index: number, text: string, limit: number) => lengthWith([index, text]) <= limit;

  // 1. The newest turns, whole, within their share (the newest one's end when it alone is longer).
  const recentRoom = Math.floor(maxChars * rule.recentShare);
  let next = turns.length - 1;
  if (recentRoom > 0) {
    for (; next >= 0; next--) {
      if (fits(next, lines[next], recentRoom)) chosen.set(next, lines[next]);
      else {
        if (next === turns.length - 1) {
          const end = endOf(lines[next], recentRoom);
          if (end) {
            chosen.set(next, end);
            next--;
          }
        }
        break;
      }
    }
  }
  // 2. The most relevant turns, best first; ties go to the newer turn. Long ones as excerpts.
  const ranked = turns
    .map((_, index) => index)
    .filter((index) => relevance[index].score > 0 && !chosen.has(index))
    .sort((a, b) => (relevance[a].score > relevance[b].score ? -1 : relevance[a].score < relevance[b].score ? 1 : b - a))
    .slice(0, MAX_RANKED);
  for (const index of rule.diversity ? diverseOrder(ranked, relevance) : ranked) {
    const left = maxChars - lengthWith();
    if (left < MIN_EXCERPT) break;
    const whole = lines[index];
    if (whole.length <= rule.excerptChars && fits(index, whole, maxChars)) {
      chosen.set(index, whole);
      relevant.add(index);
      continue;
    }
    // Markers around it cost room too: try the excerpt at the room left, less what they take.
    for (let size = Math.min(rule.excerptChars, whole.length, left), tries = 0; size >= MIN_EXCERPT && tries < 16; tries++) {
      const part = excerptAround(whole, words, size, prefix);
      const over = part ? lengthWith([index, part]) - maxChars : size;
      if (part && over <= 0) {
        chosen.set(index, part);
        relevant.add(index);
        break;
      }
      size -= Math.max(20, over);
    }
  }
  // 3. More of the newest turns, going back, while they fit whole.
  for (; next >= 0; next--) {
    if (chosen.has(next)) continue;
    if (!fits(next, lines[next], maxChars)) break;
    chosen.set(next, lines[next]);
  }
  if (!chosen.size) return null;
  const picks = [...chosen.entries()].sort((a, b) => a[0] - b[0]);
  const out: string[] = [];
  let previous = -1;
  let cut = earlier > 0;
  for (const [index, text] of picks) {
    const skipped = index - previous - 1 + (previous < 0 ? earlier : 0);
    if (skipped > 0) out.push(gapMarker(skipped));
    if (text !== lines[index]) cut = true;
    out.push(text);
    previous = index;
  }
  if (previous < turns.length - 1) out.push(gapMarker(turns.length - 1 - previous));
  if (picks.length < turns.length) cut = true;
  return {
    text: out.join('\n'),
    seqs: picks.map(([index]) => turns[index].seq),
    relevant: picks.filter(([index]) => relevant.has(index)).map(([index]) => turns[index].seq),
    cut,
  };
}
