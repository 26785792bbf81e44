// The block for a fork: a child that starts with the parent's whole conversation (Claude Code's
// `subagent_type: "fork"`). Everything the full block would carry (the parent's tail, its digest,
// the rules it stated) is already in the fork's copy, so the fork gets only what that copy lacks
// (docs/inheritance.md, "Forks"):
// - the text of the parent's message that started the fork, which the host leaves out of the copy;
// - rules from outside the conversation (added by hand, or recorded by other sessions for its entities).
// Nothing addressed to the parent about the fork itself. No block at all when nothing is lacking.

import { fitConstraints, orderConstraints } from './constraintBudget';
import { cutHead, estimateTokens, INHERIT_HEADING, type InheritBlock, type InheritSources } from './inherit';
import { redactSecrets } from './redact';

export interface ForkBlockSettings {
  /** The parent's words in the spawning message, as the harness reported them (null: none). */
  spawningText: string | null;
  maxTokens: number;
}

/** Heading of the spawning text: it says why the fork is told this at all. */
export const SPAWNING_TEXT_LABEL = "The parent's words in the message that started this fork (your copy of the conversation leaves them out):";

/** Rules the fork's conversation does not state: added by hand, or other sessions' rules for its entities. */
const OUTSIDE_SOURCES = new Set(['hand', 'entity']);

export function assembleForkBlock(src: InheritSources, settings: ForkBlockSettings): InheritBlock | null {
  const room = settings.maxTokens * 4;
  const outside = orderConstraints(src.constraints.filter((c) => c.source !== undefined && OUTSIDE_SOURCES.has(c.source)));
  const spawning = settings.spawningText?.trim() ? redactSecrets(settings.spawningText.trim()) : null;
  if (!spawning && outside.length === 0) return null;
  // Not the parent's title: taken from its first prompt, it is in the fork's copy already.
  const header = `${src.harness} session ${src.parentKey}`;
  const head = [INHERIT_HEADING, '', `You are a fork of ${header} and hold its conversation.`];
  const cut: string[] = [];
  // Rules first, within half the room (all of it without a spawning text).
  const ruleTexts = outside.map((c) => redactSecrets(`${c.entity}: ${c.content}`));
  const rules = fitConstraints(ruleTexts, Math.floor((room - head.join('\n').length) * (spawning ? 0.5 : 1)));
  if (rules.omitted) cut.push('constraints');
  const lines = [...head, ...rules.lines];
  if (spawning) {
    const left = room - lines.join('\n').length - SPAWNING_TEXT_LABEL.length - 80;
    const kept = left > 40 ? cutHead(spawning, left) : '';
    if (kept !== spawning) cut.push('spawning text');
    if (kept) lines.push(SPAWNING_TEXT_LABEL, ...kept.split('\n').map((line) => (line ? `  ${line}` : '')));
  }
  if (lines.length === head.length) return null;
  const body = lines.join('\n');
  const budgetLine = (used: number) => `Budget: ~${used} of ${settings.maxTokens} tokens, profile fork${cut.length ? ` (cut: ${cut.join(', ')})` : ''}`;
  let text = `${body}\n${budgetLine(estimateTokens(body))}`;
  text = `${body}\n${budgetLine(estimateTokens(text))}`;
  const keptRules = ruleTexts.slice(0, rules.kept);
  return {
    text,
    sections: { header, checkpoint: null, recentContext: null, focalEntities: [], constraints: keptRules },
    chars: text.length,
    estimatedTokens: estimateTokens(text),
    budget: { maxTokens: settings.maxTokens, usedTokens: estimateTokens(text), cut },
    profile: 'fork',
    selection: null,
    constraintOrigins: keptRules.map((text, i) => ({ text, origin: outside[i].origin ?? 'added by hand' })),
  };
}
