// How well an entity's attribute fits the prompt that named the entity (docs/memory.md, "Entity
// context at each prompt"): its importance, raised by the share of the prompt's words it holds.
// Words as recall compares them: letters and digits, any case, stop words dropped, plurals and
// inflections trimmed (src/core/searchQuery.ts).

import { STOP_WORDS, stemWord } from './searchQuery';

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of `text` that carry meaning, lower case and stemmed, each once. */
export function meaningfulWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(WORD) ?? []) if (!STOP_WORDS.has(word)) words.add(stemWord(word));
  return words;
}

/** A prompt with no word beyond stop words ("ok", "go on", "do it") asks for no context. */
export function isLowSignal(prompt: string): boolean {
  return meaningfulWords(prompt).size === 0;
}

/**
 * The attribute's score for a prompt, from 0 to 1: its importance, raised toward 1 by the share of
 * the prompt's meaningful words it holds (`promptWords`, the entity's own name words left out,
 * since naming the entity is why the attribute is a candidate at all). An attribute sharing no
 * word keeps its importance; one holding every word scores 1.
 */
export function relevanceScore(importance: number, promptWords: ReadonlySet<string>, content: string): number {
  if (promptWords.size === 0) return importance;
  const held = meaningfulWords(content);
  let shared = 0;
  for (const word of promptWords) if (held.has(word)) shared++;
  if (shared === 0) return importance;
  const overlap = shared / promptWords.size;
  return 1 - (1 - importance) * (1 - overlap);
}
