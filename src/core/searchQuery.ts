// Turns whatever a user typed into a safe FTS4 MATCH expression.
// Every term reaches SQLite inside double quotes, so no user text is ever parsed as FTS syntax;
// only the operators we emit ourselves (OR, NOT, parentheses, prefix *) are syntax.
// Understood from the user's text: "quoted phrases", -exclusions / NOT word, word* prefixes,
// and OR between two items. Everything else (colons, parentheses, NEAR, punctuation) is text.

export interface CompiledQuery {
  /** The MATCH expression, or null when the text holds nothing searchable. */
  match: string | null;
  /** The positive words, lower-cased, for highlighting. */
  terms: string[];
  /** Those of `terms` that were typed as prefixes (`word*`): they also match longer words. */
  prefixTerms: string[];
  /**
   * Words every match contains: those of the items that stand alone (not in an OR group, not
   * negated, not a prefix). Only plain ASCII letters and digits are listed, the words whose
   * tokenisation by SQLite's unicode61 is certain (one token, the word itself), so a search can rule
   * a part of the index out by asking whether one of them occurs there at all.
   */
  requiredWords: string[];
  /**
   * When the query is only phrases and words that must all occur (no OR, no exclusion, no prefix),
   * each made of plain ASCII letters and digits: its phrases, in the order of the MATCH expression
   * (a word is a phrase of one). Null otherwise. A search can then check a document's tokens
   * against the query itself instead of asking FTS4 (see rareWordMatches.ts).
   */
  phrases: string[][] | null;
}

const MAX_ITEMS = 32;

/** Plain ASCII letters and digits: a word that tokenises the same in JS as in unicode61. */
const isPlainWord = (word: string): boolean => /^[a-z0-9]+$/.test(word);
const MAX_WORD = 64;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

interface Item {
  words: string[];
  prefix: boolean;
  negated: boolean;
}

function wordsOf(text: string): string[] {
  return (text.match(WORD) ?? []).map((w) => w.slice(0, MAX_WORD).toLowerCase());
}

function quote(item: Item): string {
  // Words come from WORD, so they never hold a double quote or any FTS operator character.
  return '"' + item.words.join(' ') + (item.prefix ? '*' : '') + '"';
}

/** Splits raw text into quoted phrases and bare tokens, keeping the order. */
function tokenize(raw: string): Array<{ text: string; quoted: boolean; negated: boolean }> {
  const out: Array<{ text: string; quoted: boolean; negated: boolean }> = [];
  const re = /(-?)"([^"]*)"?|(\S+)/g;
  for (const m of raw.matchAll(re)) {
    if (m[3] !== undefined) {
      const token = m[3];
      const negated = token.startsWith('-') && token.length > 1;
      out.push({ text: negated ? token.slice(1) : token, quoted: false, negated });
    } else {
      out.push({ text: m[2] ?? '', quoted: true, negated: m[1] === '-' });
    }
  }
  return out;
}

export function compileSearchQuery(raw: string): CompiledQuery {
  const tokens = tokenize((raw ?? '').slice(0, 10_000));
  // Positive items grouped by OR: [[a], [b, c]] means a AND (b OR c).
  const groups: Item[][] = [];
  const negatives: Item[] = [];
  let pendingOr = false;
  let pendingNot = false;
  let count = 0;
  for (const token of tokens) {
    if (count >= MAX_ITEMS) break;
    if (!token.quoted && token.text === 'OR' && !token.negated) {
      pendingOr = groups.length > 0;
      continue;
    }
    if (!token.quoted && token.text === 'NOT' && !token.negated) {
      pendingNot = true;
      continue;
    }
    const words = wordsOf(token.text);
    if (words.length === 0) continue;
    const prefix = !token.quoted && /[\p{L}\p{N}]\*+$/u.test(token.text);
    const item: Item = { words, prefix, negated: token.negated || pendingNot };
    pendingNot = false;
    count++;
    if (item.negated) {
      negatives.push(item);
      pendingOr = false;
      continue;
    }
    if (pendingOr) groups[groups.length - 1].push(item);
    else groups.push([item]);
    pendingOr = false;
  }
  if (groups.length === 0) return { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null };
  const positive = groups.map((group) => (group.length === 1 ? quote(group[0]) : '(' + group.map(quote).join(' OR ') + ')')).join(' ');
  // One NOT over an OR group: FTS4 rejects expression trees deeper than 12, which a chain of NOTs reaches.
  const negative = negatives.length === 0 ? '' : negatives.length === 1 ? ' NOT ' + quote(negatives[0]) : ' NOT (' + negatives.map(quote).join(' OR ') + ')';
  const terms = [...new Set(groups.flat().flatMap((item) => item.words))];
  const prefixTerms = [
    ...new Set(
      groups
        .flat()
        .filter((item) => item.prefix)
        .map((item) => item.words[item.words.length - 1]),
    ),
  ];
  // The items every match contains as typed: alone in their group (no OR) and not a prefix.
  const standalone = groups.filter((group) => group.length === 1 && !group[0].prefix).map((group) => group[0].words);
  const requiredWords = [...new Set(standalone.flat())].filter(isPlainWord);
  const plain = negatives.length === 0 && standalone.length === groups.length && standalone.every((words) => words.every(isPlainWord));
  const phrases = plain ? standalone : null;
  return { match: positive + negative, terms, prefixTerms, requiredWords, phrases };
}

