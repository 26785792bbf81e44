// What Baton knows about one harness (Claude Code, Codex, OpenCode, OpenClaw…), in one object:
// each harness folder exports one, and registry.ts lists them. The CLI (`baton hook|install|
// uninstall|import|demo`), the server (transcript roots, lineage, transcript parsing, HTTP hooks)
// and VS Code (the install menu, the live chat import) iterate the registry instead of naming
// harnesses: nothing outside src/harnesses/ imports a harness folder (docs/architecture.md,
// "Add a harness"). docs/harnesses.md describes every harness and how to add one.

import type { ZodType } from 'zod';
import { DEFAULT_AGENT } from '../core/agents';
import type { ApiClient } from '../api/client';
import type { HarnessLineage } from '../core/lineage';
import type { TranscriptFormat, TranscriptParser } from '../core/normalize';
import type { PayloadFiles } from '../node/payloadFiles';
import type { ImportCounts, ImportIo } from './sessionImport';

/** Anything that can call the API: the hook command's HTTP client, or the server itself (HTTP hooks). */
export type ApiPoster = Pick<ApiClient, 'call'>;

/** What a hook prints for the harness: context for the model to read. */
export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
  /** The same context at the top level, for harnesses that read it there (Copilot CLI's camelCase events). */
  additionalContext?: string;
}

/**
 * One hook run as the mapping sees it: when it must have answered, where a step that failed
 * while the event went on is reported (the hook command: one hooks.log line each), the data
 * directory it serves (hook state between runs lives there) and how it reads the files its
 * payload names.
 */
export interface HookRun {
  /**
   * The event the installed hook command names (`--event`), for harnesses whose payloads do not
   * say which event they are (Copilot CLI's camelCase hooks).
   */
  event?: string;
  /** When the whole hook must have answered (ms since the epoch); steps that only prepare leave time for the essential one. */
  deadline?: number;
  /** A step failed and the event went on without it. */
  stepFailed(step: string, err: unknown): void;
  dataDir?: string;
  /** The running server's URL, when the hook command found it (never set inside the server). */
  endpointUrl?: string;
  /**
   * Every file the payload names (transcripts, a sub-agent's meta file, a sub-agents folder) is
   * read through this, never by fs directly. Inside the server: only under its transcript roots
   * (docs/security.md, "Reading files a request names"); default: PayloadFiles.anywhere().
   */
  files?: PayloadFiles;
}

/** How the hook command is run: `node …/dist/hook.js <harness> [--event E]` (or `cli.js hook <harness>`). */
export interface HookCommandOptions {
  nodePath: string;
  cliPath: string;
  dataDir?: string;
  /** An environment assignment put before the command (e.g. ELECTRON_RUN_AS_NODE=1 for VS Code's runtime). */
  envPrefix?: string;
}

/** The environment variable Baton's HTTP hook entries name for their bearer token. */
export const HOOK_TOKEN_ENV = 'BATON_HOOK_TOKEN';

/**
 * The hooks token an HTTP-hook install asks for (`POST /api/tokens`): the default agent, the
 * `hooks` permission only (docs/security.md, "The hooks token"), the earlier install's token kept
 * when it is still valid. The CLI and VS Code's install both ask with it.
 */
export function hookTokenRequest(previous: string | undefined) {
  return { agentId: DEFAULT_AGENT, permissions: ['hooks' as const], label: 'Claude Code HTTP hooks', reuse: previous };
}

/** How long the harness waits for one HTTP hook (the installed entry's `timeout`, in seconds). */
export const HTTP_HOOK_TIMEOUT_S = 5;

/**
 * The server's deadline for an HTTP hook, inside the harness's wait: preparing steps give up in
 * time for the essential one (the inherited block) to answer before the harness stops waiting.
 */
export const HTTP_HOOK_BUDGET_MS = HTTP_HOOK_TIMEOUT_S * 1000 - 1000;

export interface HttpHookOptions {
  url: string;
  /** The environment variable the hook's Authorization header names. */
  tokenEnvVar: string;
  /**
   * Issues the hooks token (given the one an earlier install wrote, kept when still valid); the
   * install writes it where the harness reads that variable and a project never commits it.
   * Omitted: the user provides the variable.
   */
  issueToken?(previous: string | undefined): Promise<string>;
}

export type InstallScope = 'project' | 'user';

/**
 * A user setting of the editor an install changes: inside VS Code it is applied through VS Code's
 * configuration API (`apply` maps the current user value to the new one; undefined removes it).
 */
export interface HostSettingChange {
  key: string;
  apply(current: unknown): unknown;
}

export interface InstallContext {
  scope: InstallScope;
  /** Project scope: the project root. */
  projectDir?: string;
  /** How hook commands and the MCP bridge are started (the data directory is fixed in them when given). */
  command: HookCommandOptions;
  /** HTTP hooks instead of the hook command where the harness honours them (the default for Claude Code; `--command` turns it off). */
  http?: HttpHookOptions;
  /** Harnesses that run only hooks the user trusts (Codex): record that trust for Baton's entries (default true; `--no-trust`). */
  trustHooks?: boolean;
  /** An editor's user settings file to change (`--settings-file`), for harnesses configured there. */
  settingsFile?: string;
  /** The editor running Baton applies setting changes itself: they come back as `hostSettings`. */
  hostSettings?: boolean;
}

