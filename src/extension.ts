// VS Code entry point: wires settings, the host (store + endpoint, leader or follower) and the
// surfaces. Activation does no heavy work: the store opens in the background.

import * as vscode from 'vscode';
import type { SubagentRun, Turn } from './core/types';
import { RunManager, type SpawnOptions, type SpawnResult } from './runs/runManager';
import type { Runner } from './runs/runner';
import { ExternalRunner } from './runs/externalRunner';
import { Archivist } from './vscode/archive';
import { BatonChat, PARTICIPANT_ID, type BatonChatResult } from './vscode/chat';
import { ChatSessionImport } from './vscode/chatSessionImport';
import { registerCommands } from './vscode/commands';
import { registerReportDocuments } from './vscode/reportDocuments';
import { LanguageModelRunner, pickModel } from './vscode/lmRunner';
import { registerTools } from './vscode/tools';
import { BatonHost, readSettings } from './vscode/host';
import { Panels } from './vscode/panels';
import { SessionNode, SessionsTree } from './vscode/sessionsTree';
import { StatusBar } from './vscode/statusBar';
import { syncTerminalEnvironment } from './vscode/terminalEnv';
import { DemoMode, focusDemoAtStartup, registerDemoCommands, withDemoOverride } from './vscode/demo';

/** What `activate` returns: other extensions use Baton's sessions and sub-agent manager through it. */
export interface BatonExtensionApi {
  host: BatonHost;
  tree: SessionsTree;
  panels: Panels;
  statusBar: StatusBar;
  chat: BatonChat;
  runs: RunManager;
  archivist: Archivist;
  /**
   * Where this window imports VS Code agent-mode chats from (workspaceStorage/<hash>/chatSessions,
   * see docs/harnesses.md); undefined without a workspace storage folder. Read-only.
   */
  readonly chatSessionsFolder: string | undefined;
  /** Records a session (and its parent); returns the inherited block a child receives. */
  registerSession(session: {
    key: string;
    harness: string;
    parentSessionKey?: string;
    project?: string;
    title?: string;
  }): Promise<{ sessionKey: string; inject: string }>;
  /** Appends turns to a session's live transcript (as a delta: re-sent turns are not stored twice). */
  appendTurns(key: string, turns: Turn[], harness?: string): Promise<{ appended: number }>;
  /** Spawns a sub-agent (SYNC, ASYNC_POLL or ASYNC_CALLBACK) with a registered runner. */
  invokeSubagent(options: SpawnOptions): Promise<SpawnResult>;
  /** Sub-agent runs, newest first, filtered. */
  queryRuns(filter?: { runner?: string; status?: string; since?: string; specId?: string; parent?: string; limit?: number }): Promise<SubagentRun[]>;
  /** Adds a runner (for example another extension's agent) that invokeSubagent and the tools can use. */
  registerRunner(runner: Runner): vscode.Disposable;
}

let host: BatonHost | undefined;
/** The window's sub-agent runs: their children (and all they started) end with the window. */
let windowRuns: RunManager | undefined;

