// The hook command's first way: hand the harness's payload, as it came, to the server's
// `POST /api/hooks/<harness>`, where the harness's mapping runs (the same route Claude Code's HTTP
// hooks post to), and print what the server answers. One exchange per event, and nothing loaded
// but this file: the mappings (dist/hookLocal.js) load only when the event must run here
// (harnesses/hookRelayRules.ts), the payload names a file the server may not read, or the server
// predates the route (docs/harnesses.md, "What a hook costs").

import * as fs from 'node:fs';
import { HOOK_EVENT_HEADER, HOOK_HEADER } from '../api/hookHeaders';
import { errorClassOf } from '../core/errors';
import { parseJsonSafely } from '../core/safeJson';
import { KNOWN_HOOK_EVENTS, mustRunLocally, payloadFileNames } from '../harnesses/hookRelayRules';
import { EndpointProblem, exchange, liveEndpoint, logHookProblem, replyCode, type EndpointInfo } from '../node/endpointCall';
import { isUnderRoot } from '../node/safeRead';

/** A hook must answer within this budget, whatever happens (the harness waits on it). */
export const HOOK_BUDGET_MS = 900;

/** What a log line may call an event: one a harness's hooks know (the field is free text from stdin), else a placeholder. */
export function eventLabel(name: unknown): string {
  return typeof name === 'string' && KNOWN_HOOK_EVENTS.has(name) ? name : 'other-event';
}

/** A problem with the hook's input whose message this code composed (safe for hooks.log). */
export class HookStdinProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookStdinProblem';
  }
}

export interface RelayInput {
  harness: string;
  dataDir: string;
  /** The event the installed command names (`--event`), for payloads that do not. */
  eventFlag?: string;
  /** stdin as it came. */
  raw: string;
  /** Epoch ms by which the hook is over. */
  deadline: number;
}

/** `answered`: the event is done (printed, or its failure logged); `local`: run the mapping here. */
export type RelayOutcome = 'answered' | 'local';

/** True when the server may read `file`: under one of its roots once symbolic links are followed (a file not there yet: as named). */
function serverMayRead(file: string, roots: readonly string[]): boolean {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    real = file;
  }
  return isUnderRoot(real, roots);
}

/** Whether the payload can go to the server as it is, given what the server says it may read. */
function relayable(input: RelayInput, event: string, payload: Record<string, unknown>, endpoint: EndpointInfo): boolean {
  if (!endpoint.hookRoots) return false;
  if (mustRunLocally(input.harness, event, payload)) return false;
  return payloadFileNames(payload).every((file) => serverMayRead(file, endpoint.hookRoots!));
}

export async function relayHook(input: RelayInput): Promise<RelayOutcome> {
  let payload: Record<string, unknown>;
  try {
    const parsed = parseJsonSafely(input.raw || '{}', 'hook payload');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'local';
    payload = parsed as Record<string, unknown>;
  } catch {
    return 'local'; // the mapping's own reading says what is wrong, in its own words
  }
  const event = eventLabel([payload.hook_event_name, payload.hookEventName, input.eventFlag].find((e) => typeof e === 'string' && e));
  const endpoint = liveEndpoint(input.dataDir);
  if (!endpoint) {
    logHookProblem(input.dataDir, input.harness, event, 'no running Baton endpoint for this data directory');
    return 'answered';
  }
  if (!relayable(input, event, payload, endpoint)) return 'local';
  const route = `/api/hooks/${input.harness}`;
  const headers: Record<string, string> = { [HOOK_HEADER]: `${input.harness} ${event}` };
  if (input.eventFlag) headers[HOOK_EVENT_HEADER] = input.eventFlag;
  // Processes Baton started carry their parent session (docs/harnesses.md: AGENT_SESSION_ID).
  if (process.env.AGENT_SESSION_ID) headers['x-agent-session-id'] = process.env.AGENT_SESSION_ID;
  try {
    const { status, json } = await exchange(endpoint, route, payload, { deadline: input.deadline, headers });
    // A server from before the route, or one without this harness: the mapping runs here, as it always did.
    if (status === 404 && /^no (route|harness) /.test(String((json as { error?: unknown } | undefined)?.error ?? ''))) return 'local';
    if (status < 200 || status >= 300) {
      const code = replyCode(json);
      logHookProblem(input.dataDir, input.harness, event, `${route}: HTTP ${status}${code ? ` ${code}` : ''}`);
      return 'answered';
    }
    if (json && typeof json === 'object' && !Array.isArray(json) && Object.keys(json).length > 0) process.stdout.write(JSON.stringify(json) + '\n');
  } catch (err) {
    // EndpointProblem messages are composed of safe parts (route, status, timing); anything else by class.
    logHookProblem(input.dataDir, input.harness, event, err instanceof EndpointProblem ? err.message : errorClassOf(err));
  }
  return 'answered';
}

/**
 * The hook command (`hook.js <harness>`, `baton hook <harness>`): stdin, then the relay, then
 * `runLocally` with the same stdin when the event must run here. Never throws; a failure is one
 * hooks.log line.
 */
export async function runHookCommand(
  harness: string,
  dataDir: string,
  eventFlag: string | undefined,
  runLocally: (raw: string, started: number) => Promise<void>,
): Promise<void> {
  const started = Date.now();
  const deadline = started + HOOK_BUDGET_MS;
  let raw: string;
  try {
    raw = await readStdin(deadline);
  } catch (err) {
    const what = err instanceof HookStdinProblem ? err.message : `stdin: ${errorClassOf(err)}`;
    logHookProblem(dataDir, harness, eventLabel(eventFlag), `${what} (hook ran ${Date.now() - started} ms)`);
    return;
  }
  if ((await relayHook({ harness, dataDir, eventFlag, raw, deadline })) === 'local') await runLocally(raw, started);
}

/**
 * Reads all of stdin, up to a cap, within the deadline. The file descriptor is read directly (in
 * Node's thread pool, so the deadline's timer still runs): `process.stdin` would first build a
 * stream for whatever stdin is, which costs a hook more than reading its payload. A descriptor
 * that cannot be read that way (a non-blocking pipe) is read through `process.stdin` after all.
 */
export function readStdin(deadline: number, maxBytes = 16 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(new HookStdinProblem('stdin: not closed in time'))), Math.max(1, deadline - Date.now()));
    const take = (chunk: Buffer): boolean => {
      size += chunk.length;
      if (size > maxBytes) {
        finish(() => reject(new HookStdinProblem('stdin: payload too large')));
        return false;
      }
      chunks.push(chunk);
      return true;
    };
    const end = () => finish(() => resolve(Buffer.concat(chunks).toString('utf8')));
    const asStream = () => {
      process.stdin.on('data', (c: Buffer) => {
        if (!take(c)) process.stdin.destroy();
      });
      process.stdin.on('end', end);
      process.stdin.on('error', (err) => finish(() => reject(err)));
    };
    const buffer = Buffer.allocUnsafe(64 * 1024);
    const next = () =>
      fs.read(0, buffer, 0, buffer.length, null, (err, n) => {
        if (done) return;
        if (err) return (err as NodeJS.ErrnoException).code === 'EAGAIN' ? asStream() : finish(() => reject(err));
        if (n === 0) return end();
        if (take(Buffer.from(buffer.subarray(0, n)))) next();
      });
    next();
  });
}
