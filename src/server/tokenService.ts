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
    const kept = body.reuse ? await this.reusable(body) : null;
    if (kept) return kept;
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

  /** The `reuse` secret as the created token, when it is still live for this agent with exactly these permissions. */
  private async reusable(body: BodyOf<'createToken'>) {
    const token = await this.store.read('tokenByHash', { secretHash: hashSecret(body.reuse!) });
    if (!token || token.agentId !== body.agentId) return null;
    if ([...token.permissions].sort().join() !== [...new Set(body.permissions)].sort().join()) return null;
    const readPolicy = (await this.store.read('agentPolicy', { agentId: body.agentId })) as 'shared' | 'isolated' | null;
    return { id: token.id, token: body.reuse!, agentId: token.agentId, permissions: token.permissions, readPolicy };
  }

  revoke(id: string) {
    return this.store.write('revokeToken', { id });
  }
}
