// Archival (docs/archival.md): after a turn, if the triggers say so, the finished turn moves into a
// holder sub-agent that keeps its whole transcript (a session in the store, made by the archive
// route, which also writes it as a JSONL file on disk); the parent keeps `[archived turn]`, the holder's id and a
// summary. Holders answer questions about their turn with only the tools granted to them and, up
// to the depth cap, archive their own turns the same way.

import * as vscode from 'vscode';
import {
  MAX_TURNS_MARKER,
  deniedToolMessage,
  deterministicSummary,
  effectiveSummaryStyle,
  endedAtMaxTurns,
  grantedTools,
  holderMayUse,
  holderTask,
  inStyle,
  matchModel,
  parseModelSummary,
  renderSummary,
  shouldArchive,
  summaryRequest,
  type ArchivalSettings,
  type ArchiveSummary,
  type LiveHolder,
} from '../core/archival';
import type { BatonClient } from '../client/batonClient';
import { ask } from './lmRunner';
import { DEFAULT_AGENT } from '../core/agents';

export const HOLDER_RUNNER = 'holder';
/** Model rounds a holder gets to answer one question (tool calls included) before its turn ends at max turns. */
export const HOLDER_MAX_ROUNDS = 5;

export interface FinishedTurn {
  sessionKey: string;
  depth: number;
  prompt: string;
  response: string;
  toolsUsed: string[];
  toolCallOpen: boolean;
  /** The model's reply ended with the max-turns marker (what Baton adds around it, such as source links, aside). */
  maxTurnsEnding: boolean;
  /** The session's stored turns this turn wrote (seqs, inclusive): what the archive moves into the holder. */
  range: { from: number; to: number } | null;
}

export interface ArchiveResult {
  holderId: string;
  marker: string;
  summary: ArchiveSummary;
  reason: string;
}

/** The stored range a write added, from a transcript write's reply (turnCount after it, turns appended). */
export function writtenRange(first: { turnCount?: number; appended?: number }, last: { turnCount?: number }): { from: number; to: number } | null {
  if (first.turnCount === undefined || last.turnCount === undefined) return null;
  const from = first.turnCount - (first.appended ?? 0) + 1;
  return last.turnCount >= from ? { from, to: last.turnCount } : null;
}

export class Archivist {
  /** Live holders per parent session, oldest first. */
  private readonly holders = new Map<string, LiveHolder[]>();

