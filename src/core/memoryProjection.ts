// MEMORY.md as a deterministic projection of an agent's memory (docs/memory.md, "MEMORY.md"): six
// sections, each filled from stored rows, never from a model. Pure: the server gathers the rows.

import { ruleKey } from './constraints';
import { clipText } from './memoryExtraction';

export interface ProjectionMemory {
  id: string;
  content: string;
  type: string | null;
  tags: string | null;
  sessionKey: string | null;
  importance: number;
  createdAt: string;
}

export interface ProjectionSummary {
  id: string;
  kind: string;
  sessionKey: string | null;
  content: string;
  createdAt: string;
}

export interface ProjectionSession {
  key: string;
  harness: string;
  project: string | null;
  title: string | null;
  status: string;
  turnCount: number;
  parentSessionKey: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectionConstraint {
  entity: string;
  content: string;
  importance: number;
  sessionKey: string | null;
}

export interface ProjectionInput {
  agentId: string;
  /** The session the synthesis is for: its thread comes first and is marked. */
  sessionKey: string | null;
  generatedAt: string;
  /** Ranked memories for the Global Head (types with sections of their own left out). */
  head: ProjectionMemory[];
  openQuestions: ProjectionMemory[];
  constraintMemories: ProjectionMemory[];
  constraints: ProjectionConstraint[];
  /** Newest first. */
  summaries: ProjectionSummary[];
  /** parent → child links between summary nodes. */
  links: Array<{ parentId: string; childId: string }>;
  /** Sessions updated in the ledger window, newest first. */
  ledger: ProjectionSession[];
  active: ProjectionSession[];
  memoryCounts: Record<string, number>;
}

export const PROJECTION_SECTIONS = [
  '## Global Head (Tier 1)',
  '## Thread Heads (Tier 2)',
  '## Session Ledger (Last 30 Days)',
  '## Open Threads',
  '## Durable Notes & Constraints',
  '## Temporal Index',
] as const;

const day = (iso: string) => iso.slice(0, 10);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const firstLine = (text: string) => text.split('\n').find((l) => l.trim()) ?? '';

function orNone(lines: string[], none: string): string[] {
  return lines.length ? lines : [`- ${none}`];
}

function globalHead(input: ProjectionInput): string[] {
  return orNone(
    input.head.map((m) => `- ${m.type ? `[${m.type}] ` : ''}${clipText(m.content, 300)} (${day(m.createdAt)}${m.sessionKey ? `, ${m.sessionKey}` : ''})`),
    'no memories yet',
  );
}

/** The newest summary of each session, as a tree along the summary links; the current thread first. */
function threadHeads(input: ProjectionInput): string[] {
  const newest = new Map<string, ProjectionSummary>();
  for (const s of input.summaries) {
    const key = s.sessionKey ?? s.id;
    if ((s.kind === 'session' || s.kind === 'compaction') && !newest.has(key)) newest.set(key, s);
  }
  const heads = [...newest.values()];
  const byId = new Map(heads.map((h) => [h.id, h]));
  const parentOf = new Map<string, string>();
  for (const l of input.links) if (byId.has(l.parentId) && byId.has(l.childId)) parentOf.set(l.childId, l.parentId);
  const childrenOf = (id: string) => heads.filter((h) => parentOf.get(h.id) === id);
  const inThread = (h: ProjectionSummary): boolean => h.sessionKey === input.sessionKey || childrenOf(h.id).some(inThread);
  const roots = heads.filter((h) => !parentOf.has(h.id));
  if (input.sessionKey) roots.sort((a, b) => Number(inThread(b)) - Number(inThread(a)));
  const lines: string[] = [];
  const visit = (h: ProjectionSummary, depth: number) => {
    if (depth > 8 || lines.length >= 40) return;
    const current = input.sessionKey && h.sessionKey === input.sessionKey ? ' (current)' : '';
    const gist = h.content
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' · ');
    lines.push(`${'  '.repeat(depth)}- ${h.sessionKey ?? h.id}${current} [${h.kind}, ${day(h.createdAt)}]: ${clipText(gist, 300)}`);
    for (const c of childrenOf(h.id)) visit(c, depth + 1);
  };
  for (const r of roots) visit(r, 0);
  return orNone(lines, 'no session summaries yet');
}

