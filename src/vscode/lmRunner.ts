// Runs a sub-agent with a VS Code language model (vscode.lm): the child's prompt (inherited block
// plus task) as one user message, the streamed answer as the result, tokens counted by the model.
// A child granted tools at spawn (docs/runs.md, "Tools of a sub-agent") is offered those and only
// those; a call to any other is refused with a message and never run.

import * as vscode from 'vscode';
import { childPrompt } from '../core/runs';
import type { RunOutput, RunRequest, Runner } from '../runs/runner';

export const LM_RUNNER = 'vscode-lm';

/** The first chat model VS Code offers (Copilot's, or any other provider's); undefined when none. */
export async function pickModel(preferred?: vscode.LanguageModelChat): Promise<vscode.LanguageModelChat | undefined> {
  if (preferred) return preferred;
  const models = await vscode.lm.selectChatModels({});
  return models[0];
}

export async function ask(model: vscode.LanguageModelChat, prompt: string, token?: vscode.CancellationToken): Promise<RunOutput> {
  const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], {}, token ?? new vscode.CancellationTokenSource().token);
  let content = '';
  for await (const fragment of response.text) content += fragment;
  const count = (text: string) => Promise.resolve(model.countTokens(text)).catch(() => undefined);
  const [inputTokens, outputTokens] = await Promise.all([count(prompt), count(content)]);
  return { content, inputTokens, outputTokens };
}

/** Model rounds of a child with tools: each round may call tools; the last one's text ends the run. */
export const SUBAGENT_MAX_ROUNDS = 8;

/** What a child's model reads when it calls a tool it was not granted. */
export function notGrantedMessage(tool: string): string {
  return `Tool "${tool}" is not granted to this sub-agent (tools are granted when it is spawned). Do the task without it, or say that you are blocked; do not retry.`;
}

/**
 * Asks with the granted tools on offer: each tool call is answered (granted ones run through
 * vscode.lm.invokeTool, others refused) and the model is asked again, at most SUBAGENT_MAX_ROUNDS
 * times. The result is the text of every round.
 */
export async function askWithTools(
  model: vscode.LanguageModelChat,
  prompt: string,
  grant: readonly string[],
  token: vscode.CancellationToken,
): Promise<RunOutput> {
  const tools = vscode.lm.tools.filter((t) => grant.includes(t.name)).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const messages = [vscode.LanguageModelChatMessage.User(prompt)];
  let content = '';
  for (let round = 0; round < SUBAGENT_MAX_ROUNDS; round++) {
    const response = await model.sendRequest(messages, tools.length ? { tools } : {}, token);
    const calls: vscode.LanguageModelToolCallPart[] = [];
    let text = '';
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) text += part.value;
      else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
    }
    content += text;
    if (calls.length === 0) break;
    if (round === SUBAGENT_MAX_ROUNDS - 1) {
      content += `\n\n[Stopped after ${SUBAGENT_MAX_ROUNDS} model rounds with tool calls left unanswered]`;
      break;
    }
    messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
    const results: vscode.LanguageModelToolResultPart[] = [];
    for (const call of calls) {
      let parts: Array<vscode.LanguageModelTextPart | unknown>;
      if (!grant.includes(call.name)) parts = [new vscode.LanguageModelTextPart(notGrantedMessage(call.name))];
      else {
        try {
          parts = (await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: undefined }, token)).content;
        } catch (err) {
          parts = [new vscode.LanguageModelTextPart(`Tool "${call.name}" failed: ${(err as Error).message}`)];
        }
      }
      results.push(new vscode.LanguageModelToolResultPart(call.callId, parts));
    }
    messages.push(vscode.LanguageModelChatMessage.User(results));
  }
  const count = (value: string) => Promise.resolve(model.countTokens(value)).catch(() => undefined);
  const [inputTokens, outputTokens] = await Promise.all([count(prompt), count(content)]);
  return { content, inputTokens, outputTokens };
}

export class LanguageModelRunner implements Runner {
  readonly name = LM_RUNNER;

  constructor(private readonly model: () => Promise<vscode.LanguageModelChat | undefined>) {}

  async run(request: RunRequest, signal: AbortSignal): Promise<RunOutput> {
    const model = await this.model();
    if (!model) throw new Error('No language model is available in VS Code (install or sign in to a chat model provider), so the sub-agent cannot run.');
    const cts = new vscode.CancellationTokenSource();
    signal.addEventListener('abort', () => cts.cancel(), { once: true });
    try {
      const prompt = childPrompt(request.inherited, request.task, request.brief);
      // No grant: one plain request, as a child without tools has always run.
      return await (request.tools.length ? askWithTools(model, prompt, request.tools, cts.token) : ask(model, prompt, cts.token));
    } finally {
      cts.dispose();
    }
  }
}
