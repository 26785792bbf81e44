// Baton's commands: tree actions, search, installs, doctor, export and the status menu. Every
// failure becomes a readable notification (and a log line), never an unhandled rejection.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionView } from '../client/batonClient';
import { renderMarkdownSession } from '../core/format';
import type { SessionRecord } from '../core/session';
import { HOOK_TOKEN_ENV, hookTokenRequest, type HostSettingChange, type HttpHookOptions } from '../harnesses/harness';
import { editSettingsFile } from '../harnesses/jsoncSettings';
import { hookHealthHarnesses, installableHarnesses } from '../harnesses/registry';
import { renderHookHealthMarkdown } from '../core/hookHealth';
import { readHookHealthReport } from '../node/hookHealth';
import { runDoctor } from '../store/doctor';
import type { BatonHost } from './host';
import type { Panels } from './panels';
import { openReport } from './reportDocuments';
import { searchSessions } from './search';
import { ConstraintNode, type SessionNode, type SessionsTree, type TreeNode } from './sessionsTree';

export interface CommandDeps {
  context: vscode.ExtensionContext;
  host: BatonHost;
  panels: Panels;
  tree: SessionsTree;
  view: vscode.TreeView<TreeNode>;
  log: vscode.LogOutputChannel;
  searchLimit(): number;
}

/**
 * The session a command acts on: a tree node, a session named by agent and key (keys are per
 * agent, docs/security.md), or a key alone (the key's newest session), or none (the user picks).
 */
type Target = SessionNode | { key: string; agentId?: string } | string | undefined;

function addressOf(target: Target): { key?: string; agentId?: string } {
  return typeof target === 'string' ? { key: target } : { key: target?.key, agentId: target?.agentId };
}

/** Wraps a command so errors surface as notifications with the message, and in the log. */
function guarded<A extends unknown[]>(log: vscode.LogOutputChannel, name: string, fn: (...args: A) => Promise<unknown> | unknown) {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      const message = (err as Error).message;
      log.error(`${name}: ${message}`);
      void vscode.window.showErrorMessage(`Baton: ${message}`);
      return undefined;
    }
  };
}

async function pickSession(deps: CommandDeps, target: Target): Promise<SessionView | undefined> {
  const client = await deps.host.requireClient();
  const { key, agentId } = addressOf(target);
  if (key) {
    const session = await client.getSession(key, agentId);
    if (!session) throw new Error(`Session ${key} is not in the store.`);
    return session;
  }
  const { sessions } = await client.listSessions({ limit: 200 });
  const chosen = await vscode.window.showQuickPick(
    sessions.map((s) => ({ label: s.title ?? s.key, description: `${s.harness} · ${s.status} · ${s.turnCount} turns`, session: s })),
    { title: 'Choose a session', matchOnDescription: true },
  );
  return chosen?.session;
}

/** Every turn of the session of `key` in `agentId`. */
async function allTurns(deps: CommandDeps, key: string, agentId: string) {
  const client = await deps.host.requireClient();
  const turns = [];
  for (let from = 1; ;) {
    const page = await client.turns(key, from, 500, agentId);
    turns.push(...page.turns);
    if (page.turns.length < 500) break;
    from = page.turns[page.turns.length - 1].seq + 1;
  }
  return turns;
}

/**
 * User-setting changes an install hands back (harness.ts, HostSettingChange), applied to VS Code's
 * user settings. VS Code refuses to write a setting it does not know (an older VS Code, or the
 * feature off): then the user settings.json beside the extension's global storage is edited.
 */
async function applyHostSettings(deps: CommandDeps, changes: HostSettingChange[] | undefined): Promise<Array<{ key: string; via: string }>> {
  const applied: Array<{ key: string; via: string }> = [];
  for (const change of changes ?? []) {
    const config = vscode.workspace.getConfiguration();
    const current = config.inspect(change.key)?.globalValue;
    const next = change.apply(current);
    try {
      if (JSON.stringify(next) !== JSON.stringify(current)) await config.update(change.key, next, vscode.ConfigurationTarget.Global);
      applied.push({ key: change.key, via: 'configuration' });
    } catch (err) {
      const file = path.join(path.dirname(path.dirname(deps.context.globalStorageUri.fsPath)), 'settings.json');
      deps.log.info(`VS Code did not take ${change.key} (${(err as Error).message}); editing ${file}`);
      editSettingsFile(file, change);
      applied.push({ key: change.key, via: file });
    }
  }
  return applied;
}

function requireTrust(action: string): void {
  if (!vscode.workspace.isTrusted) throw new Error(`${action} is not available in Restricted Mode: trust this workspace first.`);
}

