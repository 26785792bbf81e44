// The harnesses' hook mappings for the hook command (dist/hookLocal.js): loaded by dist/hookMain.js
// only for an event that must run in the hook's own process (connectors/hookRelay.ts).

export { HOOK_HARNESS_IDS, runHook } from './connectors/runHook';
