// What an end-to-end test with a real harness CLI shows when an assertion fails (and, with
// BATON_TEST_SHOW=1, after the suite): the CLI's runs, the requests the scripted model server saw,
// and Baton's hooks.log; and the sessions Baton stored, as `baton sessions --json` lists them.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { baton, type RunResult } from '../shared/claudeCli';

/** A row of `baton sessions --json`: the fields the end-to-end tests check. */
export interface StoredSession {
  key: string;
  parentSessionKey: string | null;
  harness: string;
  harnessAgentId: string | null;
  harnessAgentType: string | null;
  status: string;
  turnCount: number;
}

/** The end of the data directory's hooks.log (one line per hook failure or failed step). */
export function hooksLogText(dataDir: string | undefined, tail = 4000): string {
  const file = dataDir ? path.join(dataDir, 'hooks.log') : '';
  return file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8').slice(-tail) : '(no hooks.log)';
}

/** One run of a CLI: how it ended and the end of what it printed. */
export function runText(label: string, r: RunResult | undefined, tail = 4000): string {
  if (!r) return `--- ${label}: not run`;
  return `--- ${label} exit ${r.code} signal ${r.signal} timedOut ${r.timedOut} in ${r.ms} ms\n--- stdout\n${r.stdout.slice(-tail)}\n--- stderr\n${r.stderr.slice(-tail)}`;
}

/** The whole report, to append to an assertion message. */
export function e2eReport(parts: { runs: Array<[label: string, run: RunResult | undefined]>; requests?: string[]; dataDir?: string }): string {
  const sections = parts.runs.map(([label, run]) => runText(label, run));
  if (parts.requests) sections.push(`--- requests\n${parts.requests.join('\n')}`);
  sections.push(`--- hooks.log\n${hooksLogText(parts.dataDir)}`);
  return `\n${sections.join('\n')}`;
}

/** `baton sessions --json` (through the running server when one holds the data directory). */
export async function storedSessions(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ listed: RunResult; sessions: StoredSession[] }> {
  const listed = await baton(['sessions', '--json', '--data-dir', dataDir], env);
  if (listed.code !== 0) throw new Error(`baton sessions --json exited ${listed.code}: ${listed.stderr}`);
  return { listed, sessions: (JSON.parse(listed.stdout) as { sessions: StoredSession[] }).sessions };
}