/** The hook command the harness will run: the extension's own bundled CLI, with the right runtime. */
function hookCommandOptions(deps: CommandDeps) {
  return {
    nodePath: process.execPath,
    cliPath: path.join(deps.context.extensionPath, 'dist', 'cli.js'),
    dataDir: deps.host.dataDir,
    // Inside desktop VS Code the runtime is Electron: it must be told to behave as Node.
    envPrefix: process.versions.electron ? 'ELECTRON_RUN_AS_NODE=1' : undefined,
  };
}

/** HTTP hooks to the server this window talks to, with a hooks-only token it issues. */
async function httpHookOptions(deps: CommandDeps): Promise<HttpHookOptions> {
  const client = await deps.host.requireClient();
  return {
    url: client.url.replace(/\/$/, ''),
    tokenEnvVar: HOOK_TOKEN_ENV,
    issueToken: async (previous) => (await client.call('createToken', { body: hookTokenRequest(previous) })).token,
  };
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { host, panels, tree, view, log } = deps;
  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, guarded(log, id, fn as (...args: unknown[]) => unknown));

  return [
    reg('baton.searchSessions', () => searchSessions(host, panels, deps.searchLimit())),
    reg('baton.searchInSession', async (target: Target) => {
      const session = await pickSession(deps, target);
      if (session) return searchSessions(host, panels, deps.searchLimit(), { sessionKey: session.key });
    }),
    reg('baton.openTranscript', async (target: Target, focusSeq?: number) => {
      const session = await pickSession(deps, target);
      if (session) panels.showTranscript(session.key, typeof focusSeq === 'number' ? focusSeq : undefined, undefined, session.agentId);
    }),
    // `options.preserveFocus`: for callers that open it beside a view that keeps the focus (the demo's start).
    reg('baton.previewInherited', async (target: Target, options?: { preserveFocus?: boolean }) => {
      const session = await pickSession(deps, target);
      if (session) panels.showInherited(session.key, {}, session.agentId, options?.preserveFocus === true);
    }),
    reg('baton.showSpend', async (target: Target) => {
      const session = await pickSession(deps, target);
      if (session) return panels.showSpend(session.key, session.agentId);
    }),
    reg('baton.copyKey', async (target: Target) => {
      const session = await pickSession(deps, target);
      if (!session) return;
      await vscode.env.clipboard.writeText(session.key);
      void vscode.window.setStatusBarMessage(`Baton: copied ${session.key}`, 3000);
    }),
    reg('baton.toggleBypass', async (target: Target) => {
      const session = await pickSession(deps, target);
      if (!session) return;
      const client = await host.requireClient();
      const result = await client.setBypass(session.key, !session.bypassed, session.agentId);
      void vscode.window.showInformationMessage(result.bypassed ? `Baton hooks are now no-ops for ${session.key}.` : `Baton records ${session.key} again.`);
      tree.refresh();
    }),
    reg('baton.deactivateConstraint', async (target: ConstraintNode | number) => {
      const id = target instanceof ConstraintNode ? target.id : target;
      if (typeof id !== 'number') throw new Error('Choose a constraint in the Sessions view to deactivate it.');
      const agentId = target instanceof ConstraintNode ? target.constraint.agentId : undefined;
      const client = await host.requireClient();
      try {
        const result = await client.deactivateConstraint(id, agentId);
        void vscode.window.showInformationMessage(`Baton: new sub-agents no longer inherit "${result.content}".`);
        return result;
      } catch (err) {
        throw new Error(`could not deactivate constraint ${id}: ${(err as Error).message}`, { cause: err });
      } finally {
        tree.refresh();
      }
    }),
    reg('baton.endSession', async (target: Target, confirmed?: boolean) => {
      const session = await pickSession(deps, target);
      if (!session) return;
      if (confirmed !== true) {
        const answer = await vscode.window.showWarningMessage(`End session ${session.key}? Its harness may still be running.`, { modal: true }, 'End Session');
        if (answer !== 'End Session') return;
      }
      const client = await host.requireClient();
      await client.endSession(session);
      tree.refresh();
    }),
    reg('baton.exportSession', async (target: Target, format?: 'md' | 'jsonl', destination?: vscode.Uri) => {
      const session = await pickSession(deps, target);
      if (!session) return;
      const kind =
        format ??
        (
          await vscode.window.showQuickPick(
            [
              { label: 'Markdown', id: 'md' as const },
              { label: 'JSON Lines', id: 'jsonl' as const },
            ],
            { title: 'Export format' },
          )
        )?.id;
      if (!kind) return;
      const uri =
        destination ??
        (await vscode.window.showSaveDialog({
          defaultUri: vscode.Uri.file(
            path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? deps.host.dataDir, `${session.key.replace(/[^\w.-]+/g, '_')}.${kind}`),
          ),
          filters: kind === 'md' ? { Markdown: ['md'] } : { 'JSON Lines': ['jsonl'] },
        }));
      if (!uri) return;
      const turns = await allTurns(deps, session.key, session.agentId);
      const text = kind === 'md' ? renderMarkdownSession({ ...session, charCount: 0 } as SessionRecord, turns) : JSON.stringify({ session, turns }) + '\n';
      await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
      void vscode.window.showInformationMessage(`Baton: exported ${session.key} to ${uri.fsPath}`);
      return uri;
    }),
    // `agentId`: whose session of the key (the key's newest without it).
    reg('baton.revealSession', async (key?: string, agentId?: string) => {
      const chosen = key ?? (await vscode.window.showInputBox({ title: 'Reveal session', prompt: 'Session key' }));
      if (!chosen) return;
      const node = await tree.nodeFor(chosen, agentId);
      if (!node) throw new Error(`Session ${chosen} is not in the store.`);
      // A refresh from live events can land between widening the pages and the reveal, and the
      // reveal then finds the older page: widen again and retry (bounded).
      for (let attempt = 1; ; attempt++) {
        await tree.ensureListed(chosen, node.agentId);
        try {
          await view.reveal(node, { select: true, focus: true, expand: true });
          return node;
        } catch (err) {
          if (attempt >= 3) throw err;
          log.info(`reveal of ${chosen} (attempt ${attempt}): ${(err as Error).message}; trying again`);
          tree.refresh();
          await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
        }
      }
    }),
    reg('baton.refreshSessions', () => tree.refresh()),
    reg('baton.loadMoreSessions', (parentKey: string | null, agentId?: string) => tree.loadMore(parentKey ?? null, agentId)),
    reg('baton.showAllProjects', () => tree.setFilter('all')),
    reg('baton.showWorkspaceProject', () => tree.setFilter('workspace')),
    // A toggle: most rolled-up tokens first, or back to newest activity first. Answers the new state.
    reg('baton.sortBySpend', () => {
      tree.setSortBySpend(!tree.sortedBySpend);
      return tree.sortedBySpend;
    }),
    reg('baton.sortByActivity', () => tree.setSortBySpend(false)),
    reg('baton.installHooks', async (harness?: string, scope?: 'project' | 'user') => {
      requireTrust('Installing hooks');
      // Every harness of the registry that can be installed, with the scopes it offers.
      const items = installableHarnesses().flatMap((h) =>
        h.install.menu.map((m) => ({ label: m.label, description: m.description, id: `${h.id}:${m.scope}` })),
      );
      const choice = harness ?? (await vscode.window.showQuickPick(items, { title: 'Install Baton hooks for…' }))?.id;
      if (!choice) return;
      const [name, where] = choice.includes(':') ? choice.split(':') : [choice, scope ?? 'project'];
      const installer = installableHarnesses().find((h) => h.id === name)?.install;
      if (!installer) throw new Error(`Baton cannot install hooks for ${name}.`);
      const projectDir = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const at = installer.scopes.includes(where as 'project' | 'user') ? (where as 'project' | 'user') : installer.scopes[0];
      if (at === 'project' && !projectDir) throw new Error('Open a folder to install project hooks, or choose the user settings.');
      const { messages: _messages, ...result } = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Baton: installing ${name} hooks…` },
        async () => {
          // A harness that posts its hooks itself gets them as HTTP hooks to this window's server, as `baton install` writes them.
          const http = installableHarnesses().find((h) => h.id === name)?.httpHooks ? await httpHookOptions(deps) : undefined;
          const { hostSettings, ...installed } = await installer.install({
            scope: at,
            projectDir,
            command: hookCommandOptions(deps),
            hostSettings: true,
            http,
          });
          const settings = await applyHostSettings(deps, hostSettings);
          return settings.length ? { ...installed, settings } : installed;
        },
      );
      log.info(`Installed ${name} hooks in ${result.file}`);
      void vscode.window.showInformationMessage(`Baton hooks installed in ${result.file}.${installer.notice ?? ''}`);
      return result;
    }),
    reg('baton.uninstallHooks', async (harness?: string, scope?: 'project' | 'user') => {
      requireTrust('Removing hooks');
      const choice =
        harness ??
        (await vscode.window.showQuickPick(
          installableHarnesses()
            .filter((h) => h.install.menu.length > 0)
            .map((h) => h.id),
          { title: 'Remove Baton hooks of…' },
        ));
      if (!choice) return;
      const installer = installableHarnesses().find((h) => h.id === choice)?.install;
      if (!installer) throw new Error(`Baton cannot remove hooks of ${choice}.`);
      const projectDir = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const at = scope === 'user' || !projectDir || !installer.scopes.includes('project') ? 'user' : 'project';
      const { file, removed, hostSettings } = installer.uninstall({ scope: at, projectDir, hostSettings: true });
      const settings = await applyHostSettings(deps, hostSettings);
      void vscode.window.showInformationMessage(removed ? `Baton hooks removed from ${file}.` : `No Baton hooks in ${file}.`);
      return settings.length ? { file, removed, settings } : { file, removed };
    }),
    reg('baton.openDataFolder', async () => {
      const opened = await vscode.env.openExternal(vscode.Uri.file(host.dataDir));
      if (!opened) {
        const copy = await vscode.window.showInformationMessage(`Baton data: ${host.dataDir}`, 'Copy Path');
        if (copy) await vscode.env.clipboard.writeText(host.dataDir);
      }
    }),
    reg('baton.runDoctor', async () => {
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Baton: checking the data directory…' }, () =>
        runDoctor(host.dataDir),
      );
      const lines = [
        '# Baton doctor',
        '',
        `- Data directory: \`${report.dataDir}\``,
        `- Role of this window: ${host.role}${host.port ? ` (endpoint 127.0.0.1:${host.port})` : ''}`,
        `- Lock: ${report.lock.state}${report.lock.holder ? ` — ${report.lock.holder.holder}, pid ${report.lock.holder.pid}` : ''}`,
        `- Snapshots: ${report.snapshots.map((s) => `seq ${s.seq} (${(s.bytes / 1e6).toFixed(1)} MB, ${s.valid ? 'valid' : 'INVALID'})`).join(', ') || 'none'}`,
        `- Journal: ${report.journal.length} file(s), ${report.journal.reduce((n, j) => n + j.frames, 0)} frames`,
        `- Integrity: ${report.integrity?.join('; ') ?? 'checked by the holder at open (the store is in use)'}`,
        ...(report.problems.length ? ['', '## Problems', ...report.problems.map((p) => `- ${p}`)] : ['', 'No problems found.']),
        ...(report.notes.length ? ['', '## Notes', ...report.notes.map((n) => `- ${n}`)] : []),
      ];
      await openReport('Baton doctor.md', lines.join('\n') + '\n');
      return report;
    }),
    reg('baton.checkHooks', async () => {
      // Per harness: when its hooks last got through, what failed lately, and the fix (docs/harnesses.md).
      const report = readHookHealthReport(host.dataDir, hookHealthHarnesses());
      const markdown = renderHookHealthMarkdown(report, host.dataDir);
      const doc = await openReport('Baton hooks.md', markdown);
      // The fixes VS Code can apply: installing a harness's hooks (the same as `baton install <id>`).
      const installs = report.harnesses.filter((h) => h.fixes.some((f) => f.command === `baton install ${h.id}`));
      const buttons = new Map(installs.map((h) => [`Install ${h.displayName} Hooks`, h.id]));
      const failing = report.harnesses.filter((h) => h.failures.length > 0).map((h) => h.displayName);
      // Not awaited: the report is the command's answer, the buttons are an offer.
      const offer = failing.length
        ? vscode.window.showWarningMessage(`Baton: recent hook failures (${failing.join(', ')}); the fixes are in the report.`, ...buttons.keys())
        : vscode.window.showInformationMessage('Baton: no recent hook failures.', ...buttons.keys());
      void offer.then((choice) => {
        const id = choice ? buttons.get(choice) : undefined;
        if (id) void vscode.commands.executeCommand('baton.installHooks', id);
      });
      // The document too: a caller (the host test) checks what was opened without hunting for it among the editors.
      return { report, markdown, document: doc };
    }),
    reg('baton.copyEndpointEnv', async () => {
      const text = `export BATON_DATA_DIR=${JSON.stringify(host.dataDir)}${host.port ? `\nexport BATON_URL=http://127.0.0.1:${host.port}` : ''}\n`;
      await vscode.env.clipboard.writeText(text);
      void vscode.window.setStatusBarMessage('Baton: endpoint environment copied', 3000);
      return text;
    }),
    reg('baton.showLog', () => log.show()),
    reg('baton.showMenu', async () => {
      const items = [
        { label: '$(list-tree) Open Sessions', command: 'workbench.view.extension.baton' },
        { label: '$(search) Search Sessions', command: 'baton.searchSessions' },
        { label: '$(copy) Copy Endpoint Environment', command: 'baton.copyEndpointEnv' },
        { label: '$(heart) Run Doctor', command: 'baton.runDoctor' },
        { label: '$(pulse) Check Hooks', command: 'baton.checkHooks' },
        { label: '$(output) Show Log', command: 'baton.showLog' },
      ];
      const chosen = await vscode.window.showQuickPick(items, { title: `Baton — ${host.role}${host.port ? ` on 127.0.0.1:${host.port}` : ''}` });
      if (chosen) await vscode.commands.executeCommand(chosen.command);
    }),
  ];
}
