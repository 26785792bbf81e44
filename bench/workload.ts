// Deterministic synthetic workload: English-like transcripts (Zipf-distributed vocabulary plus rare
// identifier-like tokens), the turns of every session regenerated on demand from a seed (so the
// benchmark process never holds the corpus itself), and a fixed list of search queries.

import type { Turn } from '../src/core/types';

export const HARNESS = 'claude-code';

/** mulberry32: small, fast, good enough for synthetic text. Returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes integers into one 32-bit seed. */
export function mix(...values: number[]): number {
  let h = 0x811c9dc5;
  for (const v of values) {
    h = Math.imul(h ^ (v >>> 0), 0x01000193);
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

// The most frequent English words, in rough frequency order: they head the Zipf ranking.
const COMMON = (
  'the of and to a in is it you that he was for on are with as i his they be at one have this from or had by ' +
  'not word but what some we can out other were all there when up use your how said an each she which do their ' +
  'time if will way about many then them write would like so these her long make thing see him two has look more ' +
  'day could go come did number sound no most people my over know water than call first who may down side been now ' +
  'find any new work part take get place made live where after back little only round man year came show every good ' +
  'me give our under name very through just form sentence great think say help low line differ turn cause much mean ' +
  'before move right boy old too same tell does set three want air well also play small end put home read hand port ' +
  'large spell add even land here must big high such follow act why ask men change went light kind off need house ' +
  'picture try us again animal point mother world near build self earth father head stand own page should country ' +
  'found answer school grow study still learn plant cover food sun four between state keep eye never last let thought ' +
  'city tree cross farm hard start might story saw far sea draw left late run while press close night real life few north ' +
  'file function error test build config server client request response value type string number array object module ' +
  'import export class method return async await promise callback event handler session transcript store index query'
).split(' ');

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'j',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'z',
  'br',
  'cl',
  'cr',
  'dr',
  'fl',
  'gr',
  'pl',
  'pr',
  'sh',
  'sl',
  'st',
  'str',
  'th',
  'tr',
  'ch',
  'sp',
  'qu',
  '',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ee', 'io', 'ou', 'oa', 'y'];
const CODAS = ['', '', '', 'n', 'r', 's', 't', 'l', 'nd', 'st', 'ng', 'ck', 'rt', 'm', 'x', 'th', 'sh', 'ld'];

export interface Vocabulary {
  /** Words by Zipf rank (0 = most frequent). */
  words: string[];
  /** The same words, first letter upper case (sentence starts). */
  capitalized: string[];
  /** 2^16 entries mapping a uniform draw to a word rank with probability ∝ 1 / (rank + 2.7). */
  table: Uint16Array;
  /** Rare identifier-like tokens (camelCase compounds, hex ids, versioned names); drawn uniformly. */
  identifiers: string[];
}

const TABLE_BITS = 16;

export function buildVocabulary(seed = 0xba7011, size = 4000, identifierCount = 50_000): Vocabulary {
  const rand = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const seen = new Set<string>();
  const words: string[] = [];
  for (const w of COMMON) {
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  while (words.length < size) {
    // Frequent words are shorter, as in English.
    const syllables = 1 + Math.floor(rand() * (words.length < 800 ? 2 : 4));
    let w = '';
    for (let i = 0; i < syllables; i++) w += pick(ONSETS) + pick(VOWELS) + (i === syllables - 1 ? pick(CODAS) : '');
    if (w.length < 3 || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  // Zipf–Mandelbrot cumulative table.
  const weights = words.map((_, r) => 1 / (r + 2.7));
  const total = weights.reduce((a, b) => a + b, 0);
  const table = new Uint16Array(1 << TABLE_BITS);
  let cum = 0;
  let rank = 0;
  for (let i = 0; i < table.length; i++) {
    const at = (i + 0.5) / table.length;
    while (rank < words.length - 1 && cum + weights[rank] / total < at) {
      cum += weights[rank] / total;
      rank++;
    }
    table[i] = rank;
  }
  const identifiers: string[] = [];
  const idSeen = new Set<string>();
  while (identifiers.length < identifierCount) {
    const kind = rand();
    let id: string;
    if (kind < 0.4) {
      const a = words[200 + Math.floor(rand() * (size - 200))];
      const b = words[200 + Math.floor(rand() * (size - 200))];
      id = a + b[0].toUpperCase() + b.slice(1) + (rand() < 0.5 ? String(Math.floor(rand() * 100)) : '');
    } else if (kind < 0.7) {
      id =
        '0x' +
        Math.floor(rand() * 0xffffffff)
          .toString(16)
          .padStart(8, '0');
    } else {
      const a = words[100 + Math.floor(rand() * (size - 100))];
      id = a + 'V' + (1 + Math.floor(rand() * 9)) + String.fromCharCode(97 + Math.floor(rand() * 26)) + Math.floor(rand() * 1000);
    }
    if (idSeen.has(id)) continue;
    idSeen.add(id);
    identifiers.push(id);
  }
  const capitalized = words.map((w) => w[0].toUpperCase() + w.slice(1));
  return { words, capitalized, table, identifiers };
}

export interface WorkloadOptions {
  seed: number;
  sessions: number;
  turns: number;
}

const BASE_TIME = Date.UTC(2025, 0, 6, 9, 0, 0);

export class Workload {
  readonly vocab: Vocabulary;
  private readonly tableMask = (1 << TABLE_BITS) - 1;

  constructor(readonly options: WorkloadOptions) {
    this.vocab = buildVocabulary(mix(options.seed, 1));
  }

  sessionKey(s: number): string {
    const r = prng(mix(this.options.seed, 2, s));
    const hex = () =>
      Math.floor(r() * 0x10000)
        .toString(16)
        .padStart(4, '0');
    return `${hex()}${hex()}-${hex()}-4${hex().slice(1)}-a${hex().slice(1)}-${hex()}${hex()}${hex()}`;
  }

  project(s: number): string {
    return `/home/dev/src/project-${s % 23}`;
  }

  /** The words (lower case, no punctuation) and the rendered text of turn k (1-based) of session s. */
  turnWords(s: number, k: number): string[] {
    return this.generate(s, k, true).words;
  }

  turn(s: number, k: number): Turn {
    const { text } = this.generate(s, k);
    return {
      role: k % 2 === 1 ? 'user' : 'assistant',
      text,
      at: new Date(BASE_TIME + s * 1000 + k * 60_000).toISOString(),
    };
  }

  /** Turns 1..k of session s: exactly what a harness hook re-sends on every call. */
  transcript(s: number, k: number): Turn[] {
    const turns: Turn[] = new Array(k);
    for (let i = 1; i <= k; i++) turns[i - 1] = this.turn(s, i);
    return turns;
  }

  private generate(s: number, k: number, wantWords = false): { text: string; words: string[] } {
    // mulberry32 inlined, one 32-bit draw per word: the low 16 bits pick the Zipf rank, the top
    // 12 bits decide identifier / comma / sentence end. Hot loop: the whole transcript is
    // regenerated on every hook call, as a hook re-reads its transcript file.
    let a = mix(this.options.seed, 3, s, k);
    let t: number;
    const { words, capitalized, table, identifiers } = this.vocab;
    const mask = this.tableMask;
    const idCount = identifiers.length;
    a = (a + 0x6d2b79f5) | 0;
    t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const target = 1700 + (((t ^ (t >>> 14)) >>> 0) % 600);
    const parts: string[] = [];
    const plain: string[] = [];
    let length = 0;
    let left = 0;
    let first = true;
    while (length < target || left > 0) {
      a = (a + 0x6d2b79f5) | 0;
      t = Math.imul(a ^ (a >>> 15), a | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const x = (t ^ (t >>> 14)) >>> 0;
      if (left === 0) {
        left = 6 + (x % 19);
        first = true;
        continue;
      }
      const top = x >>> 20;
      let w: string;
      if (top < 49) {
        // ≈1.2% of words: a rare identifier-like token.
        const id = identifiers[(x & 0xfffff) % idCount];
        if (wantWords) plain.push(id.toLowerCase());
        w = first ? id[0].toUpperCase() + id.slice(1) : id;
      } else {
        const rank = table[x & mask];
        if (wantWords) plain.push(words[rank]);
        w = first ? capitalized[rank] : words[rank];
      }
      left--;
      first = false;
      if (left === 0) w += (top & 7) === 0 ? '?' : '.';
      else if (top % 17 === 1) w += ',';
      parts.push(w);
      length += w.length + 1;
    }
    return { text: parts.join(' '), words: plain };
  }
}

export type QueryKind = 'one' | 'two' | 'phrase';

export interface QuerySet {
  one: string[];
  two: string[];
  phrase: string[];
}

/**
 * 200 queries per kind by default. Words: a quarter each from the 100 most common words, ranks
 * 100–999, ranks 1000+ (rare) and the identifier pool. Phrases: 2–3 consecutive words lifted from
 * a random stored turn (so they match at least once; many contain common words).
 */
export function buildQueries(w: Workload, count = 200): QuerySet {
  const r = prng(mix(w.options.seed, 4, w.options.sessions));
  const { words, identifiers } = w.vocab;
  const word = (i: number) => {
    const bucket = i % 4;
    if (bucket === 0) return words[Math.floor(r() * 100)];
    if (bucket === 1) return words[100 + Math.floor(r() * 900)];
    if (bucket === 2) return words[1000 + Math.floor(r() * (words.length - 1000))];
    return identifiers[Math.floor(r() * identifiers.length)];
  };
  const one: string[] = [];
  const two: string[] = [];
  const phrase: string[] = [];
  for (let i = 0; i < count; i++) {
    one.push(word(i));
    two.push(`${word(i)} ${word(i + Math.floor(r() * 4))}`);
    const s = Math.floor(r() * w.options.sessions);
    const k = 1 + Math.floor(r() * w.options.turns);
    const plain = w.turnWords(s, k);
    const len = 2 + Math.floor(r() * 2);
    const at = Math.floor(r() * (plain.length - len));
    phrase.push('"' + plain.slice(at, at + len).join(' ') + '"');
  }
  return { one, two, phrase };
}
