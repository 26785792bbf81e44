// The hook command: payload on stdin, hook output on stdout. Loaded by the small dist/hook.js
// bundle too, so it must stay light (no CLI parser, no store, no schema library). Which harness
// maps the payload comes from the registry (src/harnesses/, docs/harnesses.md).

import { HookClient, logHookProblem, readStdin } from './hookClient';
import { hookHarnesses } from '../harnesses/registry';
import { resolveDataDir } from '../store/paths';

/** `baton hook <id>` / `hook.js <id>`: the harnesses whose hooks run Baton's hook command. */
export const HOOK_HARNESS_IDS: string[] = hookHarnesses().map((h) => h.id);

/** A hook must answer within this budget, whatever happens (Claude Code waits on it). */
export const HOOK_BUDGET_MS = 900;

/** Runs one hook invocation: never throws, never exits non-zero, prints only valid hook output. */
export async function runHook(harness: string, dataDirFlag: string | undefined): Promise<void> {
  const deadline = Date.now() + HOOK_BUDGET_MS;
  const dataDir = resolveDataDir({ flag: dataDirFlag });
  let event = '';
  try {
    const hooks = hookHarnesses().find((h) => h.id === harness)?.hooks;
    if (!hooks) throw new Error(`no hook mapping for harness ${harness}`);
    const raw = await readStdin(deadline);
    const payload = JSON.parse(raw || '{}') as Record<string, unknown>;
    event = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : '';
    // Processes Baton started carry their parent session (docs/harnesses.md: AGENT_SESSION_ID).
    const headers: Record<string, string> = process.env.AGENT_SESSION_ID ? { 'x-agent-session-id': process.env.AGENT_SESSION_ID } : {};
    const client = HookClient.find(dataDir, deadline, headers);
    if (!client) {
      logHookProblem(dataDir, harness, event, 'no running Baton endpoint for this data directory');
      return;
    }
    const output = await hooks.handle(payload, client);
    if (output) process.stdout.write(JSON.stringify(output) + '\n');
  } catch (err) {
    logHookProblem(dataDir, harness, event, (err as Error).message);
  }
}