  constructor(
    private readonly client: () => Promise<BatonClient>,
    private readonly settings: () => ArchivalSettings,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  /** The holders archived in this window, per parent, oldest first. */
  liveHolders(parentKey: string): LiveHolder[] {
    return this.holders.get(parentKey) ?? [];
  }

  /** Every holder of a parent the store knows (also those archived before a reload, or through the API), oldest first. */
  async holdersOf(parentKey: string): Promise<LiveHolder[]> {
    const client = await this.client();
    // The archivist writes as the default agent: its holders are that agent's sessions (keys are per agent).
    const { sessions } = await client.listSessions({ parent: parentKey, agentId: DEFAULT_AGENT });
    const stored = sessions
      .filter((s) => s.harnessAgentType === HOLDER_RUNNER)
      .sort((x, y) => x.createdAt.localeCompare(y.createdAt) || x.key.localeCompare(y.key, undefined, { numeric: true }))
      .map((s) => ({ id: s.key, task: s.title ?? 'Archive' }));
    const known = new Set(stored.map((h) => h.id));
    return [...stored, ...this.liveHolders(parentKey).filter((h) => !known.has(h.id))];
  }

  /** Evaluates the triggers for a finished turn and archives it when they fire. */
  async afterTurn(turn: FinishedTurn, model?: vscode.LanguageModelChat): Promise<ArchiveResult | null> {
    const decision = shouldArchive(this.settings(), {
      text: `${turn.prompt}\n${turn.response}`,
      maxTurnsEnding: turn.maxTurnsEnding,
      toolCalls: turn.toolsUsed.length,
      toolCallOpen: turn.toolCallOpen,
      depth: turn.depth,
    });
    if (!decision.archive || !turn.range) return null;
    return this.archive({ ...turn, range: turn.range }, decision.reason, model);
  }

  /** The model that writes summaries: the summary.model setting when it names an available model, else the conversation's. */
  private async summaryModel(fallback?: vscode.LanguageModelChat): Promise<vscode.LanguageModelChat | undefined> {
    const wanted = this.settings().summary.model;
    if (!wanted) return fallback;
    const found = matchModel(await vscode.lm.selectChatModels({}), wanted);
    if (!found) this.warn(`baton.archival.summary.model "${wanted}" matches no available language model; using the conversation's model.`);
    return found ?? fallback;
  }

  private async summarise(turn: FinishedTurn, conversationModel?: vscode.LanguageModelChat): Promise<ArchiveSummary> {
    const configured = this.settings().summary.style;
    const fallback = (): ArchiveSummary => inStyle({ kind: 'structured', value: deterministicSummary(turn.prompt, turn.response, turn.toolsUsed) }, configured);
    const model = await this.summaryModel(conversationModel);
    if (!model) return fallback();
    const { style, warning } = effectiveSummaryStyle(configured, model.vendor);
    if (warning) this.warn(warning);
    try {
      const out = await ask(model, summaryRequest(style, turn.prompt, turn.response));
      return parseModelSummary(out.content);
    } catch {
      return fallback();
    }
  }

  /** Archives the turn's stored range into a new holder, whatever the triggers say. */
  async archive(turn: FinishedTurn & { range: { from: number; to: number } }, reason: string, model?: vscode.LanguageModelChat): Promise<ArchiveResult> {
    const client = await this.client();
    const range = turn.range;
    const summary = await this.summarise(turn, model);
    // One store write: the holder session (a child of the turn's session) with the turn's stored
    // turns, and the marker as a System turn of the parent (docs/archival.md, "Headless archival").
    const archived = await client.call('archiveTurns', {
      params: { key: turn.sessionKey },
      body: { from: range.from, to: range.to, summary: renderSummary(summary), title: holderTask(turn.prompt) },
    });
    // The route also wrote the holder's turns on disk, as it does for every caller:
    // agents/subagent-<id>/sessions/<id>.jsonl under the data directory (docs/archival.md).
    const holderId = archived.holderKey;
    const run = await client.saveRun({
      runner: HOLDER_RUNNER,
      status: 'pending',
      executionMode: 'SYNC',
      sessionKey: holderId,
      parentSessionKey: turn.sessionKey,
      prompt: turn.prompt,
      specId: `archive:${reason}`,
    });
    await client.saveRun({ id: run.id, status: 'running' });
    await client.saveRun({ id: run.id, status: 'completed', resultContent: archived.marker, durationMs: 0, finishedAt: new Date().toISOString() });
    this.holders.set(turn.sessionKey, [...this.liveHolders(turn.sessionKey), { id: holderId, task: holderTask(turn.prompt) }]);
    return { holderId, marker: archived.marker, summary, reason };
  }

  /** Answers a question from a holder's transcript (with a model when there is one), as a turn of the holder. */
  async query(holderId: string, prompt: string, model?: vscode.LanguageModelChat): Promise<string> {
    const client = await this.client();
    // The default agent's holder: the one this archivist writes (keys are per agent, docs/security.md).
    const holder = await client.getSession(holderId, DEFAULT_AGENT);
    if (!holder) throw new Error(`There is no sub-agent "${holderId}". Use an id from the Live Subagents list or from baton_spawn_subagent.`);
    const turns = (await client.turns(holderId, 1, 2000, DEFAULT_AGENT)).turns;
    const transcript = turns.map((t) => `${t.role === 'user' ? 'User' : t.role === 'assistant' ? 'Assistant' : t.role}: ${t.text}`).join('\n');
    let answer: string;
    let toolsUsed: string[] = [];
    if (model) ({ answer, toolsUsed } = await this.answerWithModel(model, transcript, prompt));
    else {
      const words = prompt.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
      const hits = turns.filter((t) => words.some((w) => t.text.toLowerCase().includes(w)));
      answer = hits.length
        ? hits.map((t) => `${t.role}: ${t.text}`).join('\n\n')
        : `Nothing in ${holderId} matches "${prompt}". Its transcript:\n\n${transcript}`;
    }
    const written = await client.call('userPromptSubmit', {
      body: {
        harness: 'baton',
        sessionKey: holderId,
        transcript: [...turns.map((t) => ({ role: t.role, content: t.text })), { role: 'user', content: prompt }, { role: 'assistant', content: answer }],
      },
    });
    const depth = await this.depthOf(holder);
    await this.afterTurn(
      {
        sessionKey: holderId,
        depth,
        prompt,
        response: answer,
        toolsUsed,
        toolCallOpen: false,
        maxTurnsEnding: endedAtMaxTurns(answer),
        range: writtenRange(written, written),
      },
      model,
    );
    return answer;
  }

  /** A holder's depth: one more than its parent's when the parent is a holder too, else 1 (whatever the keys look like). */
  private async depthOf(holder: { harnessAgentType: string | null; parentSessionKey: string | null }): Promise<number> {
    const client = await this.client();
    let depth = 0;
    // Bounded: the depth cap is at most 10, so no walk needs more steps than this.
    for (let node: typeof holder | null = holder; node?.harnessAgentType === HOLDER_RUNNER && depth < 32; depth++) {
      node = node.parentSessionKey ? await client.getSession(node.parentSessionKey, DEFAULT_AGENT) : null;
    }
    return depth;
  }

  /**
   * A holder's model loop: only the tools granted to holders are offered (none by default); a call
   * to any other tool is refused with a message, never run. After HOLDER_MAX_ROUNDS rounds the
   * answer so far ends with the max-turns marker, which is itself an archival trigger.
   */
  private async answerWithModel(model: vscode.LanguageModelChat, transcript: string, prompt: string): Promise<{ answer: string; toolsUsed: string[] }> {
    const grant = this.settings().holderTools;
    const tools = grantedTools(vscode.lm.tools, grant).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const messages = [vscode.LanguageModelChatMessage.User(`You are a sub-agent holding this transcript:\n\n${transcript}\n\nAnswer from it only:\n${prompt}`)];
    const toolsUsed: string[] = [];
    let answer = '';
    const cts = new vscode.CancellationTokenSource();
    try {
      for (let round = 0; round < HOLDER_MAX_ROUNDS; round++) {
        const response = await model.sendRequest(messages, tools.length ? { tools } : {}, cts.token);
        const calls: vscode.LanguageModelToolCallPart[] = [];
        let text = '';
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) text += part.value;
          else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
        }
        answer += text;
        if (calls.length === 0) return { answer, toolsUsed };
        messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
        const results: vscode.LanguageModelToolResultPart[] = [];
        for (const call of calls) {
          toolsUsed.push(call.name);
          let content: Array<vscode.LanguageModelTextPart | unknown>;
          if (!holderMayUse(grant, call.name)) content = [new vscode.LanguageModelTextPart(deniedToolMessage(call.name))];
          else {
            try {
              content = (await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: undefined }, cts.token)).content;
            } catch (err) {
              content = [new vscode.LanguageModelTextPart(`Tool "${call.name}" failed: ${(err as Error).message}`)];
            }
          }
          results.push(new vscode.LanguageModelToolResultPart(call.callId, content));
        }
        messages.push(vscode.LanguageModelChatMessage.User(results));
      }
      return { answer: `${answer}\n\n${MAX_TURNS_MARKER}`, toolsUsed };
    } finally {
      cts.dispose();
    }
  }
}
