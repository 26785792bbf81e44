// A test extension: a language model ("Scripted", vendor baton-scripted) whose every reply is
// decided by the test. For each request it POSTs what it was sent (messages with their text, tool
// calls and tool results; the tools offered) to the loopback server named by
// BATON_SCRIPTED_MODEL_URL and streams back the parts that server answers: text, or tool calls
// (so agent mode can be driven into runSubagent). The server keeps every request, so a test can
// assert on what a model saw. Without that variable it echoes the last user message.
//
// The provider API (vscode.lm.registerLanguageModelChatProvider) is stable since VS Code 1.104,
// newer than the @types/vscode Baton builds against (its engines.vscode stays lower), so the few
// types used are declared here.

import * as vscode from 'vscode';

export const VENDOR = 'baton-scripted';

interface ModelInformation {
  id: string;
  name: string;
  family: string;
  version: string;
  tooltip?: string;
  detail?: string;
  maxInputTokens: number;
  maxOutputTokens: number;
  capabilities: { toolCalling?: boolean | number; imageInput?: boolean };
  isUserSelectable?: boolean;
}

interface RequestMessage {
  role: number;
  content: ReadonlyArray<unknown>;
  name?: string;
}

interface ResponseOptions {
  tools?: ReadonlyArray<{ name: string; description?: string }>;
  toolMode?: number;
}

interface ChatProvider {
  provideLanguageModelChatInformation(options: { silent: boolean }, token: vscode.CancellationToken): ModelInformation[];
  provideLanguageModelChatResponse(
    model: ModelInformation,
    messages: readonly RequestMessage[],
    options: ResponseOptions,
    progress: vscode.Progress<unknown>,
    token: vscode.CancellationToken,
  ): Promise<void>;
  provideTokenCount(model: ModelInformation, text: string | RequestMessage, token: vscode.CancellationToken): Promise<number>;
}

type LmWithProviders = typeof vscode.lm & { registerLanguageModelChatProvider(vendor: string, provider: ChatProvider): vscode.Disposable };

/** A message part as the test's server receives it. */
export type RecordedPart =
  | { type: 'text'; value: string }
  | { type: 'toolCall'; callId: string; name: string; input: unknown }
  | { type: 'toolResult'; callId: string; text: string }
  | { type: 'other' };

export interface RecordedRequest {
  model: string;
  messages: Array<{ role: 'user' | 'assistant' | 'system'; name?: string; parts: RecordedPart[] }>;
  tools: string[];
}

/** What the server answers: parts streamed back in order. */
export interface ScriptedReply {
  parts: Array<{ text: string } | { toolCall: { callId: string; name: string; input: object } }>;
}

const MODEL: ModelInformation = {
  id: 'scripted-1',
  name: 'Scripted',
  family: 'scripted',
  version: '1',
  tooltip: 'Replies scripted by a test',
  detail: 'Baton tests',
  maxInputTokens: 200_000,
  maxOutputTokens: 16_000,
  capabilities: { toolCalling: true, imageInput: false },
  isUserSelectable: true,
};

function roleName(role: number): 'user' | 'assistant' | 'system' {
  if (role === vscode.LanguageModelChatMessageRole.Assistant) return 'assistant';
  if (role === vscode.LanguageModelChatMessageRole.User) return 'user';
  return 'system';
}

function textOf(parts: ReadonlyArray<unknown>): string {
  return parts.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : typeof p === 'string' ? p : '')).join('');
}

function recordPart(part: unknown): RecordedPart {
  if (part instanceof vscode.LanguageModelTextPart) return { type: 'text', value: part.value };
  if (part instanceof vscode.LanguageModelToolCallPart) return { type: 'toolCall', callId: part.callId, name: part.name, input: part.input };
  if (part instanceof vscode.LanguageModelToolResultPart) return { type: 'toolResult', callId: part.callId, text: textOf(part.content) };
  // Parts from other copies of the API classes (another extension's) still carry their fields.
  const p = part as { value?: unknown; callId?: unknown; name?: unknown; input?: unknown; content?: unknown };
  if (typeof p.value === 'string') return { type: 'text', value: p.value };
  if (typeof p.callId === 'string' && typeof p.name === 'string') return { type: 'toolCall', callId: p.callId, name: p.name, input: p.input };
  if (typeof p.callId === 'string' && Array.isArray(p.content)) return { type: 'toolResult', callId: p.callId, text: textOf(p.content) };
  return { type: 'other' };
}

async function askScript(url: string, request: RecordedRequest, token: vscode.CancellationToken): Promise<ScriptedReply> {
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  try {
    const res = await fetch(`${url.replace(/\/$/, '')}/reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.any([abort.signal, AbortSignal.timeout(120_000)]),
    });
    if (!res.ok) throw new Error(`the script server answered HTTP ${res.status}`);
    return (await res.json()) as ScriptedReply;
  } finally {
    sub.dispose();
  }
}

export function activate(context: vscode.ExtensionContext): void {
  const provider: ChatProvider = {
    provideLanguageModelChatInformation: () => [MODEL],
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      const request: RecordedRequest = {
        model: model.id,
        messages: messages.map((m) => ({ role: roleName(m.role), ...(m.name ? { name: m.name } : {}), parts: m.content.map(recordPart) })),
        tools: (options.tools ?? []).map((t) => t.name),
      };
      const url = process.env.BATON_SCRIPTED_MODEL_URL;
      const reply: ScriptedReply = url
        ? await askScript(url, request, token)
        : { parts: [{ text: `(scripted model, no script) ${textOf(messages[messages.length - 1]?.content ?? []).slice(-400)}` }] };
      for (const part of reply.parts) {
        if ('toolCall' in part) progress.report(new vscode.LanguageModelToolCallPart(part.toolCall.callId, part.toolCall.name, part.toolCall.input));
        else progress.report(new vscode.LanguageModelTextPart(part.text));
      }
    },
    provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : textOf(text.content)).length / 4),
  };
  context.subscriptions.push((vscode.lm as LmWithProviders).registerLanguageModelChatProvider(VENDOR, provider));
  // Models load lazily: asking for ours right away makes it known before the first chat request
  // (otherwise that request can fail with "Language model unavailable").
  void vscode.lm.selectChatModels({ vendor: VENDOR }).then(
    (models) => console.log(`[scripted-model] registered: ${models.map((m) => m.id).join(', ') || 'none yet'}`),
    (err: Error) => console.log(`[scripted-model] selectChatModels failed: ${err.message}`),
  );
}

export function deactivate(): void {}
