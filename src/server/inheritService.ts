// What a sub-agent inherits, beyond assembling the block: the deterministic extraction of
// constraints and focal entities from a parent's turns (docs/inheritance.md). Runs with
// checkpoint extraction, compaction and session end.

import { extractConstraints, extractEntities, ruleEntity } from '../core/constraints';
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
    // One write for everything found: a session stating hundreds of rules costs one round trip.
    const rules = extractConstraints(turns).map((rule) => ({ ...rule, entity: ruleEntity(rule.content, entities) }));
    const { constraints: added } = await this.store.write('recordExtraction', { agentId, key, rules, entities: found });
    return { constraints: added, entities };
  }
}