/** Words a question carries that say nothing about what it looks for. */
export const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be been before being below between both but by can could did do does doing done ' +
    'down during each few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my ' +
    'no nor not now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will with would you your ' +
    'yours decide decided decision discuss discussed talk talked said say tell told know think thing things anything something everything ' +
    'please find show look looked get got make made use used want wanted need needed again ever still there yes ok okay'
  ).split(' '),
);

/**
 * When the strict query found fewer hits than this, a question query is tried (docs/inheritance.md).
 * One: a strict query that finds anything keeps its exact answer.
 */
export const QUESTION_FALLBACK_BELOW = 1;

/**
 * The question-friendly form of a query: stop words dropped, any of the remaining words (FTS4's
 * BM25 ranks a document matching more of them higher), words of four letters or more as prefixes
 * so identifiers and inflections match. Null when the strict form is the right one: the text
 * holds a quoted phrase (stays exact), operators, or fewer than two words.
 */
export interface QuestionOptions {
  /**
   * Trim a plural or inflection off each prefix word ("preferences" → "preferenc*"), so a question
   * in the plural finds the singular and the other forms (memory recall, docs/memory.md).
   */
  stem?: boolean;
}

const SUFFIXES = ['ies', 'es', 's', 'ing', 'ed'];

/** The word without its plural or inflection ending, when at least four letters remain; else the word. */
export function stemWord(word: string): string {
  for (const suffix of SUFFIXES) {
    if (!word.endsWith(suffix) || word.endsWith('ss')) continue;
    const stem = word.slice(0, -suffix.length);
    if (stem.length >= 4) return stem;
  }
  return word;
}

export function compileQuestionQuery(raw: string, options: QuestionOptions = {}): CompiledQuery | null {
  const text = (raw ?? '').slice(0, 10_000);
  if (text.includes('"') || /(^|\s)(OR|NOT)(\s|$)|(^|\s)-\S|\*/.test(text)) return null;
  const all = wordsOf(text);
  if (all.length < 2) return null;
  const words = [...new Set(all.filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /\d/.test(w))))].slice(0, MAX_ITEMS);
  if (words.length === 0) return null;
  const items: Item[] = words.map((w) =>
    w.length >= 4 ? { words: [options.stem ? stemWord(w) : w], prefix: true, negated: false } : { words: [w], prefix: false, negated: false },
  );
  return {
    match: items.length === 1 ? quote(items[0]) : items.map(quote).join(' OR '),
    terms: words,
    prefixTerms: items.filter((i) => i.prefix).map((i) => i.words[0]),
    requiredWords: [],
    phrases: null,
  };
}

/**
 * Search with the question fallback: run the strict query; when it finds fewer than
 * QUESTION_FALLBACK_BELOW hits and the text reads as a question, run the question query and append
 * its hits the strict ones did not find. Reusable by every search (sessions, recall).
 */
export function withQuestionFallback<T>(
  raw: string,
  limit: number,
  run: (compiled: CompiledQuery) => T[],
  keyOf: (hit: T) => string,
  options: QuestionOptions = {},
): T[] {
  const strict = compileSearchQuery(raw);
  const first = strict.match ? run(strict) : [];
  if (first.length >= Math.min(QUESTION_FALLBACK_BELOW, limit)) return first;
  const question = compileQuestionQuery(raw, options);
  if (!question || question.match === strict.match) return first;
  const seen = new Set(first.map(keyOf));
  const more = run(question).filter((hit) => !seen.has(keyOf(hit)));
  return [...first, ...more].slice(0, limit);
}
