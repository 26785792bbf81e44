// The hook command's view of the registry: the harnesses that run Baton's hook command, each with
// its hook mapping only. dist/hook.js starts on every harness event, inside the harness's turn, so
// it must not load what the registry's harness objects also carry (installers, settings editors,
// Codex's trust, transcript roots). test/connectors/harnesses.test.ts checks this list against
// registry.ts, so the two cannot drift apart.

import type { HarnessHooks } from './harness';
import { claudeCodeHooks, HARNESS as CLAUDE_CODE } from './claudeCode/hooks';
import { codexHooks, HARNESS as CODEX } from './codex/hooks';
import { copilotHooks, HARNESS as COPILOT } from './copilot/hooks';

export const HOOK_MAPPINGS: ReadonlyArray<{ id: string; hooks: HarnessHooks }> = [
  { id: CLAUDE_CODE, hooks: claudeCodeHooks },
  { id: CODEX, hooks: codexHooks },
  { id: COPILOT, hooks: copilotHooks },
];
