// "Baton: Search Sessions": a QuickPick that queries as you type. Each keystroke cancels the
// query in flight (AbortController) and the busy indicator shows while one runs; choosing a hit
// opens the transcript at that turn with the words marked.

import * as vscode from 'vscode';
import type { HitView } from '../client/batonClient';
import { compileSearchQuery } from '../core/searchQuery';
import { hitFacts, markedExcerpt } from '../core/searchHits';
import type { BatonHost } from './host';
import type { Panels } from './panels';

interface HitItem extends vscode.QuickPickItem {
  hit?: HitView;
}

const DEBOUNCE_MS = 60;

export function searchSessions(host: BatonHost, panels: Panels, limit: number, scope?: { sessionKey: string }): Promise<HitView | undefined> {
  const pick = vscode.window.createQuickPick<HitItem>();
  pick.title = scope ? `Search in session ${scope.sessionKey}` : 'Search Sessions';
  pick.placeholder = 'Words, "phrases", -exclusions, prefix*, OR — searches every stored transcript';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  pick.ignoreFocusOut = false;
  let inflight: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let generation = 0;

  const run = async (text: string) => {
    inflight?.abort();
    const query = text.trim();
    if (!compileSearchQuery(query).match) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    const mine = ++generation;
    const controller = new AbortController();
    inflight = controller;
    pick.busy = true;
    try {
      const client = await host.requireClient();
      const hits = await client.search(query, { sessionKey: scope?.sessionKey, limit, signal: controller.signal });
      if (mine !== generation) return; // a newer query owns the list
      pick.items = hits.length
        ? hits.map((hit) => ({
            label: `$(comment-discussion) ${hit.title ?? hit.sessionKey}`,
            description: [...(hit.title ? [hit.sessionKey] : []), ...hitFacts(hit, ['harness', 'age', 'project'])].join(' · '),
            // Excerpts mark hits as [[word]]; QuickPick details are plain text, so show them with guillemets.
            detail: markedExcerpt(hit.excerpt, 'guillemets'),
            alwaysShow: true,
            hit,
          }))
        : [{ label: 'No matches', description: query, alwaysShow: true }];
    } catch (err) {
      if ((err as Error).name === 'AbortError' || mine !== generation) return;
      pick.items = [{ label: '$(error) Search failed', detail: (err as Error).message, alwaysShow: true }];
    } finally {
      if (mine === generation) pick.busy = false;
    }
  };

  return new Promise((resolve) => {
    pick.onDidChangeValue((value) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void run(value), DEBOUNCE_MS);
    });
    pick.onDidAccept(() => {
      const hit = pick.selectedItems[0]?.hit;
      if (!hit) return;
      pick.hide();
      panels.showTranscript(hit.sessionKey, hit.turnSeq, compileSearchQuery(pick.value).terms, hit.agentId);
      resolve(hit);
    });
    pick.onDidHide(() => {
      inflight?.abort();
      if (timer) clearTimeout(timer);
      pick.dispose();
      resolve(undefined);
    });
    pick.show();
  });
}
