// What the harnesses that run Baton's hook command share at install time: the command line, and
// recognising Baton's own entries in a Claude-style hooks object (docs/harnesses.md).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookCommandOptions } from './harness';
import { shellQuote } from './settingsFile';

export type HookEntry = { type: string; command?: string; url?: string; timeout?: number; headers?: Record<string, string>; allowedEnvVars?: string[] };
export type Matcher = { matcher?: string; hooks?: HookEntry[] };

/**
 * `node …/dist/hook.js <harness>`: the light hook bundle beside the CLI (falls back to `cli.js hook`).
 * `event` names the event on the command line, for harnesses whose payloads do not (HookRun.event).
 */
export function hookCommand(opts: HookCommandOptions, harness: string, event?: string): string {
  const hookJs = path.join(path.dirname(opts.cliPath), 'hook.js');
  const parts = fs.existsSync(hookJs) ? [opts.nodePath, hookJs, harness] : [opts.nodePath, opts.cliPath, 'hook', harness];
  if (event) parts.push('--event', event);
  if (opts.dataDir) parts.push('--data-dir', opts.dataDir);
  return (opts.envPrefix ? opts.envPrefix + ' ' : '') + parts.map(shellQuote).join(' ');
}

/** The MCP bridge's arguments after the node binary: `cli.js mcp [--data-dir DIR]`. */
export function mcpArgs(opts: HookCommandOptions): string[] {
  return [opts.cliPath, 'mcp', ...(opts.dataDir ? ['--data-dir', opts.dataDir] : [])];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Baton's entries for this harness: its hook command (either form) or its HTTP hook URL. */
function ours(harness: string): RegExp {
  const id = escape(harness);
  // The id ends where no id character follows: `copilot` must not match `copilot-cli`'s entries.
  return new RegExp(` hook ${id}(?![\\w-])|hook\\.js'? ${id}(?![\\w-])|/api/hooks/${id}(?![\\w-])`);
}

/** True when a hook entry is Baton's for `harness`: its hook command or its HTTP hook URL. */
export function isOurEntry(entry: HookEntry, harness: string): boolean {
  const re = ours(harness);
  return re.test(entry.command ?? '') || re.test(entry.url ?? '');
}

/** Removes Baton's entries for `harness` from a hooks object; drops matchers and events left empty. */
export function withoutOurs(hooks: Record<string, Matcher[]>, harness: string): Record<string, Matcher[]> {
  const isOurs = (entry: HookEntry) => isOurEntry(entry, harness);
  const out: Record<string, Matcher[]> = {};
  for (const [event, matchers] of Object.entries(hooks)) {
    const kept = (Array.isArray(matchers) ? matchers : [])
      .map((m) => ({ ...m, hooks: (m.hooks ?? []).filter((h) => !isOurs(h)) }))
      .filter((m) => m.hooks.length > 0);
    if (kept.length > 0) out[event] = kept;
  }
  return out;
}

/** Adds Baton's entry for `event` after the user's own, in a group with `matcher` when the event hooks only some tools. */
export function withOurEntry(hooks: Record<string, Matcher[]>, event: string, entry: HookEntry, matcher?: string): void {
  hooks[event] = [...(hooks[event] ?? []), matcher ? { matcher, hooks: [entry] } : { hooks: [entry] }];
}
