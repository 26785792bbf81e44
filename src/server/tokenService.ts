// The use cases of agent tokens: creating one (its secret shown once, only its hash stored) and
// revoking one (docs/security.md). The handlers parse and delegate here (docs/architecture.md,
// "Handlers and services").

import type { BodyOf } from '../api/schemas';
import type { StoreAccess } from '../store/store';
import { hashSecret, newSecret } from './security';

export class TokenService {
  constructor(private readonly store: StoreAccess) {}

  /** Creates an agent token; a read policy given here becomes the agent's. */
  async create(body: BodyOf<'createToken'>) {
    if (body.readPolicy) await this.store.write('setAgentPolicy', { agentId: body.agentId, readPolicy: body.readPolicy });
    const secret = newSecret();
    const { id } = await this.store.write('createToken', {
      agentId: body.agentId,
      permissions: body.permissions,
      secretHash: hashSecret(secret),
      label: body.label,
    });
    const readPolicy = body.readPolicy ?? ((await this.store.read('agentPolicy', { agentId: body.agentId })) as 'shared' | 'isolated' | null);
    return { id, token: secret, agentId: body.agentId, permissions: body.permissions, readPolicy };
  }

  revoke(id: string) {
    return this.store.write('revokeToken', { id });
  }
}