export interface InstallResult {
  /** The main file written (settings, hooks.json, plugin). */
  file: string;
  /** One line each, for the user: what was written where, and what is left to do. */
  messages: string[];
  /** Setting changes for the editor to apply (only with `InstallContext.hostSettings`). */
  hostSettings?: HostSettingChange[];
  [detail: string]: unknown;
}

export interface UninstallResult {
  file: string;
  removed: boolean;
  messages: string[];
  hostSettings?: HostSettingChange[];
}

/** One entry of VS Code's "Install Baton hooks for…" menu. */
export interface MenuItem {
  label: string;
  description?: string;
  scope: InstallScope;
}

/** A harness's hook mapping: the raw payload of each event onto the sessions & hooks API. */
export interface HarnessHooks {
  events: readonly string[];
  handle(payload: Record<string, unknown>, client: ApiPoster, run?: HookRun): Promise<HookOutput | null>;
}

/**
 * `baton import <id>`: the harness's existing history, backfilled through the same writes its live
 * hooks make. `baton demo` runs it on demo/sessions/<id> when that folder exists.
 */
export interface HarnessImporter {
  /** The command's description (`baton import --help`). */
  description: string;
  /** What the progress line calls the history: `importing <label> history`. */
  label: string;
  /** How the command takes its source: an argument `[dir]`, or an option `--path <path>`; `help` describes it. */
  source: { as: 'argument' | 'option'; help: string };
  /** The source when none is given; absent: the importer finds its sources itself. */
  defaultSource?(): string;
  /** Imports what `source` holds (undefined: the default). Never opens the API before the source is known good. */
  run(source: string | undefined, io: ImportIo): Promise<ImportCounts>;
  /** The summary line printed after the import; absent: the shared one (`imported N sessions (M sub-agents), …`). */
  summary?(result: ImportCounts): string;
  /** The session to open first in a source (the demo's featured session): the root with the most sub-agents. */
  featured?(source: string): string | null;
  /**
   * Sessions the harness saves into the workspace's own storage (VS Code agent mode's chatSessions):
   * the extension imports them as they are saved (src/vscode/chatSessionImport.ts).
   */
  workspace?: {
    /** The folder, from VS Code's workspace storage folder of this workspace (workspaceStorage/<hash>). */
    folder(workspaceStorageDir: string): string;
    /** The glob of the files to watch in it. */
    pattern: string;
    /** The session files the folder holds now. */
    files(folder: string): string[];
  };
}

export interface Harness {
  /** The `harness` value in the API, and the argument of `baton hook|install|uninstall`. */
  id: string;
  displayName: string;

  transcripts: {
    /** A JSON-lines format only this harness writes; absent when it uses a shared one (message lists). */
    parser?: TranscriptParser;
    /** The format its JSON-looking but undecided text falls back to. */
    fallbackFormat: TranscriptFormat;
    /** True when a `harness` hint names this harness (hints are loose: `claude-code-vscode`…). */
    matchesName(name: string): boolean;
    /** The folders its transcripts live in (a transcriptPath must resolve under one). */
    roots(env: NodeJS.ProcessEnv, home: string): string[];
  };

  lineage: HarnessLineage;

  /**
   * Harnesses that run Baton's hook command: the raw payload mapped onto the sessions & hooks API.
   * The hook command (dist/hook.js) finds the mapping in the folder's hooks.ts, which exports it as
   * `hooks` with the harness id as `HARNESS` (scripts/dev/build.mjs, docs/architecture.md).
   */
  hooks?: HarnessHooks;

  /**
   * The harness can POST its hooks to Baton itself (Claude Code's HTTP hooks), to
   * `POST /api/hooks/<id>`, where the server runs them through `hooks` (as it does for every hook
   * command that relays its payload: docs/harnesses.md, "What a hook costs").
   */
  httpHooks?: true;

  /** What its raw hook payloads must pass at `POST /api/hooks/<id>` besides being a JSON object (Claude Code's: its keys obey the key rules). */
  hookBody?: ZodType<Record<string, unknown>>;

  /** `baton import <id>`; absent when Baton cannot read the harness's history. */
  importer?: HarnessImporter;

  /** `baton install|uninstall <id>`; absent when Baton cannot install anything for it. */
  install?: {
    /** Scopes it installs into; the first is the default. */
    scopes: readonly InstallScope[];
    install(ctx: InstallContext): InstallResult | Promise<InstallResult>;
    uninstall(ctx: Pick<InstallContext, 'scope' | 'projectDir' | 'settingsFile' | 'hostSettings'>): UninstallResult;
    /** Other names `baton install|uninstall` accepts for it (`vscode` for VS Code agent mode). */
    aliases?: readonly string[];
    /** VS Code's install menu; empty: not offered there. */
    menu: readonly MenuItem[];
    /** Appended to VS Code's "installed" notice (e.g. what is left to do). */
    notice?: string;
    /** Hook health (`baton doctor`): why installed hooks may never fire, and the fix. */
    neverFiredHint?: string;
  };
}