export function activate(context: vscode.ExtensionContext): BatonExtensionApi {
  const log = vscode.window.createOutputChannel('Baton', { log: true });
  // Reports (Check Hooks, doctor, recovery details) may open while the store is still starting.
  context.subscriptions.push(log, registerReportDocuments());
  const { settings, errors } = readSettings();
  for (const error of errors) {
    log.warn(error);
    void vscode.window.showWarningMessage(`Baton settings: ${error}`);
  }
  // While this workspace explores the demo, its data directory stands in for the setting's.
  host = new BatonHost(log, withDemoOverride(context, settings));
  const panels = new Panels(context.extensionUri, host);
  const tree = new SessionsTree(host, settings.projectFilter);
  const view = vscode.window.createTreeView('baton.sessions', { treeDataProvider: tree, showCollapseAll: true });
  let searchLimit = settings.searchLimit;
  let current = settings;
  const demo = new DemoMode(context, host, () => current);
  const statusBar = new StatusBar(host, () => demo.active);
  // The demo's sessions belong to its own project: show them all, and say it is demo data.
  const showDemo = (active: boolean) => {
    // The title too: with one view in the container, VS Code shows only the title in its header.
    view.title = active ? 'Demo data' : 'Sessions';
    view.description = active ? 'Demo data' : undefined;
    tree.setFilter(active ? 'all' : current.projectFilter);
    void statusBar.update();
  };
  const client = () => host!.requireClient();
  // The participant is made after the run manager, whose deliveries it notes.
  const chatRef: { current?: BatonChat } = {};
  const runs = new RunManager(client, {
    onDelivered: (parent, delivered, text) => {
      log.info(`Delivered ${delivered.length} sub-agent result(s) into ${parent}`);
      chatRef.current?.noteDelivered(parent, text);
    },
  });
  windowRuns = runs;
  const archivist = new Archivist(
    client,
    () => current.archival,
    (message) => log.warn(message),
  );
  // The session last selected in the Sessions view: a refresh of the tree may clear the selection
  // itself, not what the user chose to look at.
  let lastSelected: string | undefined;
  context.subscriptions.push(
    view.onDidChangeSelection((e) => {
      const picked = e.selection[0];
      if (picked instanceof SessionNode) lastSelected = picked.key;
    }),
  );
  const chat = new BatonChat(host, runs, archivist, () => {
    const picked = view.selection[0];
    return picked instanceof SessionNode ? picked.key : lastSelected;
  });
  chatRef.current = chat;
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, chatContext, stream, token) =>
    chat.handle(request, chatContext, stream, token),
  );
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'baton.svg');
  participant.followupProvider = { provideFollowups: (result) => chat.followups(result as BatonChatResult) };
  const lmRunner = runs.register(new LanguageModelRunner(() => pickModel()));
  // The `external` runner: a CLI started as a child process with AGENT_SESSION_ID (baton.subagents.externalCommand).
  let external: { dispose(): void } | undefined;
  const configureExternal = (command: string[]) => {
    external?.dispose();
    external = command.length ? runs.register(new ExternalRunner({ name: 'external', command: command[0], args: command.slice(1) })) : undefined;
  };
  configureExternal(settings.externalCommand);
  // VS Code agent mode's chats of this workspace, imported as they are saved (chatSessionImport.ts).
  const chatImports = ChatSessionImport.forWorkspace(context, host, log);
  context.subscriptions.push(
    host,
    panels,
    ...chatImports,
    tree,
    view,
    statusBar,
    ...registerCommands({ context, host, panels, tree, view, log, searchLimit: () => searchLimit }),
    demo,
    ...registerDemoCommands(demo, log),
    demo.onDidChange(showDemo),
    syncTerminalEnvironment(context.environmentVariableCollection, host),
    participant,
    { dispose: () => lmRunner.dispose() },
    { dispose: () => external?.dispose() },
    ...registerTools(host, runs, archivist, () => current),
    host.onDidChangeRole((role) => {
      view.message = role === 'starting' ? 'Opening the Baton store…' : undefined;
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('baton')) return;
      const next = readSettings();
      for (const error of next.errors) void vscode.window.showWarningMessage(`Baton settings: ${error}`);
      searchLimit = next.settings.searchLimit;
      current = next.settings;
      if (event.affectsConfiguration('baton.subagents.externalCommand')) configureExternal(next.settings.externalCommand);
      if (event.affectsConfiguration('baton.projectFilter') && !demo.active) tree.setFilter(next.settings.projectFilter);
      await host?.applySettings(demo.apply(next.settings));
    }),
  );
  view.message = 'Opening the Baton store…';
  if (demo.active) showDemo(true);
  host.start();
  void focusDemoAtStartup(demo, host, log);
  return {
    host,
    tree,
    panels,
    statusBar,
    chat,
    runs,
    archivist,
    chatSessionsFolder: chatImports[0]?.folder,
    registerSession: async (session) => {
      const r = await (await client()).call('sessionStart', { body: { ...session, sessionKey: session.key } });
      return { sessionKey: r.sessionKey, inject: r.inject ?? '' };
    },
    appendTurns: async (key, turns, harness = 'vscode-api') => {
      const r = await (
        await client()
      ).call('userPromptSubmit', { body: { harness, sessionKey: key, transcript: turns.map((t) => ({ role: t.role, content: t.text })) } });
      return { appended: r.appended ?? 0 };
    },
    invokeSubagent: (options) => {
      if (!current.subagentsEnabled) return Promise.reject(new Error('Baton sub-agents are turned off (baton.subagents.enabled).'));
      return runs.spawn(options);
    },
    queryRuns: async (filter = {}) => (await client()).listRuns(filter),
    registerRunner: (runner) => {
      const registration = runs.register(runner);
      return new vscode.Disposable(() => registration.dispose());
    },
  };
}

export async function deactivate(): Promise<void> {
  // Running children's process groups end first (docs/runs.md, "Ending a child"), their runs recorded failed while the store is open.
  // Bounded: the group's SIGKILL comes after 2 s; a language model that ignores cancellation is not waited for.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([windowRuns?.stop().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
  clearTimeout(timer);
  windowRuns = undefined;
  // Flushes the final snapshot and releases the lock, so another window can lead at once.
  await host?.stop();
  host = undefined;
}
