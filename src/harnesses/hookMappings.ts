// The hook command's view of the harnesses: those that run Baton's hook command, each with its hook
// mapping only. Run from source, it reads the registry. dist/hook.js starts on every harness event,
// inside the harness's turn, so it must not load what the registry's harness objects also carry
// (installers, settings editors, Codex's trust, transcript roots): the build gives this module
// contents that import only each folder's hooks.ts (scripts/dev/hookMappingsPlugin.mjs). Either way
// the list comes from the harness folders: no list here to keep by hand.

import type { HarnessHooks } from './harness';
import { hookHarnesses } from './registry';

export const HOOK_MAPPINGS: ReadonlyArray<{ id: string; hooks: HarnessHooks }> = hookHarnesses().map((h) => ({ id: h.id, hooks: h.hooks }));
