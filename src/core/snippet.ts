// Search excerpts, built from a hit's own text. The full-text index holds no copy of the text
// (it is contentless), so SQLite's snippet() is not available; this picks the window of words
// that covers the most distinct query terms and marks every hit in it.

export interface SnippetOptions {
  /** Lower-cased query words (see CompiledQuery.terms). */
  terms: string[];
  /** Those of `terms` that also match longer words. */
  prefixTerms?: string[];
  open: string;
  close: string;
  /** Words in the excerpt. */
  words?: number;
  ellipsis?: string;
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Folds a word as the unicode61 tokenizer does: lower case, diacritics removed. */
export function foldWord(word: string): string {
  // Plain ASCII (most words) needs no decomposition.
  // eslint-disable-next-line no-control-regex -- the whole ASCII range, NUL included on purpose
  if (/^[\x00-\x7f]*$/.test(word)) return word.toLowerCase();
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

interface Token {
  start: number;
  end: number;
  /** Index into the term list, or -1 when the word is not a hit. */
  term: number;
}

function tokens(text: string, terms: string[], prefixes: Set<string>): Token[] {
  const out: Token[] = [];
  const exact = new Map(terms.map((t, i) => [t, i] as const));
  const prefixList = terms.map((t, i) => [t, i] as const).filter(([t]) => prefixes.has(t));
  for (const m of text.matchAll(WORD)) {
    const folded = foldWord(m[0]);
    let term = exact.get(folded) ?? -1;
    if (term < 0) for (const [t, i] of prefixList) if (folded.startsWith(t)) term = i;
    out.push({ start: m.index!, end: m.index! + m[0].length, term });
  }
  return out;
}

/**
 * The excerpt of `text` around its best cluster of hits: `words` words long, hits wrapped in the
 * markers, an ellipsis where text was cut. Whitespace runs become one space.
 */
export function buildSnippet(text: string, opts: SnippetOptions): string {
  const size = Math.max(1, opts.words ?? 24);
  const ellipsis = opts.ellipsis ?? '…';
  const terms = opts.terms.map(foldWord);
  const list = tokens(text, terms, new Set((opts.prefixTerms ?? []).map(foldWord)));
  if (list.length === 0)
    return text
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, size * 12);

  // Best window: most distinct terms, then most hits; windows start a few words before a hit so
  // the hit has context on both sides.
  let best = { from: 0, distinct: -1, hits: -1 };
  const lead = Math.min(4, Math.floor(size / 4));
  for (let i = 0; i < list.length; i++) {
    if (list[i].term < 0) continue;
    const from = Math.max(0, Math.min(i - lead, list.length - size));
    if (from === best.from && best.distinct >= 0) continue;
    const seen = new Set<number>();
    let hits = 0;
    for (let j = from; j < Math.min(list.length, from + size); j++) {
      if (list[j].term < 0) continue;
      seen.add(list[j].term);
      hits++;
    }
    if (seen.size > best.distinct || (seen.size === best.distinct && hits > best.hits)) best = { from, distinct: seen.size, hits };
    if (best.distinct === terms.length && best.hits >= size / 2) break;
  }
  const from = best.from;
  const to = Math.min(list.length, from + size);

  // Long runs of punctuation or one huge word (a base64 blob) are shortened: an excerpt stays small.
  const clip = (piece: string, max: number) => (piece.length > max ? piece.slice(0, max) + ellipsis : piece);
  let out = from > 0 ? ellipsis : '';
  let cursor = list[from].start;
  for (let j = from; j < to; j++) {
    const token = list[j];
    out += clip(text.slice(cursor, token.start).replace(/\s+/g, ' '), 40);
    const word = clip(text.slice(token.start, token.end), 80);
    out += token.term >= 0 ? opts.open + word + opts.close : word;
    cursor = token.end;
  }
  // Keep trailing punctuation up to the next word, so a sentence's end survives.
  const tailEnd = to < list.length ? list[to].start : text.length;
  out += clip(text.slice(cursor, tailEnd).replace(/\s+/g, ' ').trimEnd(), 40);
  if (to < list.length) out += ellipsis;
  return out.replace(/\s+/g, ' ').trim();
}
