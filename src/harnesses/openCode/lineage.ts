// OpenCode's lineage signal (docs/harnesses.md): a task child's Session.Info carries `parentID`.
// The plugin reads it and sends it as the explicit parent at session-start (recorded 'explicit',
// like any caller-named parent); when the plugin re-parents a session at its end, the change is
// recorded as 'opencode-parent'. Pure.

import type { HarnessLineage } from '../../core/lineage';

export const openCodeLineage: HarnessLineage = {
  reparentSource: 'opencode-parent',
};
