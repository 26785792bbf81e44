// Codex runs a user's hook only when its config records that hook as trusted (docs/harnesses.md,
// "Codex trust"): `[hooks.state."<key>"] trusted_hash = "<hash>"` in $CODEX_HOME/config.toml, where
//   key  = "<real path of hooks.json>:<event in snake_case>:<matcher group index>:<handler index>"
//   hash = "sha256:" + hex sha256 of the compact JSON, keys sorted, of the hook's normalized identity
//          {event_name, matcher (when set), hooks: [{type, command, timeout, async, statusMessage?}]}.
// Untrusted hooks are skipped without a word, so `baton install codex` records trust for exactly the
// entries it wrote. The keys and hashes come from Codex itself when its binary is at hand (the
// app-server's `hooks/list`, which also verifies the result), else from the same computation here.

import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../node/fsync';
import { isOurEntry, type Matcher } from '../hookCommand';
import { readJsonFile } from '../settingsFile';
import { removeTomlTables, setTomlTableValue } from './tomlTables';

/** One of Baton's hook entries in hooks.json, as Codex identifies it for trust. */
export interface CodexHookTrust {
  key: string;
  event: string;
  hash: string;
}

/** Codex clamps a SessionEnd hook's timeout to this many seconds (it must not hold up exit). */
export const CODEX_SESSION_END_MAX_TIMEOUT = 3;
const DEFAULT_TIMEOUT = 600;

/** `SubagentStart` → `subagent_start`: the event label in Codex's keys and hashes. */
export function codexEventLabel(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** The trusted hash Codex expects for one synchronous command hook (of a matcher group, when given), normalized as Codex does. */
export function codexCommandHookHash(event: string, command: string, timeout: number | undefined, statusMessage?: string, matcher?: string): string {
  let seconds = Math.max(1, timeout ?? DEFAULT_TIMEOUT);
  if (event === 'SessionEnd') seconds = Math.min(seconds, CODEX_SESSION_END_MAX_TIMEOUT);
  const handler: Record<string, unknown> = { type: 'command', command, timeout: seconds, async: false };
  if (statusMessage !== undefined) handler.statusMessage = statusMessage;
  const identity = { event_name: codexEventLabel(event), ...(matcher ? { matcher } : {}), hooks: [handler] };
  return (
    'sha256:' +
    crypto
      .createHash('sha256')
      .update(JSON.stringify(canonical(identity)))
      .digest('hex')
  );
}

/** Baton's entries in a hooks.json (by position, as Codex keys them), with the hashes computed here. */
export function batonHookTrust(hooksFile: string, harness: string): CodexHookTrust[] {
  const settings = readJsonFile(hooksFile);
  const hooks = (settings.hooks as Record<string, Matcher[]> | undefined) ?? {};
  const source = realPath(hooksFile);
  const out: CodexHookTrust[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    (Array.isArray(groups) ? groups : []).forEach((group, g) => {
      (group.hooks ?? []).forEach((entry, h) => {
        if (entry.type !== 'command' || !entry.command || !isOurEntry(entry, harness)) return;
        const hash = codexCommandHookHash(event, entry.command, entry.timeout, undefined, group.matcher);
        out.push({ key: `${source}:${codexEventLabel(event)}:${g}:${h}`, event, hash });
      });
    });
  }
  return out;
}

function realPath(file: string): string {
  try {
    return path.join(fs.realpathSync(path.dirname(file)), path.basename(file));
  } catch {
    return path.resolve(file);
  }
}

/** Records `trusted_hash` for each entry in config.toml (keeping the rest of each table, e.g. `enabled`). */
export function writeCodexTrust(configFile: string, entries: readonly CodexHookTrust[]): void {
  const text = fs.existsSync(configFile) ? fs.readFileSync(configFile, 'utf8') : '';
  let next = text;
  for (const e of entries) next = setTomlTableValue(next, ['hooks', 'state', e.key], 'trusted_hash', JSON.stringify(e.hash));
  if (next === text) return;
  fs.mkdirSync(path.dirname(configFile), { recursive: true });
  writeFileAtomic(configFile, next, fs.existsSync(configFile) ? fs.statSync(configFile).mode & 0o777 : 0o600);
}

/** Removes the `[hooks.state."<key>"]` tables of these keys; true when something was removed. */
export function removeCodexTrust(configFile: string, keys: readonly string[]): boolean {
  if (keys.length === 0 || !fs.existsSync(configFile)) return false;
  const text = fs.readFileSync(configFile, 'utf8');
  const next = removeTomlTables(
    text,
    keys.map((k) => ['hooks', 'state', k]),
  );
  if (next === text) return false;
  writeFileAtomic(configFile, next, fs.statSync(configFile).mode & 0o777);
  return true;
}

// ---- Asking Codex itself: `codex app-server` speaks JSON-RPC, one JSON object a line, on stdio.

/** What `hooks/list` reports of one hook (the fields used here). */
export interface CodexListedHook {
  key: string;
  sourcePath: string;
  handlerType: string;
  command?: string;
  currentHash: string;
  trustStatus: string;
}

const APP_SERVER_TIMEOUT_MS = 20_000;

/** The `codex` binary: $BATON_CODEX_BIN, else the first `codex` on PATH; null when there is none. */
export function findCodexBinary(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.BATON_CODEX_BIN) return fs.existsSync(env.BATON_CODEX_BIN) ? env.BATON_CODEX_BIN : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'codex');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Every hook Codex sees for this CODEX_HOME, from a short-lived `codex app-server`. Rejects on any failure or after 20 s. */
export function listCodexHooks(codexBin: string, home: string, env: NodeJS.ProcessEnv = process.env): Promise<CodexListedHook[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(codexBin, ['app-server'], { env: { ...env, CODEX_HOME: home }, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    let buffer = '';
    let settled = false;
    const finish = (err: Error | null, hooks?: CodexListedHook[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      if (err) reject(err);
      else resolve(hooks ?? []);
    };
    const timer = setTimeout(() => finish(new Error(`codex app-server did not answer within ${APP_SERVER_TIMEOUT_MS / 1000} s`)), APP_SERVER_TIMEOUT_MS);
    const send = (message: object) => child.stdin.write(JSON.stringify(message) + '\n');
    child.on('error', (err) => finish(err));
    child.on('close', (code) => finish(new Error(`codex app-server exited (${code}) before answering`)));
    child.stdin.on('error', () => undefined); // a dead server surfaces through 'close'
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let msg: { id?: number; result?: { data?: Array<{ hooks?: CodexListedHook[] }> }; error?: { message?: string } };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          continue;
        }
        if (msg.id === 1) {
          if (msg.error) return finish(new Error(`codex app-server initialize: ${msg.error.message}`));
          send({ method: 'initialized' });
          send({ id: 2, method: 'hooks/list', params: { cwds: [home] } });
        } else if (msg.id === 2) {
          if (msg.error || !msg.result?.data) return finish(new Error(`codex app-server hooks/list: ${msg.error?.message ?? 'no data'}`));
          return finish(
            null,
            msg.result.data.flatMap((d) => d.hooks ?? []),
          );
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'baton', title: 'Baton', version: '1' }, capabilities: null } });
  });
}

