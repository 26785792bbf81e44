// Deterministic extraction of the rules a session states (constraints) and the things it keeps
// naming (focal entities). No language model: sentences with an imperative marker become
// constraints; files, symbols and tickets named at least twice become focal entities.

export interface ExtractTurn {
  seq: number;
  role: string;
  text: string;
}

export interface ExtractedConstraint {
  content: string;
  importance: number;
  /** The turn the rule was stated in. */
  seq: number;
  role: string;
}

export interface ExtractedEntity {
  name: string;
  mentions: number;
  /** file, ticket or symbol: which pattern found it. */
  kind: string;
  /** The turn it was first named in. */
  seq: number;
  /** 0.5 for two mentions, rising with more, at most 0.9. */
  importance: number;
}

const MARKER = /\b(never|always|must not|mustn't|must|do not|don't|shall not|under no circumstances)\b/i;
const STRONG = /\b(never|must not|mustn't|do not|don't|shall not|under no circumstances)\b/i;
const MAX_RULE = 300;

function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Normal form used to tell two statements of the same rule apart from two rules. */
export function ruleKey(content: string): string {
  return content
    .toLowerCase()
    .replace(/[^a-z0-9_./-]+/g, ' ')
    .trim();
}

export function extractConstraints(turns: ExtractTurn[]): ExtractedConstraint[] {
  const seen = new Set<string>();
  const out: ExtractedConstraint[] = [];
  for (const turn of turns) {
    if (turn.role !== 'user' && turn.role !== 'assistant') continue;
    for (const sentence of sentences(turn.text)) {
      if (sentence.length < 8 || sentence.length > MAX_RULE || !MARKER.test(sentence)) continue;
      // Questions are not rules ("should we never cache?").
      if (sentence.endsWith('?')) continue;
      const key = ruleKey(sentence);
      if (seen.has(key)) continue;
      seen.add(key);
      const importance = (turn.role === 'user' ? 0.8 : 0.6) + (STRONG.test(sentence) ? 0.1 : 0);
      out.push({ content: sentence, importance: Math.round(importance * 100) / 100, seq: turn.seq, role: turn.role });
    }
  }
  return out;
}

const ENTITY_PATTERNS: Array<[RegExp, string]> = [
  [/\b[\w./-]+\.(?:ts|tsx|js|mjs|cjs|json|md|py|go|rs|java|rb|sql|yml|yaml|toml|sh|css|html)\b/g, 'file'],
  [/\b[A-Z][A-Z0-9]+-\d+\b/g, 'ticket'],
  [/\b[a-z]+(?:[A-Z][a-z0-9]+)+\b/g, 'symbol'], // camelCase
  [/\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b/g, 'symbol'], // PascalCase
  [/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, 'symbol'], // snake_case
];

export function extractEntities(turns: ExtractTurn[], max = 12): ExtractedEntity[] {
  const counts = new Map<string, { mentions: number; first: number; kind: string; seq: number }>();
  let order = 0;
  for (const turn of turns) {
    for (const [pattern, kind] of ENTITY_PATTERNS) {
      for (const m of turn.text.matchAll(pattern)) {
        const name = m[0].replace(/[./-]+$/, '');
        if (name.length < 3) continue;
        const c = counts.get(name) ?? { mentions: 0, first: order++, kind, seq: turn.seq };
        c.mentions++;
        counts.set(name, c);
      }
    }
  }
  return [...counts.entries()]
    .filter(([, c]) => c.mentions >= 2)
    .sort((a, b) => b[1].mentions - a[1].mentions || a[1].first - b[1].first)
    .slice(0, max)
    .map(([name, c]) => ({
      name,
      mentions: c.mentions,
      kind: c.kind,
      seq: c.seq,
      importance: Math.min(0.9, Math.round((0.4 + 0.05 * c.mentions) * 100) / 100),
    }));
}

/** The entity a rule is about: the first focal entity it names, else the session's rules. */
export function ruleEntity(content: string, entities: string[]): string {
  return entities.find((e) => content.includes(e)) ?? 'rules';
}
