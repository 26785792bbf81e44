// The use cases of an agent's rules: its constraints and the entities they are about, listed,
// added and edited by hand (docs/inheritance.md). The handlers parse and delegate here
// (docs/architecture.md, "Handlers and services").

import type { BodyOf, QueryOf } from '../api/schemas';
import { BatonError } from '../core/errors';
import type { StoreAccess } from '../store/store';
import { readScope, writeAgent, type Caller } from './security';

/** A row id from the path: a positive integer, else 400. */
function rowId(raw: string | undefined): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id < 1) throw new BatonError('invalid_request', 'id: must be a positive integer');
  return id;
}

/** What both rule lists read: the caller's scope, the session and agent named, inactive rows on request. */
function listOptions(caller: Caller, query: QueryOf<'listConstraints'>) {
  return { scope: readScope(caller), sessionKey: query.sessionKey, agentId: query.agentId, includeInactive: query.all, limit: query.limit };
}

export class RuleService {
  constructor(private readonly store: StoreAccess) {}

  async listConstraints(caller: Caller, query: QueryOf<'listConstraints'>) {
    const constraints = await this.store.read('listConstraints', listOptions(caller, query));
    return { constraints, count: constraints.length };
  }

  async addConstraint(caller: Caller, body: BodyOf<'addConstraint'>) {
    const agentId = writeAgent(caller, body.agentId);
    const key = body.sessionKey;
    await this.requireSession(agentId, key);
    const { id } = await this.store.write('addAttribute', {
      agentId,
      entity: body.entity ?? 'rules',
      kind: 'constraint',
      content: body.content,
      importance: body.importance ?? 0.9,
      sessionKey: key,
      origin: 'hand',
    });
    const added = await this.store.read('getConstraint', { scope: { agentId }, id });
    if (!added) throw new BatonError('not_found', 'constraint not found');
    return added;
  }

  async editConstraint(caller: Caller, rawId: string | undefined, body: BodyOf<'editConstraint'>) {
    const id = rowId(rawId);
    const agentId = writeAgent(caller, body.agentId);
    await this.store.write('setAttribute', { agentId, id, content: body.content, active: body.active, importance: body.importance });
    const edited = await this.store.read('getConstraint', { scope: { agentId }, id });
    if (!edited) throw new BatonError('not_found', `constraint ${id} not found`);
    return edited;
  }

  async listEntities(caller: Caller, query: QueryOf<'listEntities'>) {
    const entities = await this.store.read('listEntities', listOptions(caller, query));
    return { entities, count: entities.length };
  }

  async addEntity(caller: Caller, body: BodyOf<'addEntity'>) {
    const agentId = writeAgent(caller, body.agentId);
    const key = body.sessionKey;
    await this.requireSession(agentId, key);
    const { id } = await this.store.write('setEntity', {
      agentId,
      name: body.name,
      kind: body.kind,
      description: body.description,
      aliases: body.aliases,
      active: true,
    });
    if (key)
      await this.store.write('addAttribute', { agentId, entity: body.name, kind: 'focus', content: body.description ?? '', sessionKey: key, origin: 'hand' });
    const added = await this.store.read('getEntity', { scope: { agentId }, id });
    if (!added) throw new BatonError('not_found', `entity ${body.name} not found`);
    return added;
  }

  async editEntity(caller: Caller, rawId: string | undefined, body: BodyOf<'editEntity'>) {
    const id = rowId(rawId);
    const agentId = writeAgent(caller, body.agentId);
    await this.store.write('setEntity', {
      agentId,
      id,
      name: body.name,
      kind: body.kind,
      description: body.description,
      aliases: body.aliases,
      active: body.active,
    });
    const edited = await this.store.read('getEntity', { scope: { agentId }, id });
    if (!edited) throw new BatonError('not_found', `entity ${id} not found`);
    return edited;
  }

  /** A session a rule is added to must be one this agent writes (else 404, as for an unknown key). */
  private async requireSession(agentId: string, key: string | undefined): Promise<void> {
    if (key && !(await this.store.read('writableSession', { agentId, key }))) throw new BatonError('not_found', `session ${key} not found`);
  }
}
