// Language-model tools (usable by Copilot agent mode and other participants): search sessions,
// get inherited context, spawn a sub-agent, query a sub-agent, get a run's status. Errors are
// written for the model: what went wrong and what to do instead.

import * as vscode from 'vscode';
import type { RunManager } from '../runs/runManager';
import { EXECUTION_MODES } from '../core/runs';
import type { ExecutionMode } from '../core/types';
import type { Archivist } from './archive';
import type { BatonHost } from './host';
import { LM_RUNNER, pickModel } from './lmRunner';

function result(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

interface SearchInput {
  query: string;
  sessionKey?: string;
  limit?: number;
}

export class SearchSessionsTool implements vscode.LanguageModelTool<SearchInput> {
  static readonly toolId = 'baton_search_sessions';
  constructor(private readonly host: BatonHost) {}

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SearchInput>): Promise<vscode.LanguageModelToolResult> {
    const { query, sessionKey, limit } = options.input;
    if (typeof query !== 'string' || !query.trim()) throw new Error('Pass a non-empty "query": the words to look for in session transcripts.');
    const client = await this.host.requireClient();
    const hits = await client.search(query, { sessionKey, limit: Math.min(Math.max(limit ?? 5, 1), 20) });
    if (hits.length === 0) return result(`No session transcript matches ${JSON.stringify(query)}. Try fewer or different words.`);
    return result(
      hits
        .map((h) => `session ${h.sessionKey}${h.title ? ` "${h.title}"` : ''} (${h.harness}, updated ${h.updatedAt}, turn ${h.turnSeq}): ${h.excerpt}`)
        .join('\n'),
    );
  }
}

interface InheritedInput {
  sessionKey: string;
}

export class GetInheritedContextTool implements vscode.LanguageModelTool<InheritedInput> {
  static readonly toolId = 'baton_get_inherited_context';
  constructor(private readonly host: BatonHost) {}

  async invoke(options: vscode.LanguageModelToolInvocationOptions<InheritedInput>): Promise<vscode.LanguageModelToolResult> {
    const key = options.input.sessionKey;
    if (typeof key !== 'string' || !key.trim())
      throw new Error('Pass "sessionKey": the parent session whose context you want (find keys with baton_search_sessions).');
    const client = await this.host.requireClient();
    if (!(await client.getSession(key))) throw new Error(`There is no session "${key}". Find the right key with baton_search_sessions.`);
    const view = await client.inherited(key);
    return result(view.empty ? `Session ${key} has nothing to inherit yet (no transcript or checkpoint).` : view.block);
  }
}

interface SpawnInput {
  task: string;
  runner?: string;
  parentSessionKey?: string;
  mode?: ExecutionMode;
  specId?: string;
  files?: string[];
}

