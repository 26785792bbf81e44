// The @baton chat participant. Every conversation with it is a tracked session (its key travels
// in the result metadata), so sub-agents it spawns hang under it in the tree. Commands:
// /parent [key], /search <query>, /tree, /runs; a free-form question is answered with the request's
// language model from the conversation so far (archived turns only as their marker, see
// docs/archival.md), the parent context and search hits, or deterministically without a model.

import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { BatonClient, HitView, TreeView } from '../client/batonClient';
import { endedAtMaxTurns, historyForModel, liveSubagentsSection, type ConversationTurn } from '../core/archival';
import { formatHits, HIT_FORMATS } from '../core/searchHits';
import { compileSearchQuery } from '../core/searchQuery';
import type { RunManager } from '../runs/runManager';
import { writtenRange, type Archivist } from './archive';
import type { BatonHost } from './host';

export const PARTICIPANT_ID = 'baton.chat';
export const CHAT_HARNESS = 'vscode-chat';

export interface BatonChatResult extends vscode.ChatResult {
  /** archived/archivedMarker: the turn moved into that holder; the next requests send the model only the marker. */
  metadata: { sessionKey: string; command?: string; query?: string; archived?: string; archivedMarker?: string };
}

/** The conversation so far as turns (prompt, response, the marker of an archived turn), from VS Code's chat history. */
export function conversationTurns(history: vscode.ChatContext['history']): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  for (const entry of history) {
    if (entry instanceof vscode.ChatRequestTurn) {
      turns.push({ prompt: entry.command ? `/${entry.command} ${entry.prompt}`.trim() : entry.prompt, response: '' });
    } else if (entry instanceof vscode.ChatResponseTurn) {
      if (turns.length === 0) turns.push({ prompt: '', response: '' });
      const turn = turns[turns.length - 1];
      turn.response += entry.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
      const marker = (entry.result.metadata as { archivedMarker?: unknown } | undefined)?.archivedMarker;
      if (typeof marker === 'string' && marker) turn.archivedMarker = marker;
    }
  }
  return turns;
}

const STOP_WORDS = new Set(
  'the and for are but not you all any can had her was one our out day get has him his how man new now old see two way who boy did its let put say she too use what when where which while with from that this have will your about there their they them then than been were does into some what why how'.split(
    ' ',
  ),
);

/** A question typed in natural language, as a search: its content words, any of them (ranked by BM25). */
export function naturalQuery(question: string): string {
  const words = [...new Set((question.toLowerCase().match(/[\p{L}\p{N}_-]{3,}/gu) ?? []).filter((w) => !STOP_WORDS.has(w)))].slice(0, 12);
  return words.map((w) => `"${w.replace(/"/g, '')}"`).join(' OR ');
}

/** Hits other than this conversation and its own sub-agents. */
function notOwn(hits: HitView[], chatKey: string): HitView[] {
  return hits.filter((h) => h.sessionKey !== chatKey && !h.sessionKey.startsWith(`${chatKey}/`));
}

function openLink(key: string, label = key, seq?: number): string {
  const args = encodeURIComponent(JSON.stringify(seq ? [key, seq] : [key]));
  return `[${label.replace(/[[\]]/g, '')}](command:baton.openTranscript?${args})`;
}

function md(text: string): vscode.MarkdownString {
  const m = new vscode.MarkdownString(text);
  m.isTrusted = { enabledCommands: ['baton.openTranscript', 'baton.previewInherited', 'baton.revealSession'] };
  return m;
}

function treeLines(nodes: TreeView[], depth = 0, out: string[] = [], limit = 200): string[] {
  for (const node of nodes) {
    if (out.length >= limit) break;
    out.push(
      `${'  '.repeat(depth)}- ${openLink(node.key, node.title ?? node.key)} — ${node.harness}${node.harnessAgentType ? ` ${node.harnessAgentType}` : ''}, ${node.status}, ${node.turnCount} turns`,
    );
    treeLines(node.children, depth + 1, out, limit);
  }
  return out;
}

export class BatonChat {
  /** Callback results delivered while a conversation was idle: announced at its next request. */
  private readonly arrived = new Map<string, string[]>();
  private readonly handling = new Set<string>();

  constructor(
    private readonly host: BatonHost,
    private readonly runs: RunManager,
    private readonly archivist: Archivist,
    /** The session selected in the Sessions view, if any: what the user is looking at. */
    private readonly selectedSession: () => string | undefined = () => undefined,
  ) {}

  /** RunManager reports deliveries here; those that land while the conversation is answering are shown by that answer. */
  noteDelivered(parentKey: string, text: string): void {
    if (this.handling.has(parentKey)) return;
    this.arrived.set(parentKey, [...(this.arrived.get(parentKey) ?? []), text]);
  }

  private takeArrived(key: string): string[] {
    const texts = this.arrived.get(key) ?? [];
    this.arrived.delete(key);
    return texts;
  }

