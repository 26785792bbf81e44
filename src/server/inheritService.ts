// What a sub-agent inherits, beyond assembling the block: the deterministic extraction of
// constraints and focal entities from a parent's turns (docs/inheritance.md). Runs with
// checkpoint extraction, compaction and session end.

import { extractConstraints, extractEntities, ruleEntity, ruleKey, type ExtractedEntity } from '../core/constraints';
import type { StoreAccess } from '../store/store';

export class InheritService {
  constructor(private readonly store: StoreAccess) {}

  /**
   * Extract the rules and focal entities stated in turns fromSeq..toSeq of a session and record
   * new rules as active constraints of that session. Returns the focal entities found.
   */
  async extractRules(agentId: string, key: string, fromSeq: number): Promise<{ constraints: number; entities: string[] }> {
    const scope = { agentId };
    const turns: Array<{ seq: number; role: string; text: string }> = [];
    // Bounded: at most 50 pages of 2,000 turns.
    for (let page = 0, from = Math.max(1, fromSeq); page < 50; page++) {
      const got = await this.store.read('turns', { scope, key, from, limit: 2000 });
      turns.push(...got.turns);
      if (got.turns.length < 2000) break;
      from = got.turns[got.turns.length - 1].seq + 1;
    }
    if (turns.length === 0) return { constraints: 0, entities: [] };
    const found = extractEntities(turns);
    const entities = found.map((e) => e.name);
    await this.recordFocus(agentId, key, found);
    const known = new Set((await this.store.read('sessionConstraints', { agentId, key })).map((c) => ruleKey(c.content)));
    let added = 0;
    for (const rule of extractConstraints(turns)) {
      if (known.has(ruleKey(rule.content))) continue;
      known.add(ruleKey(rule.content));
      await this.store.write('addAttribute', {
        agentId,
        entity: ruleEntity(rule.content, entities),
        kind: 'constraint',
        content: rule.content,
        importance: rule.importance,
        sessionKey: key,
        origin: 'extracted',
        sourceSeq: rule.seq,
        sourceRole: rule.role,
      });
      added++;
    }
    return { constraints: added, entities };
  }

  /**
   * Records the focal entities found as the agent's entities, each with the turn it was first
   * named in and an importance from its mentions, once per session (`GET /api/entities?sessionKey=`
   * lists them). What reaches a child is still the rolling span's focal list (docs/inheritance.md).
   */
  private async recordFocus(agentId: string, key: string, found: ExtractedEntity[]): Promise<void> {
    if (found.length === 0) return;
    const already = new Set(
      (await this.store.read('listEntities', { scope: { agentId }, sessionKey: key, includeInactive: true, limit: 1000 })).map((e) => e.name),
    );
    for (const e of found) {
      if (already.has(e.name)) continue;
      await this.store.write('addAttribute', {
        agentId,
        entity: e.name,
        entityKind: e.kind,
        kind: 'focus',
        content: `named ${e.mentions} times`,
        importance: e.importance,
        sessionKey: key,
        origin: 'extracted',
        sourceSeq: e.seq,
      });
    }
  }
}
