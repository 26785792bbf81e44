// Deterministic extraction of what a finished session leaves behind as memories (docs/memory.md):
// decisions, constraints, preferences, facts and open questions, one typed memory per sentence,
// plus a short summary of the session. No language model: each kind has its own markers, and a
// sentence becomes at most one memory (the first kind, in that order, that claims it).

import { extractConstraints, extractEntities, ruleKey, type ExtractTurn } from './constraints';

export type MemoryKind = 'constraint' | 'decision' | 'preference' | 'open-question' | 'fact';

export interface ExtractedMemory {
  type: MemoryKind;
  content: string;
  importance: number;
  /** Focal entities the sentence names, comma separated (searchable as tags), or null. */
  tags: string | null;
  /** The turn it was said in. */
  seq: number;
}

export interface SessionExtraction {
  memories: ExtractedMemory[];
  summary: string;
}

const DECISION =
  /\b(we decided|i decided|decided to|decision:|we('ll| will| are going to) (go with|use|keep|switch to|adopt)|let's (go with|use|keep|switch to)|going with|we chose|chose to|agreed to|agreed on|settled on|we'll stick with|opted for)\b/i;
const PREFERENCE = /\b(i prefer|we prefer|prefers?|i'd rather|i would rather|my preference|i like to|i want .+ by default|by default,? i)\b/i;
const OPEN_MARKER =
  /\b(open question|still unclear|unresolved|not sure (whether|if|how)|to be decided|tbd|todo|still need to|remains to be (seen|decided)|we need to figure out|next step)\b/i;
const FACT =
  /\b(turns out|found that|root cause|the cause (is|was)|is defined in|lives in|is located in|is stored in|is configured in|runs on|listens on|note that|fyi|for the record|the (\w+ )?(port|version|path|url|endpoint|host|branch|database|schema) is)\b/i;

const MAX_CONTENT = 300;
const MAX_PER_KIND = 20;
const IMPORTANCE: Record<Exclude<MemoryKind, 'constraint'>, number> = { decision: 0.8, preference: 0.75, 'open-question': 0.7, fact: 0.6 };

function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) =>
      s
        .replace(/^[\s*>#-]+/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((s) => s.length >= 12 && s.length <= MAX_CONTENT);
}

/** The first `max` characters of a text on a word boundary. */
export function clipText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)) + '…';
}

/** Which kind (other than constraint) a sentence is, or null. `last`: it is in the session's last turn. */
function kindOf(sentence: string, role: string, last: boolean): Exclude<MemoryKind, 'constraint'> | null {
  if (sentence.endsWith('?')) return last || OPEN_MARKER.test(sentence) ? 'open-question' : null;
  if (DECISION.test(sentence)) return 'decision';
  if (role === 'user' && PREFERENCE.test(sentence)) return 'preference';
  if (OPEN_MARKER.test(sentence)) return 'open-question';
  if (FACT.test(sentence)) return 'fact';
  return null;
}

export function extractSessionMemories(turns: ExtractTurn[]): ExtractedMemory[] {
  const spoken = turns.filter((t) => t.role === 'user' || t.role === 'assistant');
  const entities = extractEntities(spoken).map((e) => e.name);
  const tagsOf = (content: string) => entities.filter((e) => content.includes(e)).join(',') || null;
  const seen = new Set<string>();
  const out: ExtractedMemory[] = [];
  const counts = new Map<MemoryKind, number>();
  const add = (memory: Omit<ExtractedMemory, 'tags'>) => {
    const key = ruleKey(memory.content);
    const n = counts.get(memory.type) ?? 0;
    if (seen.has(key) || n >= MAX_PER_KIND) return;
    seen.add(key);
    counts.set(memory.type, n + 1);
    out.push({ ...memory, tags: tagsOf(memory.content) });
  };
  // Rules first, with the importance the inherited constraints use (constraints.ts).
  for (const rule of extractConstraints(spoken)) add({ type: 'constraint', content: rule.content, importance: rule.importance, seq: rule.seq });
  const lastSeq = spoken.length ? spoken[spoken.length - 1].seq : -1;
  for (const turn of spoken) {
    for (const sentence of sentencesOf(turn.text)) {
      const kind = kindOf(sentence, turn.role, turn.seq === lastSeq);
      if (kind) add({ type: kind, content: sentence, importance: IMPORTANCE[kind], seq: turn.seq });
    }
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** A few lines saying what the session was about and what it left: its summary node. */
export function summarizeSession(
  session: { key: string; harness: string; project: string | null; title: string | null },
  turns: ExtractTurn[],
  memories: ExtractedMemory[],
): string {
  const prompts = turns.filter((t) => t.role === 'user');
  const lastAnswer = [...turns].reverse().find((t) => t.role === 'assistant');
  const of = (type: MemoryKind) => memories.filter((m) => m.type === type).map((m) => clipText(m.content, 160));
  const list = (label: string, items: string[]) => (items.length ? [`${label}: ${items.slice(0, 5).join(' | ')}`] : []);
  return [
    `Session ${session.key} (${session.harness}${session.project ? `, ${session.project}` : ''}): ${turns.length} turns.`,
    ...(session.title ? [`Title: ${clipText(session.title, 160)}`] : []),
    ...(prompts.length ? [`Goal: ${clipText(prompts[0].text, 240)}`] : []),
    ...list('Decisions', of('decision')),
    ...list('Constraints', of('constraint')),
    ...list('Open questions', of('open-question')),
    ...(lastAnswer ? [`Outcome: ${clipText(lastAnswer.text, 300)}`] : []),
  ].join('\n');
}

export function extractSession(session: Parameters<typeof summarizeSession>[0], turns: ExtractTurn[]): SessionExtraction {
  const memories = extractSessionMemories(turns);
  return { memories, summary: summarizeSession(session, turns, memories) };
}
