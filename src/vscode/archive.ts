// Archival (docs/memory.md, "Archival"): after a turn, if the triggers say so, the finished turn moves into a holder
// sub-agent that keeps its whole transcript (JSONL on disk and in the store); the parent keeps
// `[archived turn]` with a summary. Holders answer questions about their turn and, up to the depth
// cap, archive their own turns the same way.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  archivedMarker,
  deterministicSummary,
  parseModelSummary,
  shouldArchive,
  type ArchivalSettings,
  type ArchiveSummary,
  type LiveHolder,
} from '../core/archival';
import type { BatonClient } from '../client/batonClient';
import { writeFileAtomic } from '../node/fsync';
import { ask } from './lmRunner';

export const HOLDER_RUNNER = 'holder';

export interface FinishedTurn {
  sessionKey: string;
  depth: number;
  prompt: string;
  response: string;
  toolsUsed: string[];
  toolCallOpen: boolean;
  conversationTurns: number;
}

export interface ArchiveResult {
  holderId: string;
  marker: string;
  summary: ArchiveSummary;
  reason: string;
}

const SUMMARY_PROMPT = `Summarise the conversation turn below as JSON with exactly these fields:
{"outcome": string, "key_findings": string[], "files_touched": string[], "tools_used": string[], "open_questions": string[]}
Answer with the JSON only.`;

export class Archivist {
  /** Live holders per parent session, newest last. */
  private readonly holders = new Map<string, LiveHolder[]>();

  constructor(
    private readonly client: () => Promise<BatonClient>,
    private readonly dataDir: () => string,
    private readonly settings: () => ArchivalSettings,
  ) {}

  liveHolders(parentKey: string): LiveHolder[] {
    return this.holders.get(parentKey) ?? [];
  }

  /** Evaluates the triggers for a finished turn and archives it when they fire. */
  async afterTurn(turn: FinishedTurn, model?: vscode.LanguageModelChat): Promise<ArchiveResult | null> {
    const decision = shouldArchive(this.settings(), {
      conversationTurns: turn.conversationTurns,
      text: `${turn.prompt}\n${turn.response}`,
      toolCalls: turn.toolsUsed.length,
      toolCallOpen: turn.toolCallOpen,
      depth: turn.depth,
    });
    if (!decision.archive) return null;
    return this.archive(turn, decision.reason, model);
  }

  async archive(turn: FinishedTurn, reason: string, model?: vscode.LanguageModelChat): Promise<ArchiveResult> {
    const client = await this.client();
    const index = this.liveHolders(turn.sessionKey).length + 1;
    const holderId = `${turn.sessionKey}/holder-${index}`;
    const lines = [
      { role: 'user', content: turn.prompt },
      { role: 'assistant', content: turn.response },
    ];
    // The holder keeps the turn whole: a JSONL file on disk and a session in the store.
    const file = path.join(this.dataDir(), 'archive', `${holderId.replace(/[^\w.-]+/g, '_')}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomic(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await client.call('sessionStart', {
      body: { harness: 'baton', sessionKey: holderId, parentSessionKey: turn.sessionKey, harnessAgentType: HOLDER_RUNNER, title: `archived turn ${index}` },
    });
    await client.call('userPromptSubmit', { body: { harness: 'baton', sessionKey: holderId, transcript: lines } });
    let summary: ArchiveSummary;
    if (model) {
      try {
        const out = await ask(model, `${SUMMARY_PROMPT}\n\nUser: ${turn.prompt}\n\nAssistant: ${turn.response}`);
        summary = parseModelSummary(out.content);
      } catch {
        summary = { kind: 'structured', value: deterministicSummary(turn.prompt, turn.response, turn.toolsUsed) };
      }
    } else summary = { kind: 'structured', value: deterministicSummary(turn.prompt, turn.response, turn.toolsUsed) };
    const marker = archivedMarker(holderId, summary);
    await client
      .saveRun({
        runner: HOLDER_RUNNER,
        status: 'pending',
        executionMode: 'SYNC',
        sessionKey: holderId,
        parentSessionKey: turn.sessionKey,
        prompt: turn.prompt,
        specId: `archive:${reason}`,
      })
      .then((run) =>
        client
          .saveRun({ id: run.id, status: 'running' })
          .then(() => client.saveRun({ id: run.id, status: 'completed', resultContent: marker, durationMs: 0, finishedAt: new Date().toISOString() })),
      );
    await client.call('userPromptSubmit', { body: { harness: 'vscode-chat', sessionKey: turn.sessionKey, transcript: [{ role: 'system', content: marker }] } });
    const outcome = summary.kind === 'structured' ? summary.value.outcome : summary.kind === 'paragraph' ? summary.text.slice(0, 200) : 'summary unavailable';
    this.holders.set(turn.sessionKey, [...this.liveHolders(turn.sessionKey), { id: holderId, outcome }]);
    return { holderId, marker, summary, reason };
  }

  /** Answers a question from a holder's transcript (with a model when there is one), as a turn of the holder. */
  async query(holderId: string, prompt: string, model?: vscode.LanguageModelChat): Promise<string> {
    const client = await this.client();
    const holder = await client.getSession(holderId);
    if (!holder) throw new Error(`There is no sub-agent "${holderId}". Use an id from the Live Subagents list or from baton_spawn_subagent.`);
    const turns = (await client.turns(holderId, 1, 2000)).turns;
    const transcript = turns.map((t) => `${t.role === 'user' ? 'User' : t.role === 'assistant' ? 'Assistant' : t.role}: ${t.text}`).join('\n');
    let answer: string;
    if (model) answer = (await ask(model, `You are a sub-agent holding this transcript:\n\n${transcript}\n\nAnswer from it only:\n${prompt}`)).content;
    else {
      const words = prompt.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
      const hits = turns.filter((t) => words.some((w) => t.text.toLowerCase().includes(w)));
      answer = hits.length
        ? hits.map((t) => `${t.role}: ${t.text}`).join('\n\n')
        : `Nothing in ${holderId} matches "${prompt}". Its transcript:\n\n${transcript}`;
    }
    await client.call('userPromptSubmit', {
      body: {
        harness: 'baton',
        sessionKey: holderId,
        transcript: [...turns.map((t) => ({ role: t.role, content: t.text })), { role: 'user', content: prompt }, { role: 'assistant', content: answer }],
      },
    });
    const depth = holderId.split('/holder-').length - 1;
    await this.afterTurn(
      {
        sessionKey: holderId,
        depth,
        prompt,
        response: answer,
        toolsUsed: [],
        toolCallOpen: false,
        conversationTurns: turns.filter((t) => t.role === 'user').length + 1,
      },
      model,
    );
    return answer;
  }
}
