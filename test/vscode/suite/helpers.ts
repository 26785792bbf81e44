// Shared helpers of the extension-host suites: the extension's exports (typed structurally, so the
// suites keep compiling while src/ evolves), bounded waits, and hook calls to the running endpoint.
// Every wait here has a deadline; the only network target is 127.0.0.1.

import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'baton-dev.baton';

export interface SessionViewLike {
  key: string;
  harness: string;
  project: string | null;
  parentSessionKey: string | null;
  status: string;
  bypassed: boolean;
  title: string | null;
  turnCount: number;
  childCount: number;
  updatedAt: string;
  agentId: string;
}

export interface ClientLike {
  url: string;
  endpoint: { url: string; port: number; pid: number; token: string };
  listSessions(q?: {
    roots?: boolean;
    parent?: string;
    project?: string;
    all?: boolean;
    limit?: number;
  }): Promise<{ sessions: SessionViewLike[]; total: number }>;
  getSession(key: string): Promise<SessionViewLike | null>;
  turns(key: string, from?: number, limit?: number): Promise<{ total: number; turns: Array<{ seq: number; role: string; text: string }> }>;
  setBypass(key: string, enabled: boolean): Promise<{ key: string; bypassed: boolean }>;
  count(which: 'live' | 'all'): Promise<number>;
}

export interface HostLike extends vscode.Disposable {
  role: 'starting' | 'leader' | 'follower' | 'stopped';
  ready: Promise<void>;
  client: ClientLike | null;
  dataDir: string;
  port: number | null;
  log: vscode.LogOutputChannel;
  onDidChangeRole: vscode.Event<string>;
  onDidChangeSessions: vscode.Event<string[]>;
  start(): void;
  stop(): Promise<void>;
  applySettings(next: unknown): Promise<void>;
}

export interface SessionNodeLike {
  key: string;
  session: SessionViewLike;
  parentKey: string | null;
}

export interface TreeLike {
  onDidChangeTreeData: vscode.Event<unknown>;
  getChildren(element?: SessionNodeLike): Promise<SessionNodeLike[]>;
  getTreeItem(node: SessionNodeLike): vscode.TreeItem;
  getParent(node: SessionNodeLike): Promise<SessionNodeLike | undefined>;
  nodeFor(key: string): Promise<SessionNodeLike | undefined>;
  setFilter(filter: 'workspace' | 'all'): void;
  filter: 'workspace' | 'all';
  rootKeys: string[];
  refresh(): void;
}

export interface PanelsLike {
  showTranscript(key: string, focusSeq?: number, highlight?: string[]): vscode.WebviewPanel;
  showInherited(key: string): vscode.WebviewPanel;
  openPanels: string[];
}

export interface StatusBarLike {
  text: string;
  liveCount: number | null;
}

export interface BatonApi {
  host: HostLike;
  tree: TreeLike;
  panels: PanelsLike;
  statusBar: StatusBarLike;
}

export function extension(): vscode.Extension<BatonApi> {
  const ext = vscode.extensions.getExtension<BatonApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  return ext;
}

/** The exports, with the host ready (leader or follower). */
export async function api(): Promise<BatonApi> {
  const exports = await extension().activate();
  await within(exports.host.ready, 30_000, 'host.ready');
  assert.ok(exports.host.client, `the host has no client (role ${exports.host.role})`);
  return exports;
}

export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a truthy value; fails after `ms` with the last value in the message. */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export async function waitFor<T>(check: () => T | Promise<T>, ms: number, what: string, intervalMs = 50): Promise<Truthy<T>> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await check();
      if (last) return last as Truthy<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastError ? ` (last error: ${(lastError as Error).message})` : ` (last value: ${JSON.stringify(last)})`;
      throw new Error(`${what}: not within ${ms} ms${detail}`);
    }
    await sleep(intervalMs);
  }
}

/** Resolves with the first event (matching `filter`) within `ms`, else rejects. */
/**
 * Sets a `baton.*` setting (Global; undefined removes it) and waits until VS Code reports the value.
 * A settings write goes through the workbench and code-server: on a loaded machine it has taken
 * over 10 s, hence the generous bounds.
 */
export async function setBaton(key: string, value: unknown): Promise<void> {
  await within(
    Promise.resolve(vscode.workspace.getConfiguration('baton').update(key, value, vscode.ConfigurationTarget.Global)),
    30_000,
    `update baton.${key}`,
  );
  await waitFor(
    () => JSON.stringify(vscode.workspace.getConfiguration('baton').inspect(key)?.globalValue) === JSON.stringify(value),
    30_000,
    `baton.${key} = ${JSON.stringify(value)}`,
  );
}

export function nextEvent<T>(event: vscode.Event<T>, ms: number, what: string, filter: (value: T) => boolean = () => true): Promise<T> {
  let sub: vscode.Disposable | undefined;
  const fired = new Promise<T>((resolve) => {
    sub = event((value) => {
      if (filter(value)) resolve(value);
    });
  });
  return within(fired, ms, what).finally(() => sub?.dispose());
}

export function uid(prefix = 'vs'): string {
  return `${prefix}-${crypto.randomBytes(6).toString('hex')}`;
}

/** POSTs a hook to an endpoint (the extension's own by default), as any outside process would. */
export async function post<T = Record<string, unknown>>(endpoint: { url: string; token: string }, route: string, body: unknown): Promise<T> {
  const res = await fetch(endpoint.url + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const json = (await res.json().catch(() => ({}))) as T;
  assert.ok(res.ok, `${route} answered HTTP ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

export function endpointOf(host: HostLike): { url: string; token: string } {
  assert.ok(host.client, `the host has no client (role ${host.role})`);
  return { url: host.client.url, token: host.client.endpoint.token };
}

export interface StartOptions {
  key: string;
  project?: string;
  parent?: string;
  title?: string;
  harnessAgentType?: string;
  harness?: string;
}

export function sessionStart(endpoint: { url: string; token: string }, o: StartOptions) {
  return post<{ sessionKey: string; parentSessionKey?: string | null }>(endpoint, '/api/hooks/session-start', {
    harness: o.harness ?? 'claude-code',
    sessionKey: o.key,
    project: o.project,
    parentSessionKey: o.parent,
    title: o.title,
    harnessAgentType: o.harnessAgentType,
  });
}

/** One exchange: the previous reply (if any) then the new prompt, each a stored turn. */
export function prompt(endpoint: { url: string; token: string }, key: string, userMessage: string, lastAssistantMessage?: string, harness = 'claude-code') {
  return post<{ turnCount: number }>(endpoint, '/api/hooks/user-prompt-submit', { harness, sessionKey: key, userMessage, lastAssistantMessage });
}

export function sessionEnd(endpoint: { url: string; token: string }, key: string, status: 'ended' | 'completed' | 'failed', harness = 'claude-code') {
  return post(endpoint, '/api/hooks/session-end', { harness, sessionKey: key, status, reason: 'test' });
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T>(items: T[], limit: number, fn: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'the runner opens a workspace folder');
  return folder;
}

export function themeIconId(item: vscode.TreeItem): string | undefined {
  const icon = item.iconPath;
  return icon instanceof vscode.ThemeIcon ? icon.id : undefined;
}
