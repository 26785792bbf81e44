// The "Inherited from Parent Session" block: a pure function of what the store holds about the
// parent. Deterministic (same inputs, same bytes), no language model, secrets redacted, omitted
// when there is nothing to inherit.

import { redactSecrets } from './redact';

export interface InheritSettings {
  inheritContext: boolean;
  tailChars: number;
}

export const DEFAULT_INHERIT: InheritSettings = { inheritContext: true, tailChars: 3000 };

export interface InheritSources {
  parentKey: string;
  title: string | null;
  harness: string;
  checkpoint: { digest: string; focalEntities: string[]; createdAt: string } | null;
  /** The parent's transcript since its last checkpoint, already cut to the last tailChars characters. */
  tail: string;
  /** Whether the tail was cut (there was more before it). */
  tailTruncated: boolean;
  constraints: Array<{ entity: string; content: string }>;
}

export interface InheritBlock {
  text: string;
  sections: {
    header: string;
    checkpoint: string | null;
    recentContext: string | null;
    focalEntities: string[];
    constraints: string[];
  };
  chars: number;
  estimatedTokens: number;
}

export const INHERIT_HEADING = '## Inherited from Parent Session';

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? '  ' + line : ''))
    .join('\n');
}

/** About four characters a token for English prose and code: enough for budgeting and previews. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function assembleInheritBlock(src: InheritSources, settings: InheritSettings = DEFAULT_INHERIT): InheritBlock | null {
  if (!settings.inheritContext) return null;
  const digest = src.checkpoint?.digest.trim() ? redactSecrets(src.checkpoint.digest.trim()) : null;
  const tail = src.tail.trim() ? redactSecrets(src.tail.trim()) : null;
  if (!digest && !tail) return null;
  const focal = [...new Set(src.checkpoint?.focalEntities ?? [])].filter(Boolean);
  const constraints = src.constraints.map((c) => redactSecrets(`${c.entity}: ${c.content}`));
  const header = src.title?.trim() ? src.title.trim() : 'active session';
  const lines = [INHERIT_HEADING, '', `${header} (${src.harness} session ${src.parentKey})`];
  if (digest) lines.push('Checkpoint summary:', indent(digest));
  if (tail) lines.push(src.tailTruncated ? 'Recent context (most recent part):' : 'Recent context:', indent(tail));
  if (focal.length) lines.push(`Focal entities: ${focal.join(', ')}`);
  if (constraints.length) lines.push('Active constraints:', ...constraints.map((c) => `  - ${c}`));
  const text = lines.join('\n');
  return {
    text,
    sections: { header, checkpoint: digest, recentContext: tail, focalEntities: focal, constraints },
    chars: text.length,
    estimatedTokens: estimateTokens(text),
  };
}
