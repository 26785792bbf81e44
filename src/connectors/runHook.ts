// The hook command: payload on stdin, hook output on stdout. Loaded by the small dist/hook.js
// bundle too, so it must stay light (no CLI parser, no store, no schema library).

import type { ClaudeCodePayload } from './claudeCode';
import { handleHookEvent, type HookHarness } from './hookEvents';
import { HookClient, logHookProblem, readStdin } from './hookClient';
import { resolveDataDir } from '../store/paths';

export const HARNESSES: HookHarness[] = ['claude-code', 'codex'];

/** A hook must answer within this budget, whatever happens (Claude Code waits on it). */
export const HOOK_BUDGET_MS = 900;

/** Runs one hook invocation: never throws, never exits non-zero, prints only valid hook output. */
export async function runHook(harness: string, dataDirFlag: string | undefined): Promise<void> {
  const deadline = Date.now() + HOOK_BUDGET_MS;
  const dataDir = resolveDataDir({ flag: dataDirFlag });
  let event = '';
  try {
    const raw = await readStdin(deadline);
    const payload = JSON.parse(raw || '{}') as ClaudeCodePayload;
    event = payload.hook_event_name ?? '';
    // Processes Baton started carry their parent session (decision record: AGENT_SESSION_ID).
    const headers: Record<string, string> = process.env.AGENT_SESSION_ID ? { 'x-agent-session-id': process.env.AGENT_SESSION_ID } : {};
    const client = HookClient.find(dataDir, deadline, headers);
    if (!client) {
      logHookProblem(dataDir, harness, event, 'no running Baton endpoint for this data directory');
      return;
    }
    const output = await handleHookEvent(harness as HookHarness, payload, client);
    if (output) process.stdout.write(JSON.stringify(output) + '\n');
  } catch (err) {
    logHookProblem(dataDir, harness, event, (err as Error).message);
  }
}