  /** The conversation's session: from an earlier answer's metadata, or a new one. */
  sessionFor(context: vscode.ChatContext): { key: string; fresh: boolean } {
    for (let i = context.history.length - 1; i >= 0; i--) {
      const turn = context.history[i];
      if (turn instanceof vscode.ChatResponseTurn && typeof (turn.result.metadata as { sessionKey?: unknown })?.sessionKey === 'string') {
        return { key: (turn.result.metadata as { sessionKey: string }).sessionKey, fresh: false };
      }
    }
    return { key: `vscode-chat-${crypto.randomUUID()}`, fresh: true };
  }

  /**
   * The session whose context a question is about: the given key, else the newest live session of
   * this workspace, else the one selected in the Sessions view (a workspace with no sessions of its
   * own, e.g. the demo's at `npm start`, whose featured session is selected).
   */
  private async currentSession(client: BatonClient, chatKey: string, explicit?: string): Promise<string | null> {
    if (explicit) return explicit;
    const project = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const { sessions } = await client.listSessions({ project, limit: 20 });
    const candidate = sessions.find((s) => s.harness !== CHAT_HARNESS && s.key !== chatKey && !s.key.startsWith(chatKey));
    const selected = this.selectedSession();
    return candidate?.key ?? (selected && selected !== chatKey ? selected : null);
  }

