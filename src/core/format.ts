// Plain-text renderings shared by the CLI, the chat participant and exports.

import type { SessionRecord } from './session';
import { compactCount, totalTokens, usd } from './spend';

/** What a rendering reads of a session (a store record and an API session view both have it). */
export type SessionLike = Pick<
  SessionRecord,
  'key' | 'harness' | 'harnessAgentType' | 'status' | 'bypassed' | 'turnCount' | 'updatedAt' | 'project' | 'agentId' | 'parentSessionKey' | 'createdAt'
> &
  Partial<Pick<SessionRecord, 'spend'>>;

export interface TreeLike extends SessionLike {
  children: TreeLike[];
}

export function age(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '?';
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

export function sessionLine(s: SessionLike, now = Date.now()): string {
  const flags = [s.status, s.bypassed ? 'bypassed' : ''].filter(Boolean).join(',');
  const agent = s.harnessAgentType ? ` ${s.harnessAgentType}` : '';
  return `${s.key}  ${s.harness}${agent}  ${flags}  ${s.turnCount} turns${spendText(s)}  ${age(s.updatedAt, now)} ago${s.project ? '  ' + s.project : ''}`;
}

/** "  12k tokens $0.12~": the session's spend with its sub-agents' (~ estimated); nothing when none was reported. */
function spendText(s: SessionLike): string {
  const total = s.spend?.total;
  if (!total) return '';
  const cost = total.costUsd === null ? '' : ` ${usd(total.costUsd)}${total.costBasis === 'estimated' ? '~' : ''}`;
  return `  ${compactCount(totalTokens(total))} tokens${cost}`;
}

export function renderSessionTable(sessions: SessionLike[], now = Date.now()): string {
  return sessions.map((s) => sessionLine(s, now)).join('\n');
}

export function renderTree(roots: TreeLike[], now = Date.now()): string {
  const lines: string[] = [];
  const walk = (node: TreeLike, prefix: string, last: boolean, top: boolean) => {
    lines.push((top ? '' : prefix + (last ? '└─ ' : '├─ ')) + sessionLine(node, now));
    const childPrefix = top ? '' : prefix + (last ? '   ' : '│  ');
    node.children.forEach((child, i) => walk(child, childPrefix, i === node.children.length - 1, false));
  };
  for (const root of roots) walk(root, '', true, true);
  return lines.join('\n');
}

const ROLE_TITLES: Record<string, string> = { user: 'User', assistant: 'Assistant', tool: 'Tool', system: 'System' };

export function renderMarkdownSession(session: SessionLike, turns: Array<{ role: string; text: string; at: string | null }>): string {
  const head = [
    `# Session ${session.key}`,
    '',
    `- Harness: ${session.harness}`,
    `- Agent: ${session.agentId}`,
    session.project !== null && `- Project: ${session.project}`,
    session.parentSessionKey !== null && `- Parent: ${session.parentSessionKey}`,
    `- Status: ${session.status}`,
    `- Created: ${session.createdAt}`,
    `- Updated: ${session.updatedAt}`,
    '',
  ].filter((line): line is string => line !== false);
  const body = turns.map((t) => `## ${ROLE_TITLES[t.role] ?? t.role}${t.at ? ` · ${t.at}` : ''}\n\n${t.text}\n`);
  return [...head, ...body].join('\n');
}
