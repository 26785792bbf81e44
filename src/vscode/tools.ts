// Language-model tools (usable by Copilot agent mode and other participants): the catalogue's
// tools under their `lm` names (src/server/toolCatalogue.ts): search sessions, get inherited
// context, spawn a sub-agent, query a sub-agent, get a run's status. Searching and the inherited
// context run the catalogue's handlers over the window's API client; spawning, querying and run
// status need this window's models and run manager, so they are answered here. Errors are written
// for the model: what went wrong and what to do instead.

import * as vscode from 'vscode';
import type { RunManager } from '../runs/runManager';
import { EXECUTION_MODES } from '../core/runs';
import type { ExecutionMode } from '../core/types';
import type { Archivist } from './archive';
import type { BatonHost } from './host';
import { LM_RUNNER, pickModel } from './lmRunner';
import { toolsOf, type ToolDefinition } from '../server/toolCatalogue';
import type { ValidatedSettings } from '../core/settings';
import { describeToolGrant, parseToolGrantRequest, resolveToolGrant, type ToolGrant } from '../core/subagentTools';

function result(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** A catalogue tool with a handler: it runs over the window's API client, as the user. */
class CatalogueTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(
    private readonly host: BatonHost,
    private readonly run: NonNullable<ToolDefinition['run']>,
  ) {}

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>): Promise<vscode.LanguageModelToolResult> {
    const input = options.input ?? {};
    const client = await this.host.requireClient();
    return result((await this.run(input, { api: client, callerSession: null, admin: true, surface: 'lm' })).text);
  }
}

interface SpawnInput {
  task: string;
  runner?: string;
  parentSessionKey?: string;
  mode?: ExecutionMode;
  specId?: string;
  files?: string[];
  /** Tool names the sub-agent may call (docs/runs.md, "Tools of a sub-agent"). */
  tools?: string[];
  toolPreset?: string;
}

/** The settings the spawn tool reads at each call. */
export type SpawnSettings = Pick<ValidatedSettings, 'subagentsEnabled' | 'subagentDefaultTools'>;

/** A text and the grant's lines after it (none when no grant was asked for). */
function withGrant(text: string, grant: ToolGrant | null): string {
  const note = grant ? describeToolGrant(grant) : '';
  return note ? `${text}\n\n${note}` : text;
}

