// Runs a sub-agent with a VS Code language model (vscode.lm): the child's prompt (inherited block
// plus task) as one user message, the streamed answer as the result, tokens counted by the model.

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

export class LanguageModelRunner implements Runner {
  readonly name = LM_RUNNER;

  constructor(private readonly model: () => Promise<vscode.LanguageModelChat | undefined>) {}

  async run(request: RunRequest, signal: AbortSignal): Promise<RunOutput> {
    const model = await this.model();
    if (!model) throw new Error('No language model is available in VS Code (install or sign in to a chat model provider), so the sub-agent cannot run.');
    const cts = new vscode.CancellationTokenSource();
    signal.addEventListener('abort', () => cts.cancel(), { once: true });
    try {
      return await ask(model, childPrompt(request.inherited, request.task, request.brief), cts.token);
    } finally {
      cts.dispose();
    }
  }
}