export class SpawnSubagentTool implements vscode.LanguageModelTool<SpawnInput> {
  static readonly toolId = 'baton_spawn_subagent';
  constructor(
    private readonly host: BatonHost,
    private readonly runs: RunManager,
    private readonly enabled: () => boolean,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SpawnInput>): vscode.PreparedToolInvocation {
    const mode = options.input.mode ?? 'SYNC';
    return {
      invocationMessage: `Spawning a Baton sub-agent (${mode})`,
      confirmationMessages: {
        title: 'Spawn a sub-agent?',
        message: new vscode.MarkdownString(
          `A sub-agent will run this task with a language model${options.input.parentSessionKey ? `, inheriting the context of \`${options.input.parentSessionKey}\`` : ''}:\n\n> ${String(options.input.task ?? '(no task given)').slice(0, 500)}`,
        ),
      },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SpawnInput>): Promise<vscode.LanguageModelToolResult> {
    if (!this.enabled()) throw new Error('Sub-agents are turned off (setting baton.subagents.enabled). Do the task yourself, or ask the user to enable them.');
    const { task, parentSessionKey, mode = 'SYNC', specId, files, runner = LM_RUNNER } = options.input;
    if (typeof task !== 'string' || !task.trim()) throw new Error('Pass "task": what the sub-agent should do, self-contained.');
    if (!EXECUTION_MODES.includes(mode)) throw new Error(`"mode" must be one of ${EXECUTION_MODES.join(', ')}.`);
    if (!this.runs.runnerNames.includes(runner))
      throw new Error(`"runner" must be one of ${this.runs.runnerNames.join(', ')} (the external runner needs the setting baton.subagents.externalCommand).`);
    const spawned = await this.runs.spawn({
      parentSessionKey: parentSessionKey ?? null,
      task,
      runner,
      mode,
      specId,
      files,
      workspacePath: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    });
    if (mode !== 'SYNC')
      return result(
        `Started run ${spawned.runId} (${mode}) in session ${spawned.sessionKey}. ${mode === 'ASYNC_POLL' ? 'Check it with baton_get_run_status.' : 'Its result will be delivered into the parent session when it finishes.'}`,
      );
    const run = spawned.run;
    if (run?.status !== 'completed') {
      const error = (run?.error ?? 'unknown error').replace(/\.+$/, '');
      if (/no language model/i.test(error)) throw new Error(`${error}. Do the task yourself.`);
      throw new Error(`The sub-agent failed: ${error}. Retry with a clearer task, or do it yourself.`);
    }
    return result(`Sub-agent ${spawned.sessionKey} (run ${spawned.runId}) answered:\n\n${run.resultContent ?? ''}`);
  }
}

interface QueryInput {
  id: string;
  prompt: string;
}

export class QuerySubagentTool implements vscode.LanguageModelTool<QueryInput> {
  static readonly toolId = 'baton_query_subagent';
  constructor(private readonly archivist: Archivist) {}

  async invoke(options: vscode.LanguageModelToolInvocationOptions<QueryInput>): Promise<vscode.LanguageModelToolResult> {
    const { id, prompt } = options.input;
    if (typeof id !== 'string' || !id || typeof prompt !== 'string' || !prompt.trim())
      throw new Error('Pass "id" (a sub-agent session key from Live Subagents) and "prompt" (your question).');
    return result(await this.archivist.query(id, prompt, await pickModel()));
  }
}

interface StatusInput {
  runId: string;
}

export class GetRunStatusTool implements vscode.LanguageModelTool<StatusInput> {
  static readonly toolId = 'baton_get_run_status';
  constructor(private readonly runs: RunManager) {}

  async invoke(options: vscode.LanguageModelToolInvocationOptions<StatusInput>): Promise<vscode.LanguageModelToolResult> {
    const id = options.input.runId;
    if (typeof id !== 'string' || !id) throw new Error('Pass "runId": the id baton_spawn_subagent returned.');
    const run = await this.runs.status(id);
    if (!run) throw new Error(`There is no run "${id}". Use the id baton_spawn_subagent returned.`);
    const lines = [
      `run ${run.id}: ${run.status} (${run.runner}, ${run.executionMode})`,
      `session: ${run.sessionKey}`,
      `parent: ${run.parentSessionKey ?? 'none'}`,
    ];
    if (run.durationMs !== null) lines.push(`duration: ${run.durationMs} ms`);
    if (run.inputTokens !== null || run.outputTokens !== null) lines.push(`tokens: ${run.inputTokens ?? '?'} in, ${run.outputTokens ?? '?'} out`);
    if (run.status === 'completed') lines.push('', run.resultContent ?? '');
    if (run.status === 'failed') lines.push(`error: ${run.error}`);
    return result(lines.join('\n'));
  }
}

export function registerTools(host: BatonHost, runs: RunManager, archivist: Archivist, subagentsEnabled: () => boolean): vscode.Disposable[] {
  return [
    vscode.lm.registerTool(SearchSessionsTool.toolId, new SearchSessionsTool(host)),
    vscode.lm.registerTool(GetInheritedContextTool.toolId, new GetInheritedContextTool(host)),
    vscode.lm.registerTool(SpawnSubagentTool.toolId, new SpawnSubagentTool(host, runs, subagentsEnabled)),
    vscode.lm.registerTool(QuerySubagentTool.toolId, new QuerySubagentTool(archivist)),
    vscode.lm.registerTool(GetRunStatusTool.toolId, new GetRunStatusTool(runs)),
  ];
}
