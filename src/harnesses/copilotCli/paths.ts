// Where GitHub Copilot CLI keeps its state: $COPILOT_HOME, else ~/.copilot. Its sessions live in
// session-state/<sessionId>/events.jsonl (docs/harnesses.md, "GitHub Copilot CLI").

import * as path from 'node:path';
import * as os from 'node:os';

/** $COPILOT_HOME, else ~/.copilot. */
export function copilotHome(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return env.COPILOT_HOME ? path.resolve(env.COPILOT_HOME) : path.join(home, '.copilot');
}

/** The folder holding one folder per session (each with its events.jsonl). */
export function sessionStateDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return path.join(copilotHome(env, home), 'session-state');
}

/** A session's event log, where its sub-agents' events are written too (tagged with their agentId). */
export const EVENTS_FILE = 'events.jsonl';
