// The headers Baton's hook callers send, in a module of their own: the relaying hook command
// (connectors/hookRelay.ts) carries them without the route table.

/**
 * Sent by Baton's hook command and OpenCode plugin on every call, `<harness> <event>`: the server
 * notes per harness and event when hooks last got through (`baton doctor`, "Baton: Check Hooks").
 */
export const HOOK_HEADER = 'x-baton-hook';
/** The event a relayed hook command was installed for (`--event`), for payloads that do not name theirs. */
export const HOOK_EVENT_HEADER = 'x-baton-hook-event';
