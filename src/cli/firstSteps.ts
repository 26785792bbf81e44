// What the CLI tells someone with nothing recorded yet: how sessions get into Baton.

import { installableHarnesses } from '../harnesses/registry';

/** Lines that say how to record sessions: hook a harness up, or look at the demo first. */
export function firstSteps(): string[] {
  const ids = installableHarnesses().map((h) => h.id);
  return [
    `To record sessions, hook a harness up and use it as usual: baton install ${ids[0]} (or ${ids.slice(1).join(', ')}).`,
    'To look around first: baton demo fills a separate demo data directory with recorded sessions.',
  ];
}
