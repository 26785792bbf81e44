// How a search hit is written, for every surface: the CLI, the MCP and language-model tools, the
// chat participant and the search quick pick. One formatter; a surface picks its markup and the
// facts it shows with a small options object instead of keeping its own copy of the line.

import { age } from './format';

/** What a rendering reads of a hit (the API's hit view has it). */
export interface HitLike {
  sessionKey: string;
  title: string | null;
  harness: string;
  project: string | null;
  updatedAt: string;
  turnSeq: number;
  /** Hits marked [[like this]] (core/snippet.ts). */
  excerpt: string;
}

/** How the [[hit]] marks of an excerpt are shown: kept, as markdown bold, or as «guillemets» for plain text. */
export type HitMarks = 'brackets' | 'bold' | 'guillemets';

/** A fact about the hit's session; one that is unknown (no project) is left out. */
export type HitFact = 'harness' | 'project' | 'updatedAt' | 'updated' | 'age' | 'turn';

export interface HitFormat {
  /** Opens the line: '- ' for a list item, 'session ' for a labelled one. */
  lead?: string;
  /** The key as written (the chat makes it a link); the plain key by default. */
  key?(hit: HitLike): string;
  /** The title: quoted after the key (`key "title"`) or curly-quoted opening the facts (`“title”, `). */
  title?: 'quoted' | 'curly';
  facts: HitFact[];
  /**
   * Where facts and excerpt go: `key (facts): excerpt` on one line; `key — facts` with the excerpt
   * quoted below (markdown); `key  facts` in columns with the excerpt indented below (a terminal).
   */
  layout: 'inline' | 'quoted' | 'columns';
  marks?: HitMarks;
}

export function markedExcerpt(excerpt: string, marks: HitMarks = 'brackets'): string {
  if (marks === 'bold') return excerpt.replace(/\[\[/g, '**').replace(/\]\]/g, '**');
  if (marks === 'guillemets') return excerpt.replace(/\[\[/g, '«').replace(/\]\]/g, '»');
  return excerpt;
}

/** The facts as written, in order, unknown ones left out. */
export function hitFacts(hit: HitLike, facts: HitFact[], now = Date.now()): string[] {
  const text: Record<HitFact, string | null> = {
    harness: hit.harness,
    project: hit.project,
    updatedAt: hit.updatedAt,
    updated: `updated ${hit.updatedAt}`,
    age: `${age(hit.updatedAt, now)} ago`,
    turn: `turn ${hit.turnSeq}`,
  };
  return facts.map((fact) => text[fact]).filter((value): value is string => Boolean(value));
}

export function formatHit(hit: HitLike, format: HitFormat, now = Date.now()): string {
  const key = (format.lead ?? '') + (format.key ? format.key(hit) : hit.sessionKey);
  const facts = hitFacts(hit, format.facts, now);
  if (format.title === 'curly' && hit.title) facts.unshift(`“${hit.title}”`);
  const head = format.title === 'quoted' && hit.title ? `${key} "${hit.title}"` : key;
  const excerpt = markedExcerpt(hit.excerpt, format.marks);
  if (format.layout === 'columns') return `${[head, ...facts].join('  ')}\n  ${excerpt}`;
  if (format.layout === 'quoted') return `${head} — ${facts.join(', ')}\n  > ${excerpt}`;
  return `${head}${facts.length ? ` (${facts.join(', ')})` : ''}: ${excerpt}`;
}

/**
 * Each surface's format. `chat` is markdown (the participant gives it a `key` that links to the
 * transcript); `chatContext` is what the chat model reads; `lmTool` and `mcpTool` are the tools'
 * lines (toolCatalogue.ts); `terminal` is `baton search`.
 */
export const HIT_FORMATS = {
  terminal: { facts: ['harness', 'updatedAt', 'project'], layout: 'columns' },
  mcpTool: { lead: '- ', title: 'quoted', facts: ['harness', 'project', 'updatedAt'], layout: 'inline' },
  lmTool: { lead: 'session ', title: 'quoted', facts: ['harness', 'updated', 'turn'], layout: 'inline' },
  chat: { lead: '- ', title: 'curly', facts: ['harness', 'age'], layout: 'quoted', marks: 'bold' },
  chatContext: { lead: '- ', facts: [], layout: 'inline' },
} satisfies Record<string, HitFormat>;

/** The hits one a line (or one a block, for layouts with the excerpt below). */
export function formatHits(hits: HitLike[], format: HitFormat, now = Date.now()): string {
  return hits.map((hit) => formatHit(hit, format, now)).join('\n');
}