export interface TrustOutcome {
  /** config.toml, where the trust is recorded. */
  file: string;
  entries: CodexHookTrust[];
  /** Where the keys and hashes came from. */
  source: 'codex' | 'computed';
  /** Codex confirmed afterwards that every entry is trusted (only when its binary was found). */
  verified: boolean;
  /** Why Codex itself could not be asked, or what it reported wrong. */
  note?: string;
}

/**
 * Records Codex's trust for Baton's entries in hooks.json. Asks Codex (`hooks/list`) for their keys
 * and current hashes when its binary is found, else computes them; then writes them and, with
 * Codex at hand, checks that it now reports each one trusted.
 */
export async function trustCodexHooks(opts: {
  hooksFile: string;
  configFile: string;
  home: string;
  harness: string;
  env?: NodeJS.ProcessEnv;
}): Promise<TrustOutcome> {
  const ours = batonHookTrust(opts.hooksFile, opts.harness);
  const bin = findCodexBinary(opts.env);
  const source = realPath(opts.hooksFile);
  const isBatons = (h: CodexListedHook) => h.sourcePath === source && ours.some((o) => h.key === o.key);
  let entries = ours;
  let from: TrustOutcome['source'] = 'computed';
  let note: string | undefined = bin ? undefined : 'the codex binary is not on PATH (set BATON_CODEX_BIN to use it)';
  if (bin) {
    try {
      const listed = (await listCodexHooks(bin, opts.home, opts.env)).filter(isBatons);
      if (listed.length === ours.length) {
        entries = ours.map((o) => ({ ...o, hash: listed.find((h) => h.key === o.key)!.currentHash }));
        from = 'codex';
      } else note = `codex listed ${listed.length} of Baton's ${ours.length} hooks`;
    } catch (err) {
      note = (err as Error).message;
    }
  }
  writeCodexTrust(opts.configFile, entries);
  let verified = false;
  if (bin && from === 'codex') {
    try {
      const after = (await listCodexHooks(bin, opts.home, opts.env)).filter(isBatons);
      verified = after.length === entries.length && after.every((h) => h.trustStatus === 'trusted');
      if (!verified) note = `codex reports ${after.filter((h) => h.trustStatus === 'trusted').length} of ${entries.length} trusted`;
    } catch (err) {
      note = (err as Error).message;
    }
  }
  return { file: opts.configFile, entries, source: from, verified, note };
}
