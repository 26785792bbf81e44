// The "Sub-agents of this session" section: after a compaction the parent has forgotten which
// sub-agents it ran and what they found; this reminds it, once, at its next prompt
// (docs/inheritance.md, "Children survive compaction"). Pure and deterministic.

import { cutHead } from './inherit';
import { redactSecrets } from './redact';

export interface SubagentSummary {
  /** The child's session, when it has one (a harness sub-agent or a run's child session). */
  sessionKey: string | null;
  /** The run that spawned it, when there is one. */
  runId: string | null;
  /** The sub-agent type (Explore, code-reviewer…) or the run's runner. */
  type: string | null;
  task: string | null;
  status: string;
  result: string | null;
  at: string;
}

export const SUBAGENTS_HEADING = '## Sub-agents of this session';

const MAX_LISTED = 20;
const TASK_CHARS = 200;
const RESULT_CHARS = 500;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The section for these children (oldest first), or '' when there are none. `afterCompaction`:
 * the reminder a parent gets at its first prompt after compacting, which says why it is there.
 */
export function formatSubagentDigest(children: SubagentSummary[], afterCompaction: boolean): string {
  if (children.length === 0) return '';
  const shown = children.slice(-MAX_LISTED);
  const lines = [SUBAGENTS_HEADING, '', `${afterCompaction ? 'Your context was compacted. ' : ''}These sub-agents ran in this session (oldest first):`];
  if (shown.length < children.length) lines.push(`(${children.length - shown.length} earlier ones not listed)`);
  for (const c of shown) {
    const name = [c.type, c.sessionKey ?? (c.runId ? `run ${c.runId}` : null)].filter(Boolean).join(' ');
    lines.push(`- ${name || 'sub-agent'} — ${c.status}`);
    if (c.task) lines.push(`  Task: ${redactSecrets(cutHead(oneLine(c.task), TASK_CHARS))}`);
    if (c.result) lines.push(`  Result: ${redactSecrets(cutHead(oneLine(c.result), RESULT_CHARS))}`);
  }
  return lines.join('\n');
}
