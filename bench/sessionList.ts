// What listing sessions with their spend costs at 2,000 sessions: the reads the Sessions tree makes
// (GET /api/sessions?roots=1, a page of 500; the children of one parent) and the whole tree, on a
// store whose sessions carry spend (1,000 roots, every fourth with three sub-agents and one nested
// under the first), beside the same store without any usage. The committed timing these must stay within: the
// VS Code suite's Sessions tree loads its 2,000-root page in under 5 s (test/vscode/suite/scale.test.ts).
// Also times a transcript write with usage at each depth (the write adds it to every ancestor).
//
//   node --import tsx bench/sessionList.ts [--sessions 2000] [--reads 50]

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../src/store/store';
import type { Turn } from '../src/core/types';
import { now, Sample } from './stats';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SESSIONS = arg('sessions', 2000);
const READS = arg('reads', 50);

let requests = 0;
function exchange(withUsage: boolean): Turn[] {
  requests++;
  const reply: Turn = { role: 'assistant', text: `reply ${requests}` };
  if (withUsage)
    reply.usage = {
      key: `msg_${requests}`,
      model: requests % 3 === 0 ? 'gpt-5-codex' : 'claude-sonnet-4-5-20250929',
      inputTokens: 100 + (requests % 17),
      outputTokens: 300,
      cacheReadTokens: 4000,
      cacheWriteTokens: 50,
      costUsd: null,
    };
  return [{ role: 'user', text: `prompt ${requests}` }, reply];
}

async function build(withUsage: boolean): Promise<{ store: Store; dir: string; parents: string[]; writes: Record<string, Sample> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-list-'));
  const store = await Store.open({ dataDir: dir, holder: 'baton bench', compactBytes: 1 << 30 });
  const parents: string[] = [];
  const writes: Record<string, Sample> = { root: new Sample(), child: new Sample(), grandchild: new Sample() };
  for (let f = 0; f < SESSIONS / 2; f++) {
    const root = `root-${f}`;
    const family: Array<[string, string | null, keyof typeof writes]> = [[root, null, 'root']];
    if (f % 4 === 0) {
      family.push([`${root}/a`, root, 'child'], [`${root}/b`, root, 'child'], [`${root}/c`, root, 'child'], [`${root}/a/x`, `${root}/a`, 'grandchild']);
      parents.push(root);
    }
    for (const [key, parent, depth] of family) {
      await store.write('upsertSession', {
        key,
        harness: 'claude-code',
        project: '/bench',
        ...(parent ? { parentSessionKey: parent, lineageSource: 'explicit' } : {}),
      });
      const turns: Turn[] = [];
      for (let e = 0; e < 3; e++) {
        turns.push(...exchange(withUsage));
        const t0 = now();
        await store.write('recordTranscript', { key, turns });
        writes[depth].push(now() - t0);
      }
    }
  }
  return { store, dir, parents, writes };
}

async function time(store: Store, parents: string[]): Promise<Record<string, Sample>> {
  const out: Record<string, Sample> = { 'roots page (500)': new Sample(), 'children of a root': new Sample(), 'whole tree': new Sample() };
  for (let i = 0; i < READS; i++) {
    let t0 = now();
    const page = await store.read('listSessions', { scope: 'all', rootsOnly: true, limit: 500 });
    out['roots page (500)'].push(now() - t0);
    if (page.sessions.length !== 500) throw new Error(`a page of ${page.sessions.length}`);
    t0 = now();
    await store.read('listSessions', { scope: 'all', parentKey: parents[i % parents.length], limit: 500 });
    out['children of a root'].push(now() - t0);
    if (i < 10) {
      t0 = now();
      await store.read('tree', { scope: 'all' });
      out['whole tree'].push(now() - t0);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const withUsage of [false, true]) {
    const { store, dir, parents, writes } = await build(withUsage);
    try {
      const reads = await time(store, parents);
      const label = withUsage ? 'with spend' : 'no usage';
      for (const [name, sample] of Object.entries(reads)) {
        const s = sample.summary();
        rows.push(`| ${label} | ${name} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} |`);
      }
      for (const [depth, sample] of Object.entries(writes)) {
        const s = sample.summary();
        rows.push(`| ${label} | transcript write, ${depth} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} |`);
      }
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`${SESSIONS} sessions (${SESSIONS / 2} roots, every fourth with 3 sub-agents and 1 nested), 3 exchanges each; in-process store (worker thread).`);
  console.log('| store | read | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
