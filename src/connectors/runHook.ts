// The hook command: payload on stdin, hook output on stdout. Loaded by the small dist/hook.js
// bundle too, so it must stay light (no CLI parser, no store, no schema library). Which harness
// maps the payload comes from the hook mappings (src/harnesses/hookMappings.ts: the harness folders with a hooks.ts; docs/harnesses.md).
// Hooks run inside the harness's own turn, so a hook never hurts it: one hard deadline for the
// whole hook, no retries, failures only logged to hooks.log (node/endpointCall.ts, the endpoint's
// one caller: never payload text or the server's error message).

import { errorClassOf } from '../core/errors';
import { JsonInputError, parseJsonSafely } from '../core/safeJson';
import { HookInputError, HookStepFailure, HookStepTimeout } from '../harnesses/claudeStyleHooks';
import { ApiClient, postTransport } from '../api/client';
import { EndpointProblem, liveEndpoint, logHookProblem, postJson } from '../node/endpointCall';
import { HOOK_MAPPINGS } from '../harnesses/hookMappings';
import { withTranscriptChunks } from './transcriptChunks';
import { eventLabel, HOOK_BUDGET_MS } from './hookRelay';
import { HOOK_HEADER } from '../api/routes';

/** `baton hook <id>` / `hook.js <id>`: the harnesses whose hooks run Baton's hook command. */
export const HOOK_HARNESS_IDS: string[] = HOOK_MAPPINGS.map((h) => h.id);

/** What hooks.log may say about a failure: messages this code composed, else the error's class. */
function describe(err: unknown): string {
  if (err instanceof HookStepFailure) return `step ${err.step}: ${describe(err.error)}`;
  if (err instanceof EndpointProblem || err instanceof HookInputError || err instanceof HookStepTimeout) return err.message;
  if (err instanceof JsonInputError) return `stdin: ${err.message}`;
  return errorClassOf(err);
}

/**
 * Runs one hook invocation here, with the harness's mapping (what the relay hands back when the
 * event must run in the hook's own process: connectors/hookRelay.ts): never throws, never exits
 * non-zero, prints only valid hook output. `raw`: stdin as it came; `eventFlag`: the event the
 * installed command names (`--event`), for payloads that do not.
 */
export async function runHook(harness: string, dataDir: string, eventFlag: string | undefined, raw: string, started = Date.now()): Promise<void> {
  const deadline = started + HOOK_BUDGET_MS;
  let event = '';
  try {
    const hooks = HOOK_MAPPINGS.find((h) => h.id === harness)?.hooks;
    if (!hooks) throw new Error(`no hook mapping for harness ${harness}`);
    const parsed = parseJsonSafely(raw || '{}', 'hook payload');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HookInputError('hook payload must be a JSON object');
    const payload = parsed as Record<string, unknown>;
    event = eventLabel(payload.hook_event_name ?? payload.hookEventName ?? eventFlag);
    // Processes Baton started carry their parent session (docs/harnesses.md: AGENT_SESSION_ID).
    // The hook header lets the server note when this harness's hooks last got through (`baton doctor`).
    const headers: Record<string, string> = { [HOOK_HEADER]: `${harness} ${event}` };
    if (process.env.AGENT_SESSION_ID) headers['x-agent-session-id'] = process.env.AGENT_SESSION_ID;
    const endpoint = liveEndpoint(dataDir);
    if (!endpoint) {
      logHookProblem(dataDir, harness, event, 'no running Baton endpoint for this data directory');
      return;
    }
    // Every call of this hook within its one deadline, without retries (docs/harnesses.md, "When hooks fail").
    const client = new ApiClient(postTransport((route, body) => postJson(endpoint, route, body, { deadline, headers })));
    // A step that fails while the event goes on is one line of its own.
    const stepFailed = (step: string, err: unknown) => logHookProblem(dataDir, harness, event, `step ${step}: ${describe(err)}`);
    // A transcript the server may not open (a config folder it does not know) is sent by the hook itself.
    const output = await hooks.handle(payload, withTranscriptChunks(client), { event: eventFlag, deadline, stepFailed, dataDir, endpointUrl: endpoint.url });
    if (output) process.stdout.write(JSON.stringify(output) + '\n');
  } catch (err) {
    logHookProblem(dataDir, harness, event, `${describe(err)} (hook ran ${Date.now() - started} ms)`);
  }
}