  async handle(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<BatonChatResult> {
    const client = await this.host.requireClient();
    const { key, fresh } = this.sessionFor(context);
    const project = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (fresh)
      await client.call('sessionStart', {
        // The participant does not put this reply into its prompts: no memories are taken for it (docs/memory.md).
        body: {
          harness: CHAT_HARNESS,
          sessionKey: key,
          project,
          title: request.prompt.slice(0, 80) || `@baton /${request.command ?? ''}`,
          injectMemories: false,
        },
      });
    const promptText = request.command ? `/${request.command} ${request.prompt}`.trim() : request.prompt;
    const promptWrite = await client.call('userPromptSubmit', { body: { harness: CHAT_HARNESS, sessionKey: key, userPrompt: promptText, project } });
    let answerWrite: { turnCount?: number } | undefined;
    await this.runs.setBusy(key, true);
    this.handling.add(key);
    let answer = '';
    /** What the language model itself replied (without Baton's notes around it). */
    let modelReply = '';
    const say = (text: string) => {
      answer += text;
      stream.markdown(md(text));
    };
    const metadata: BatonChatResult['metadata'] = { sessionKey: key, command: request.command };
    const waiting = this.takeArrived(key);
    try {
      if (waiting.length) say(`_${waiting.length} sub-agent result(s) arrived since your last message:_\n\n${waiting.join('\n\n')}\n\n`);
      switch (request.command) {
        case 'parent':
          await this.parent(client, key, request.prompt.trim(), say);
          break;
        case 'search':
          metadata.query = request.prompt;
          await this.search(client, key, request.prompt, say);
          break;
        case 'tree':
          await this.tree(client, say);
          break;
        case 'runs':
          await this.listRuns(client, key, say);
          break;
        default:
          modelReply = await this.answer(client, key, request, context, stream, say, token, waiting);
      }
    } catch (err) {
      say(`\n\n**Baton:** ${(err as Error).message}`);
    } finally {
      answerWrite = await client
        .call('userPromptSubmit', { body: { harness: CHAT_HARNESS, sessionKey: key, lastAssistantMessage: answer || '(no answer)' } })
        .catch(() => ({}));
      const delivered = await this.runs.setBusy(key, false).catch(() => []);
      this.handling.delete(key);
      if (delivered.length) stream.markdown(md(`\n\n_${delivered.length} sub-agent result(s) arrived and were added to this conversation._`));
    }
    const archived = await this.archivist
      .afterTurn(
        {
          sessionKey: key,
          depth: 0,
          prompt: promptText,
          response: answer,
          toolsUsed: request.toolReferences.map((t) => t.name),
          toolCallOpen: false,
          maxTurnsEnding: endedAtMaxTurns(modelReply),
          range: answerWrite ? writtenRange(promptWrite, answerWrite) : null,
        },
        request.model,
      )
      .catch(() => null);
    if (archived) Object.assign(metadata, { archived: archived.holderId, archivedMarker: archived.marker });
    return { metadata };
  }

  private async parent(client: BatonClient, chatKey: string, explicit: string, say: (t: string) => void): Promise<void> {
    const target = await this.currentSession(client, chatKey, explicit || undefined);
    if (!target)
      return say('No session to show: none is recorded for this workspace yet. Select one in the Sessions view, or name one: `/parent <session key>`.');
    const view = await client.inherited(target);
    if (view.empty) return say(`${openLink(target)} has nothing to inherit yet (no transcript or checkpoint).`);
    say(
      `A new sub-agent of ${openLink(target)} would receive (${view.chars} characters, about ${view.estimatedTokens} tokens):\n\n\`\`\`markdown\n${view.block}\n\`\`\``,
    );
  }

  private async search(client: BatonClient, chatKey: string, query: string, say: (t: string) => void): Promise<HitView[]> {
    if (!compileSearchQuery(query).match) {
      say('Give me something to search for: `/search <words>`.');
      return [];
    }
    const hits = notOwn(await client.search(query, { limit: 20 }), chatKey).slice(0, 10);
    if (hits.length === 0) {
      say(`No session mentions ${JSON.stringify(query)}.`);
      return hits;
    }
    say(formatHits(hits, { ...HIT_FORMATS.chat, key: (h) => openLink(h.sessionKey, h.sessionKey, h.turnSeq) }));
    return hits;
  }

  private async tree(client: BatonClient, say: (t: string) => void): Promise<void> {
    const lines = treeLines(await client.tree());
    say(lines.length ? lines.join('\n') : 'No sessions yet.');
  }

  private async listRuns(client: BatonClient, chatKey: string, say: (t: string) => void): Promise<void> {
    const runs = await client.listRuns({ limit: 30 });
    if (runs.length === 0) return say('No sub-agent runs yet. Ask me to spawn one, or use the `baton_spawn_subagent` tool.');
    const rows = runs.map(
      (r) =>
        `| ${r.id.slice(0, 8)} | ${r.runner} | ${r.status} | ${r.executionMode} | ${r.parentSessionKey === chatKey ? 'this chat' : (r.parentSessionKey ?? '—')} | ${r.durationMs ?? '—'} | ${(r.context.prompt ?? '').replace(/\|/g, '/').slice(0, 60)} |`,
    );
    say(['| run | runner | status | mode | parent | ms | task |', '|---|---|---|---|---|---|---|', ...rows].join('\n'));
  }

  private async answer(
    client: BatonClient,
    chatKey: string,
    request: vscode.ChatRequest,
    chatContext: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    say: (t: string) => void,
    token: vscode.CancellationToken,
    arrived: string[],
  ): Promise<string> {
    const target = await this.currentSession(client, chatKey);
    const query = naturalQuery(request.prompt);
    const [inherited, found, holders] = await Promise.all([
      target ? client.inherited(target) : null,
      query ? client.search(query, { limit: 10 }) : Promise.resolve([] as HitView[]),
      this.archivist.holdersOf(chatKey).catch(() => this.archivist.liveHolders(chatKey)),
    ]);
    const hits = notOwn(found, chatKey).slice(0, 5);
    const sources = [...new Set([...(target && inherited && !inherited.empty ? [target] : []), ...hits.map((h) => h.sessionKey)])];
    const context = [
      arrived.length ? ['## Sub-agent results that arrived', ...arrived].join('\n\n') : '',
      inherited && !inherited.empty ? inherited.block : '',
      hits.length ? `## Search hits\n${formatHits(hits, HIT_FORMATS.chatContext)}` : '',
      liveSubagentsSection(holders),
    ]
      .filter(Boolean)
      .join('\n\n');
    const model = request.model;
    let reply = '';
    if (model) {
      const prompt = `You answer questions about the user's AI agent sessions, using only this context from Baton:\n\n${context || '(no recorded context)'}\n\nQuestion: ${request.prompt}`;
      try {
        // The conversation so far, archived turns only as their marker (docs/archival.md), then the question.
        const history = historyForModel(conversationTurns(chatContext.history)).map((m) =>
          m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.content) : vscode.LanguageModelChatMessage.Assistant(m.content),
        );
        const response = await model.sendRequest([...history, vscode.LanguageModelChatMessage.User(prompt)], {}, token);
        for await (const fragment of response.text) {
          reply += fragment;
          say(fragment);
        }
      } catch (err) {
        say(`The language model could not answer (${(err as Error).message}); here is what Baton has:\n\n${context || 'nothing yet.'}`);
      }
    } else {
      say(
        context
          ? `No language model is available, so here is the context Baton has for this question:\n\n${context}`
          : 'No language model is available and Baton has no recorded context for this question yet.',
      );
    }
    if (sources.length) {
      for (const key of sources) stream.reference(vscode.Uri.from({ scheme: 'baton-session', path: `/${key}` }));
      say(`\n\nSessions used: ${sources.map((k) => openLink(k)).join(', ')}`);
    }
    return reply;
  }

  followups(result: BatonChatResult): vscode.ChatFollowup[] {
    const followups: vscode.ChatFollowup[] = [
      { prompt: '', command: 'tree', label: 'Show the session tree' },
      { prompt: '', command: 'parent', label: 'What would a new sub-agent inherit?' },
      { prompt: '', command: 'runs', label: 'List sub-agent runs' },
    ];
    if (result.metadata?.query) followups.unshift({ prompt: `"${result.metadata.query}"`, command: 'search', label: 'Search the exact phrase' });
    return followups.filter((f) => f.command !== result.metadata?.command || f.command === 'search');
  }
}
