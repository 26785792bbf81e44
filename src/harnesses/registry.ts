// Every harness Baton knows, one line each (docs/harnesses.md, "Adding a harness"). Everything
// outside src/harnesses/ iterates this list instead of naming harnesses.

import * as os from 'node:os';
import { decideLineageWith, parentFromKeyWith, type LineageDecision, type LineageInput } from '../core/lineage';
import { formatOf, normalizeWith, type NormalizeFormats, type NormalizeHint, type TranscriptFormat, type TranscriptParser } from '../core/normalize';
import type { LineageSource, Turn } from '../core/types';
import type { HookHarnessInfo } from '../core/hookHealth';
import type { Harness, HarnessImporter } from './harness';
import { claudeCode } from './claudeCode';
import { codex } from './codex';
import { copilot } from './copilot';
import { copilotCli } from './copilotCli';
import { openCode } from './openCode';
import { openClaw } from './openClaw';

export const HARNESSES: readonly Harness[] = [claudeCode, codex, openCode, openClaw, copilotCli, copilot];

export function harnessById(id: string): Harness | undefined {
  return HARNESSES.find((h) => h.id === id);
}

/** Harnesses that run Baton's hook command (`baton hook <id>`, dist/hook.js). */
export function hookHarnesses(): Array<Harness & { hooks: NonNullable<Harness['hooks']> }> {
  return HARNESSES.filter((h): h is Harness & { hooks: NonNullable<Harness['hooks']> } => h.hooks !== undefined);
}

/** Harnesses `baton import` (and `baton demo`, and VS Code's live chat import) can read the history of. */
export function harnessImporters(): Array<Harness & { importer: HarnessImporter }> {
  return HARNESSES.filter((h): h is Harness & { importer: HarnessImporter } => h.importer !== undefined);
}

/** The harness `POST /api/hooks/<id>` runs the hook payload of, with its hook mapping. */
export function hookHarness(id: string | undefined): (Harness & { hooks: NonNullable<Harness['hooks']> }) | undefined {
  return id === undefined ? undefined : hookHarnesses().find((h) => h.id === id);
}

/** The installable harness `baton install <name>` means: by id or by one of its aliases. */
export function installableHarness(name: string) {
  return installableHarnesses().find((h) => h.id === name || h.install.aliases?.includes(name));
}

/** Harnesses `baton install` (and VS Code's install menu) can set up. */
export function installableHarnesses(): Array<Harness & { install: NonNullable<Harness['install']> }> {
  return HARNESSES.filter((h): h is Harness & { install: NonNullable<Harness['install']> } => h.install !== undefined);
}

/** The harnesses hook health reports on (`baton doctor`, "Baton: Check Hooks"): those with hooks or a plugin to install. */
export function hookHealthHarnesses(): HookHarnessInfo[] {
  return HARNESSES.filter((h) => h.hooks || h.install).map((h) => ({
    id: h.id,
    displayName: h.displayName,
    installable: h.install !== undefined,
    neverFiredHint: h.install?.neverFiredHint,
    httpHooks: h.httpHooks !== undefined,
  }));
}

/** Every harness's transcript folders, in registry order. */
export function harnessTranscriptRoots(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string[] {
  return HARNESSES.flatMap((h) => h.transcripts.roots(env, home));
}

const FORMATS: NormalizeFormats = {
  parsers: HARNESSES.flatMap((h) => (h.transcripts.parser ? [h.transcripts.parser] : [])),
  fallbackFor: (name) => (name ? HARNESSES.find((h) => h.transcripts.matchesName(name))?.transcripts.fallbackFormat : undefined),
};

/** A transcript of any known harness (or a message list, or plain text) as Baton turns. */
export function normalizeTranscript(raw: string, hint: NormalizeHint = {}): Turn[] {
  return normalizeWith(raw, hint, FORMATS);
}

/** The format a transcript's text is in (detected as normalizeTranscript would). */
export function transcriptFormat(raw: string, hint: NormalizeHint = {}): TranscriptFormat {
  return formatOf(raw, hint, FORMATS);
}

/** The line-by-line parser of a harness format (JSONL), which can continue where a parse stopped; undefined for other formats. */
export function lineParser(format: TranscriptFormat): TranscriptParser | undefined {
  return FORMATS.parsers.find((p) => p.format === format);
}

const LINEAGES = HARNESSES.map((h) => h.lineage);

/** A new session's parent, by the matrix of core/lineage.ts with every harness's signals. */
export function decideLineage(input: LineageInput): LineageDecision {
  return decideLineageWith(input, LINEAGES, harnessById(input.harness)?.lineage);
}

/** The parent a session key names (OpenClaw sub-agent keys), whoever reports it; null otherwise. */
export function parentFromKey(sessionKey: string): string | null {
  return parentFromKeyWith(sessionKey, LINEAGES)?.parentKey ?? null;
}

/** The source recorded when a harness re-parents a session at its end (its spawner signal). */
export function reparentSource(harness: string): LineageSource {
  return harnessById(harness)?.lineage.reparentSource ?? 'explicit';
}
