// Records what the extractor found in a session's turns (src/core/constraints.ts): new rules as
// active constraints, new focal entities as the session's focus, in one atomic write. A rule the
// session already holds, active or deactivated by hand, is never added again: deactivating an
// extracted rule sticks, even when a later extraction reads the same turn (docs/inheritance.md).

import { ruleKey, type ExtractedConstraint, type ExtractedEntity } from '../core/constraints';
import { addAttribute, type CommandContext } from './commands';
import { all } from './db';
import { DEFAULT_AGENT } from './ownership';

export interface RecordExtractionArgs {
  agentId?: string;
  key: string;
  rules: Array<ExtractedConstraint & { entity: string }>;
  entities: ExtractedEntity[];
}

export function recordExtraction(ctx: CommandContext, args: RecordExtractionArgs): { constraints: number; entities: number } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  const held = (kind: string) =>
    all<{ content: string; name: string }>(
      ctx.db,
      `SELECT a.content, e.name FROM entity_attributes a JOIN entities e ON e.id = a.entity_id WHERE e.agent_id = ? AND a.session_key = ? AND a.kind = ?`,
      [agentId, args.key, kind],
    );
  const knownRules = new Set(held('constraint').map((r) => ruleKey(r.content)));
  let constraints = 0;
  for (const rule of args.rules) {
    const k = ruleKey(rule.content);
    if (knownRules.has(k)) continue;
    knownRules.add(k);
    addAttribute(ctx, {
      agentId,
      entity: rule.entity,
      kind: 'constraint',
      content: rule.content,
      importance: rule.importance,
      sessionKey: args.key,
      origin: 'extracted',
      sourceSeq: rule.seq,
      sourceRole: rule.role,
    });
    constraints++;
  }
  const focused = new Set(held('focus').map((r) => r.name));
  let entities = 0;
  for (const e of args.entities) {
    if (focused.has(e.name)) continue;
    focused.add(e.name);
    addAttribute(ctx, {
      agentId,
      entity: e.name,
      entityKind: e.kind,
      kind: 'focus',
      content: `named ${e.mentions} times`,
      importance: e.importance,
      sessionKey: args.key,
      origin: 'extracted',
      sourceSeq: e.seq,
    });
    entities++;
  }
  return { constraints, entities };
}