/** The tools a spawn asks for, as the user confirming it reads them ('' when it asks for none). */
function toolsAsked(input: SpawnInput): string {
  const asked = [
    ...(typeof input.toolPreset === 'string' ? [`preset ${input.toolPreset}`] : []),
    ...(Array.isArray(input.tools) ? input.tools.filter((t): t is string => typeof t === 'string').slice(0, 20) : []),
  ];
  return asked.length ? `\n\nIt asks for tools: ${asked.map((t) => `\`${t.slice(0, 128)}\``).join(', ')}.` : '';
}

export class SpawnSubagentTool implements vscode.LanguageModelTool<SpawnInput> {
  constructor(
    private readonly host: BatonHost,
    private readonly runs: RunManager,
    private readonly settings: () => SpawnSettings,
  ) {}

  /**
   * The tools the child gets (docs/runs.md): only the language-model runner can offer them, and
   * only what this caller may use itself (vscode.lm.tools, workspace trust). Null: no grant applies.
   */
  private grantFor(runner: string, input: SpawnInput): ToolGrant | null {
    const request = parseToolGrantRequest(input);
    const asked = request.tools !== undefined || request.toolPreset !== undefined;
    if (runner !== LM_RUNNER) {
      if (asked) throw new Error(`"tools" and "toolPreset" apply to the ${LM_RUNNER} runner only: the "${runner}" runner cannot be given VS Code tools.`);
      return null;
    }
    return resolveToolGrant(request, {
      available: vscode.lm.tools.map((t) => t.name),
      defaultGrant: this.settings().subagentDefaultTools,
      trusted: vscode.workspace.isTrusted,
    });
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SpawnInput>): vscode.PreparedToolInvocation {
    const mode = options.input.mode ?? 'SYNC';
    return {
      invocationMessage: `Spawning a Baton sub-agent (${mode})`,
      confirmationMessages: {
        title: 'Spawn a sub-agent?',
        message: new vscode.MarkdownString(
          `A sub-agent will run this task with a language model${options.input.parentSessionKey ? `, inheriting the context of \`${options.input.parentSessionKey}\`` : ''}:\n\n> ${String(options.input.task ?? '(no task given)').slice(0, 500)}${toolsAsked(options.input)}`,
        ),
      },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SpawnInput>): Promise<vscode.LanguageModelToolResult> {
    if (!this.settings().subagentsEnabled)
      throw new Error('Sub-agents are turned off (setting baton.subagents.enabled). Do the task yourself, or ask the user to enable them.');
    const { task, parentSessionKey, mode = 'SYNC', specId, files, runner = LM_RUNNER } = options.input;
    if (typeof task !== 'string' || !task.trim()) throw new Error('Pass "task": what the sub-agent should do, self-contained.');
    if (!EXECUTION_MODES.includes(mode)) throw new Error(`"mode" must be one of ${EXECUTION_MODES.join(', ')}.`);
    if (!this.runs.runnerNames.includes(runner))
      throw new Error(`"runner" must be one of ${this.runs.runnerNames.join(', ')} (the external runner needs the setting baton.subagents.externalCommand).`);
    const grant = this.grantFor(runner, options.input);
    const spawned = await this.runs.spawn({
      parentSessionKey: parentSessionKey ?? null,
      task,
      runner,
      mode,
      specId,
      files,
      workspacePath: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      // Recorded with the run when a grant was asked for; a spawn that asked for none records nothing.
      tools: grant && grant.source !== 'none' ? grant.granted : undefined,
    });
    if (mode !== 'SYNC')
      return result(
        withGrant(
          `Started run ${spawned.runId} (${mode}) in session ${spawned.sessionKey}. ${mode === 'ASYNC_POLL' ? 'Check it with baton_get_run_status.' : 'Its result will be delivered into the parent session when it finishes.'}`,
          grant,
        ),
      );
    const run = spawned.run;
    if (run?.status !== 'completed') {
      const error = (run?.error ?? 'unknown error').replace(/\.+$/, '');
      if (/no language model/i.test(error)) throw new Error(withGrant(`${error}. Do the task yourself.`, grant));
      throw new Error(withGrant(`The sub-agent failed: ${error}. Retry with a clearer task, or do it yourself.`, grant));
    }
    return result(withGrant(`Sub-agent ${spawned.sessionKey} (run ${spawned.runId}) answered:\n\n${run.resultContent ?? ''}`, grant));
  }
}

interface QueryInput {
  id: string;
  prompt: string;
}

export class QuerySubagentTool implements vscode.LanguageModelTool<QueryInput> {
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

/**
 * Registers every catalogue tool with an `lm` face under its public name: the catalogue's handler
 * when it has one, else the host's own (the tools that need this window's models or run manager).
 */
export function registerTools(host: BatonHost, runs: RunManager, archivist: Archivist, settings: () => SpawnSettings): vscode.Disposable[] {
  const hostTools: Record<string, vscode.LanguageModelTool<never>> = {
    spawn: new SpawnSubagentTool(host, runs, settings),
    querySubagent: new QuerySubagentTool(archivist),
    runStatus: new GetRunStatusTool(runs),
  };
  return toolsOf('lm').map((tool) => {
    const implementation = tool.run ? new CatalogueTool(host, tool.run) : hostTools[tool.id];
    if (!implementation) throw new Error(`the language-model tool ${tool.face.name} has no handler`);
    return vscode.lm.registerTool(tool.face.name, implementation);
  });
}
