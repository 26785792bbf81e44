// Runs requests straight through a store engine (no worker) and collects every reply.

import type { Engine, Reply, Request } from '../../src/store/engine/engine';

/** Resolves with the replies to `requests`, in the order the engine sent them. */
export function executeAll(engine: Engine, requests: Request[]): Promise<Reply[]> {
  return new Promise((resolve) => {
    const replies: Reply[] = [];
    void engine.execute(requests, (reply) => {
      replies.push(reply);
      if (replies.length === requests.length) resolve(replies);
    });
  });
}
