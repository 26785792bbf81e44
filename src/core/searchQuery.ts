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
  const positive = groups
    .map((group) => (group.length === 1 ? quote(group[0]) : '(' + group.map(quote).join(' OR ') + ')'))
    .join(' ');
  // One NOT over an OR group: FTS4 rejects expression trees deeper than 12, which a chain of NOTs reaches.
  const negative =
    negatives.length === 0 ? '' : negatives.length === 1 ? ' NOT ' + quote(negatives[0]) : ' NOT (' + negatives.map(quote).join(' OR ') + ')';
  const terms = [...new Set(groups.flat().flatMap((item) => item.words))];
  const prefixTerms = [...new Set(groups.flat().filter((item) => item.prefix).map((item) => item.words[item.words.length - 1]))];
  // The items every match contains as typed: alone in their group (no OR) and not a prefix.
  const standalone = groups.filter((group) => group.length === 1 && !group[0].prefix).map((group) => group[0].words);
  const requiredWords = [...new Set(standalone.flat())].filter(isPlainWord);
  const plain = negatives.length === 0 && standalone.length === groups.length && standalone.every((words) => words.every(isPlainWord));
  const phrases = plain ? standalone : null;
  return { match: positive + negative, terms, prefixTerms, requiredWords, phrases };
}