function sessionLedger(input: ProjectionInput): string[] {
  return orNone(
    input.ledger.map((s) => {
      const where = [s.harness, s.project].filter(Boolean).join(', ');
      const parent = s.parentSessionKey ? `, sub-agent of ${s.parentSessionKey}` : '';
      const memories = input.memoryCounts[s.key] ? `, ${plural(input.memoryCounts[s.key], 'memory', 'memories')}` : '';
      const title = s.title ? ` "${clipText(s.title, 80)}"` : '';
      return `- ${day(s.updatedAt)} ${s.key}${title} (${where}${parent}): ${s.status}, ${plural(s.turnCount, 'turn')}${memories}`;
    }),
    'no sessions in the last 30 days',
  );
}

function openThreads(input: ProjectionInput): string[] {
  const questions = input.openQuestions.map((m) => `- ${clipText(m.content, 240)} (${m.sessionKey ?? 'no session'}, ${day(m.createdAt)})`);
  const active = input.active.map((s) => `- still active: ${s.key} (${s.harness}${s.title ? `, "${clipText(s.title, 80)}"` : ''}) since ${day(s.createdAt)}`);
  return orNone([...questions, ...active], 'nothing open');
}

/** Active constraints and constraint memories, each rule once, strongest first. */
function durableNotes(input: ProjectionInput): string[] {
  const seen = new Set<string>();
  const rules: Array<{ line: string; importance: number }> = [];
  for (const c of input.constraints) {
    const key = ruleKey(c.content);
    if (seen.has(key)) continue;
    seen.add(key);
    rules.push({ line: `- ${clipText(c.content, 300)}${c.entity !== 'rules' ? ` (${c.entity})` : ''}`, importance: c.importance });
  }
  for (const m of input.constraintMemories) {
    const key = ruleKey(m.content);
    if (seen.has(key)) continue;
    seen.add(key);
    rules.push({ line: `- ${clipText(m.content, 300)}${m.sessionKey ? ` (from ${m.sessionKey})` : ''}`, importance: m.importance });
  }
  return orNone(
    rules
      .sort((a, b) => b.importance - a.importance)
      .slice(0, 40)
      .map((r) => r.line),
    'no constraints recorded',
  );
}

export function temporalIndex(input: ProjectionInput): string {
  return [
    '## Temporal Index',
    ...orNone(
      input.summaries.map(
        (s) =>
          `- ${s.createdAt.slice(0, 16).replace('T', ' ')} ${s.kind} ${s.id}${s.sessionKey ? ` (${s.sessionKey})` : ''}: ${clipText(firstLine(s.content), 120)}`,
      ),
      'no summary nodes yet',
    ),
  ].join('\n');
}

export function renderProjection(input: ProjectionInput): { markdown: string; indexBlock: string } {
  const indexBlock = temporalIndex(input);
  const markdown = [
    '# Memory',
    '',
    `Agent: ${input.agentId}${input.sessionKey ? ` · session: ${input.sessionKey}` : ''} · generated ${input.generatedAt}`,
    '',
    PROJECTION_SECTIONS[0],
    ...globalHead(input),
    '',
    PROJECTION_SECTIONS[1],
    ...threadHeads(input),
    '',
    PROJECTION_SECTIONS[2],
    ...sessionLedger(input),
    '',
    PROJECTION_SECTIONS[3],
    ...openThreads(input),
    '',
    PROJECTION_SECTIONS[4],
    ...durableNotes(input),
    '',
    indexBlock,
    '',
  ].join('\n');
  return { markdown, indexBlock };
}
