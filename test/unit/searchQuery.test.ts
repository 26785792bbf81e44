import { strict as assert } from 'node:assert';
import type { Database } from 'sql.js';
import { compileSearchQuery } from '../../src/core/searchQuery';
import { loadSqlJs } from '../../src/store/engine/sqljs';

const match = (raw: string): string | null => compileSearchQuery(raw).match;

/** The double-quoted strings of a compiled MATCH expression, in order. */
function quotedItems(m: string): string[] {
  return [...m.matchAll(/"([^"]*)"/g)].map((x) => x[1]);
}

/** What remains of a MATCH expression once every quoted item is removed: only our own syntax. */
function syntaxOutsideQuotes(m: string): string {
  return m.replace(/"[^"]*"/g, '""');
}

/** Deterministic PRNG (mulberry32) so the random corpus is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE: string[] = [
  'hello world',
  '"hello world"',
  '"unterminated phrase',
  '"',
  '""',
  '"""',
  '-',
  '--',
  '- -',
  '-foo',
  '-"a b"',
  'session:abc',
  'session:',
  ':abc',
  '*',
  '**',
  'foo*',
  '*foo',
  'foo**',
  '"foo*"',
  'OR',
  'OR foo',
  'foo OR',
  'foo OR OR bar',
  'OR OR OR',
  'NOT',
  'NOT foo',
  'NOT NOT foo',
  'foo NOT',
  'foo NOT NOT',
  'NEAR',
  'foo NEAR bar',
  'foo NEAR/3 bar',
  'NEAR/3',
  'AND',
  'foo AND bar',
  'AND OR NOT NEAR',
  '(foo bar)',
  '(',
  ')',
  '()',
  '((foo OR bar) NOT baz)',
  'foo) OR (bar',
  'café',
  'crème brûlée',
  '日本語 テスト',
  '中文',
  '🚀',
  '🚀 rocket',
  '👨‍👩‍👧',
  '\u0301',
  'e\u0301',
  'ß İ ǅ',
  '',
  '   ',
  '\t\n\r',
  'fo"o',
  'a"b"c',
  '"a""b"',
  "'; DROP TABLE x; --",
  "' OR 1=1 --",
  'x MATCH y',
  '^foo',
  'foo^',
  '~foo',
  'col:term',
  'text:hello',
  'docid:1',
  '{a b}',
  '\\"',
  '\\',
  '\u0000',
  'a\u0000b',
  'x OR -y',
  '-x OR y',
  'a OR NOT b',
  '"a" OR "b"',
  '-"" x',
  'foo -',
  'foo -*',
  'foo -OR bar',
  'foo -NOT bar',
  '"NOT" "OR" "AND" "NEAR"',
  'x'.repeat(10_000),
  'word '.repeat(2_000),
  '"' + 'a '.repeat(4_999),
  '-a '.repeat(3_000),
  'OR '.repeat(3_000),
  '"('.repeat(5_000),
  'a OR '.repeat(2_000),
  '🚀'.repeat(5_000),
  'é'.repeat(10_001),
];

function randomCorpus(count: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  const pieces = [
    '"',
    '(',
    ')',
    '*',
    '-',
    ':',
    '^',
    '~',
    '/',
    ' ',
    ' ',
    ' ',
    '\t',
    'O',
    'R',
    'N',
    'T',
    'A',
    'D',
    'E',
    'OR',
    'NOT',
    'AND',
    'NEAR',
    'NEAR/2',
    'a',
    'b',
    'z',
    'hello',
    'world',
    'x',
    'Q',
    '0',
    '7',
    '42',
    'é',
    'ü',
    'ñ',
    '日本',
    '語',
    '한',
    '🚀',
    '😀',
    '\u0301',
    'ß',
    'İ',
    '\u200d',
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    // Mostly short strings, one in ten long (up to 300 pieces).
    const len = 1 + Math.floor(rnd() * (i % 10 === 0 ? 300 : 30));
    let s = '';
    for (let j = 0; j < len; j++) s += pieces[Math.floor(rnd() * pieces.length)];
    out.push(s);
  }
  return out;
}

describe('compileSearchQuery', () => {
  describe('required words (what every match must contain)', () => {
    it('lists the words of standalone items, phrases included', () => {
      assert.deepEqual(compileSearchQuery('deploy "staging cluster" v2').requiredWords, ['deploy', 'staging', 'cluster', 'v2']);
    });

    it('leaves out OR alternatives, exclusions and prefixes, which a match need not contain as such', () => {
      assert.deepEqual(compileSearchQuery('alpha OR beta gamma -delta NOT epsilon zeta*').requiredWords, ['gamma']);
    });

    it("leaves out words that are not plain ASCII letters and digits (their tokenisation is SQLite's call)", () => {
      assert.deepEqual(compileSearchQuery('café naïve résumé plain 東京 x1').requiredWords, ['plain', 'x1']);
    });
  });

  describe('phrases (a query of phrases that must all occur)', () => {
    it('lists the phrases in the order of the MATCH expression, a word as a phrase of one', () => {
      const compiled = compileSearchQuery('deploy "staging cluster" v2 are_you');
      assert.equal(compiled.match, '"deploy" "staging cluster" "v2" "are you"');
      assert.deepEqual(compiled.phrases, [['deploy'], ['staging', 'cluster'], ['v2'], ['are', 'you']]);
    });

    it('is null when a match need not contain every item as typed: OR, exclusions, prefixes', () => {
      for (const query of ['alpha OR beta', 'alpha -beta', 'alpha NOT beta', 'alpha beta*']) assert.equal(compileSearchQuery(query).phrases, null, query);
    });

    it('is null when a word is not plain ASCII letters and digits, and when nothing is searchable', () => {
      assert.equal(compileSearchQuery('café plain').phrases, null);
      assert.equal(compileSearchQuery('東京 x1').phrases, null);
      assert.equal(compileSearchQuery('  ').phrases, null);
    });
  });

  describe('plain words and phrases', () => {
    it('quotes each plain word and lower-cases it', () => {
      assert.deepEqual(compileSearchQuery('Hello World'), {
        match: '"hello" "world"',
        terms: ['hello', 'world'],
        prefixTerms: [],
        requiredWords: ['hello', 'world'],
        phrases: [['hello'], ['world']],
      });
    });

    it('keeps a quoted phrase as one quoted item', () => {
      assert.deepEqual(compileSearchQuery('"hello world"'), {
        match: '"hello world"',
        terms: ['hello', 'world'],
        prefixTerms: [],
        requiredWords: ['hello', 'world'],
        phrases: [['hello', 'world']],
      });
    });

    it('mixes phrases and words in order', () => {
      assert.equal(match('alpha "beta gamma" delta'), '"alpha" "beta gamma" "delta"');
    });

    it('treats an unterminated quote as a phrase running to the end', () => {
      assert.deepEqual(compileSearchQuery('"unterminated phrase'), {
        match: '"unterminated phrase"',
        terms: ['unterminated', 'phrase'],
        prefixTerms: [],
        requiredWords: ['unterminated', 'phrase'],
        phrases: [['unterminated', 'phrase']],
      });
      assert.equal(match('x "y'), '"x" "y"');
    });

    it('drops empty phrases', () => {
      assert.equal(match('"" x'), '"x"');
      assert.equal(match('""'), null);
    });

    it('deduplicates terms but not items', () => {
      assert.deepEqual(compileSearchQuery('a a'), { match: '"a" "a"', terms: ['a'], prefixTerms: [], requiredWords: ['a'], phrases: [['a'], ['a']] });
    });
  });

  describe('punctuation is text, never syntax', () => {
    it('a bare "-" is nothing', () => {
      assert.deepEqual(compileSearchQuery('-'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
      assert.equal(match('foo -'), '"foo"');
    });

    it('a colon splits words into a phrase (no column filter)', () => {
      assert.deepEqual(compileSearchQuery('session:abc'), {
        match: '"session abc"',
        terms: ['session', 'abc'],
        prefixTerms: [],
        requiredWords: ['session', 'abc'],
        phrases: [['session', 'abc']],
      });
      assert.equal(match('text:hello'), '"text hello"');
    });

    it('a hyphen inside a word makes a phrase', () => {
      assert.equal(match('a-b'), '"a b"');
    });

    it('"*" alone is nothing', () => {
      assert.deepEqual(compileSearchQuery('*'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
      assert.equal(match('**'), null);
    });

    it('a leading "*" is not a prefix', () => {
      assert.equal(match('*foo'), '"foo"');
    });

    it('NEAR, NEAR/n and AND are searched as plain words', () => {
      assert.equal(match('foo NEAR bar'), '"foo" "near" "bar"');
      assert.equal(match('NEAR/3'), '"near 3"');
      assert.equal(match('foo AND bar'), '"foo" "and" "bar"');
    });

    it('parentheses typed by the user are dropped', () => {
      assert.equal(match('(foo bar)'), '"foo" "bar"');
      assert.equal(match('()'), null);
      assert.equal(match('((foo OR bar) NOT baz)'), '("foo" OR "bar") NOT "baz"');
      assert.equal(match('foo) OR (bar'), '("foo" OR "bar")');
    });

    it('lower-case or/not are words, not operators', () => {
      assert.equal(match('or foo'), '"or" "foo"');
      assert.equal(match('foo not bar'), '"foo" "not" "bar"');
    });

    it('a double quote inside a word splits it and never reaches the output unescaped', () => {
      assert.equal(match('fo"o'), '"fo o"');
      assert.equal(match('foo" bar'), '"foo" "bar"');
      assert.equal(match('a"b"c'), '"a b c"');
    });

    it('SQL-looking input is just words', () => {
      assert.deepEqual(compileSearchQuery("'; DROP TABLE x; --"), {
        match: '"drop" "table" "x"',
        terms: ['drop', 'table', 'x'],
        prefixTerms: [],
        requiredWords: ['drop', 'table', 'x'],
        phrases: [['drop'], ['table'], ['x']],
      });
      assert.equal(match("' OR 1=1 --"), '"1 1"');
    });

    it('^ and ~ are dropped', () => {
      assert.equal(match('^foo~'), '"foo"');
    });
  });

  describe('operators', () => {
    it('-word excludes alongside a positive term', () => {
      assert.deepEqual(compileSearchQuery('bar -foo'), { match: '"bar" NOT "foo"', terms: ['bar'], prefixTerms: [], requiredWords: ['bar'], phrases: null });
      assert.equal(match('-foo bar'), '"bar" NOT "foo"');
    });

    it('-"phrase" excludes a phrase', () => {
      assert.equal(match('-"a b" c'), '"c" NOT "a b"');
    });

    it('NOT word excludes alongside a positive term', () => {
      assert.deepEqual(compileSearchQuery('foo NOT bar'), { match: '"foo" NOT "bar"', terms: ['foo'], prefixTerms: [], requiredWords: ['foo'], phrases: null });
      assert.equal(match('NOT foo bar'), '"bar" NOT "foo"');
      assert.equal(match('foo NOT "x y"'), '"foo" NOT "x y"');
    });

    it('exclusions alone give no match', () => {
      assert.deepEqual(compileSearchQuery('-foo'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
      assert.deepEqual(compileSearchQuery('NOT foo'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
      assert.deepEqual(compileSearchQuery('-a -b NOT c'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
    });

    it('NOT alone, doubled or trailing is nothing', () => {
      assert.deepEqual(compileSearchQuery('NOT'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
      assert.equal(match('NOT NOT foo'), null);
      assert.equal(match('foo NOT'), '"foo"');
    });

    it('word* is a prefix query; extra stars collapse', () => {
      assert.deepEqual(compileSearchQuery('foo*'), { match: '"foo*"', terms: ['foo'], prefixTerms: ['foo'], requiredWords: [], phrases: null });
      assert.equal(match('foo**'), '"foo*"');
      assert.equal(match('session:ab*'), '"session ab*"');
    });

    it('a star inside quotes is not a prefix', () => {
      assert.equal(match('"foo*"'), '"foo"');
    });

    it('OR joins two items into a parenthesised group', () => {
      assert.deepEqual(compileSearchQuery('a OR b'), { match: '("a" OR "b")', terms: ['a', 'b'], prefixTerms: [], requiredWords: [], phrases: null });
      assert.equal(match('a OR b OR c'), '("a" OR "b" OR "c")');
      assert.equal(match('x a OR b y'), '"x" ("a" OR "b") "y"');
      assert.equal(match('"a b" OR c*'), '("a b" OR "c*")');
    });

    it('OR at the start, at the end or doubled is harmless', () => {
      assert.equal(match('OR foo'), '"foo"');
      assert.equal(match('foo OR'), '"foo"');
      assert.equal(match('foo OR OR bar'), '("foo" OR "bar")');
      assert.deepEqual(compileSearchQuery('OR'), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null });
      assert.equal(match('OR OR OR'), null);
    });

    it('OR before an exclusion does not group', () => {
      assert.equal(match('x OR -y'), '"x" NOT "y"');
      assert.equal(match('x OR -y z'), '"x" "z" NOT "y"');
    });
  });

  describe('unicode', () => {
    it('keeps accented words', () => {
      assert.deepEqual(compileSearchQuery('Café CRÈME'), {
        match: '"café" "crème"',
        terms: ['café', 'crème'],
        prefixTerms: [],
        requiredWords: [],
        phrases: null,
      });
    });

    it('keeps CJK text', () => {
      assert.equal(match('日本語 テスト'), '"日本語" "テスト"');
    });

    it('drops emoji but keeps the words next to them', () => {
      assert.equal(match('🚀 rocket'), '"rocket"');
      assert.equal(match('🚀'), null);
      assert.equal(match('go🚀now'), '"go now"');
    });

    it('keeps combining marks with their letter', () => {
      assert.equal(match('e\u0301t\u00e9'), '"e\u0301t\u00e9"');
    });
  });

  describe('bounds', () => {
    it('empty and whitespace-only text gives no match', () => {
      for (const raw of ['', ' ', '   ', '\t\n\r '])
        assert.deepEqual(compileSearchQuery(raw), { match: null, terms: [], prefixTerms: [], requiredWords: [], phrases: null }, JSON.stringify(raw));
    });

    it('null/undefined text gives no match', () => {
      assert.equal(match(undefined as unknown as string), null);
      assert.equal(match(null as unknown as string), null);
    });

    it('a 10,000-word input yields at most 32 items', () => {
      const raw = Array.from({ length: 5_000 }, (_, i) => `w${i}`).join(' ');
      const m = match(raw)!;
      assert.equal(quotedItems(m).length, 32);
      assert.equal(quotedItems(m)[31], 'w31');
    });

    it('a 10,000-character single word yields one quoted word of at most 64 characters', () => {
      assert.equal(match('x'.repeat(10_000)), '"' + 'x'.repeat(64) + '"');
    });

    it('exclusions count towards the 32 items', () => {
      const raw = Array.from({ length: 40 }, (_, i) => `-n${i}`).join(' ') + ' keep';
      assert.equal(match(raw), null, 'the positive term comes after the first 32 items');
    });

    it('input beyond 10,000 characters is ignored', () => {
      const raw = ' '.repeat(10_000) + 'late';
      assert.equal(match(raw), null);
    });
  });

  describe('every term is quoted', () => {
    it('outside the quotes only OR, NOT, parentheses and spaces appear', () => {
      for (const raw of [...HOSTILE, ...randomCorpus(300, 7)]) {
        const m = match(raw);
        if (m === null) continue;
        const rest = syntaxOutsideQuotes(m);
        assert.match(rest, /^(?:""|\(|\)| |OR|NOT)+$/, `${JSON.stringify(raw)} -> ${m}`);
        // Quoted items hold only lower-case words, spaces and an optional trailing *.
        for (const item of quotedItems(m)) {
          assert.match(item, /^[\p{L}\p{N}\p{M}]+(?: [\p{L}\p{N}\p{M}]+)*\*?$/u, `${JSON.stringify(raw)} -> ${m}`);
          assert.equal(item, item.toLowerCase());
        }
        assert.ok(quotedItems(m).length <= 32, `${JSON.stringify(raw).slice(0, 80)} has ${quotedItems(m).length} items`);
      }
    });
  });

  describe('against a real sql.js FTS4 table', () => {
    let db: Database;
    const ROWS: Array<[number, string]> = [
      [1, 'hello world'],
      [2, 'world hello'],
      [3, 'hello there big world'],
      [4, 'café crème brûlée'],
      [5, 'foobar baz'],
      [6, 'foo qux'],
      [7, '日本語 テスト'],
      [8, 'session abc started'],
      [9, 'abc session'],
    ];

    before(async () => {
      const SQL = await loadSqlJs();
      db = new SQL.Database();
      db.run('CREATE VIRTUAL TABLE t USING fts4(text, tokenize=unicode61)');
      for (const [id, text] of ROWS) db.run('INSERT INTO t(docid, text) VALUES (?, ?)', [id, text]);
    });

    after(() => db.close());

    function docids(raw: string): number[] {
      const m = match(raw);
      assert.notEqual(m, null, `${raw} compiled to null`);
      const res = db.exec('SELECT docid FROM t WHERE t MATCH ? ORDER BY docid', [m]);
      return res.length === 0 ? [] : res[0].values.map((r) => Number(r[0]));
    }

    it('no compiled query ever throws (hostile + 400 seeded random inputs)', () => {
      const corpus = [...HOSTILE, ...randomCorpus(400, 20240601)];
      let ran = 0;
      const failures: string[] = [];
      for (const raw of corpus) {
        const m = match(raw);
        if (m === null) continue;
        try {
          db.exec('SELECT docid FROM t WHERE t MATCH ?', [m]);
          ran++;
        } catch (e) {
          failures.push(`${JSON.stringify(raw).slice(0, 120)} -> ${m.slice(0, 200)}: ${(e as Error).message}`);
        }
      }
      assert.deepEqual(failures, []);
      // The corpus must actually exercise SQLite, not compile to null throughout.
      assert.ok(ran >= 300, `only ${ran} queries reached SQLite`);
    });

    it('the random corpus is deterministic', () => {
      assert.deepEqual(randomCorpus(5, 1), randomCorpus(5, 1));
      assert.notDeepEqual(randomCorpus(5, 1), randomCorpus(5, 2));
    });

    it('plain words match in any order (implicit AND)', () => {
      assert.deepEqual(docids('world hello'), [1, 2, 3]);
    });

    it('a phrase matches only adjacent words in order', () => {
      assert.deepEqual(docids('"hello world"'), [1]);
      assert.deepEqual(docids('"world hello"'), [2]);
    });

    it('a colon-joined query is a phrase', () => {
      assert.deepEqual(docids('session:abc'), [8]);
    });

    it('an exclusion removes rows', () => {
      assert.deepEqual(docids('hello -there'), [1, 2]);
      assert.deepEqual(docids('hello NOT there'), [1, 2]);
      assert.deepEqual(docids('world -"hello world"'), [2, 3]);
    });

    it('a prefix matches longer words; without * it does not', () => {
      assert.deepEqual(docids('foo*'), [5, 6]);
      assert.deepEqual(docids('foo'), [6]);
    });

    it('OR unions', () => {
      assert.deepEqual(docids('qux OR baz'), [5, 6]);
      assert.deepEqual(docids('hello qux OR there'), [3]);
    });

    it('é matches e and e matches é (unicode61 folds diacritics)', () => {
      assert.deepEqual(docids('cafe'), [4]);
      assert.deepEqual(docids('brulee'), [4]);
      assert.deepEqual(docids('café'), [4]);
      assert.deepEqual(docids('CAFÉ'), [4]);
    });

    it('CJK words match', () => {
      assert.deepEqual(docids('日本語'), [7]);
    });

    it('operator words typed by the user are searched as words', () => {
      db.run("INSERT INTO t(docid, text) VALUES (100, 'near and far')");
      try {
        assert.deepEqual(docids('NEAR AND'), [100]);
        assert.deepEqual(docids('hello NEAR world'), []);
      } finally {
        db.run('DELETE FROM t WHERE docid = 100');
      }
    });

    it('SQL-looking input neither throws nor touches the table', () => {
      assert.deepEqual(docids("'; DROP TABLE t; --"), []);
      assert.equal(db.exec('SELECT count(*) FROM t')[0].values[0][0], ROWS.length);
    });

    // FTS4 cannot rebalance NOT chains (SQLITE_FTS3_MAX_EXPR_DEPTH = 12): one nested NOT per
    // exclusion made 12 or more exclusions a "malformed MATCH expression". compileSearchQuery puts
    // all exclusions under one NOT.
    it('12 or more exclusions still compile to a valid MATCH expression', () => {
      const raw = 'hello ' + Array.from({ length: 12 }, (_, i) => `-x${i}`).join(' ');
      assert.deepEqual(docids(raw), [1, 2, 3]);
    });
  });
});
