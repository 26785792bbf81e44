// `baton demo [--data-dir D] [--remove]`: fills a demo data directory from the recorded harness
// transcripts in demo/sessions/ through the same import as `baton import` (docs/demo.md), so the
// tree, search, preview and `@baton` have something real to show before any harness is installed.
// Never the user's data directory; idempotent; `--remove` deletes it again.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { BatonError } from '../core/errors';
import { claudeCode as claudeCodeHarness } from '../harnesses/claudeCode';
import type { ApiAccess } from '../api/client';
import { importClaudeCode, scanClaudeProjects } from '../harnesses/claudeCode/import';
import { codex as codexHarness } from '../harnesses/codex';
import { importCodex } from '../harnesses/codex/import';
import { openCode as openCodeHarness } from '../harnesses/openCode';
import { importOpenCode } from '../harnesses/openCode/import';
import { loadSqlJs } from '../store/sqljs';
import { copilot as copilotHarness } from '../harnesses/copilot';
import { importCopilotChatSessions } from '../harnesses/copilot/import';
import { assertDemoTarget, defaultDemoDataDir, findDemoSessions, readDemoMarker, removeDemoDataDir, writeDemoMarker } from '../node/demoData';
import { liveEndpoint } from '../node/endpoint';
import { resolveDataDir } from '../node/paths';
import { openApi } from '../server/localApi';
import { assertWritableDataDir } from './dataDirChecks';
import { printRecoveryLine } from './openStore';

interface Helpers {
  out(text: string): void;
}

export interface DemoResult {
  dataDir: string;
  sessions: number;
  subagents: number;
  turnsAdded: number;
  featured: string | null;
}

/** The root session with the most sub-agents: the one to open first. */
function featuredSession(projectsDir: string): string | null {
  const counts = new Map<string, number>();
  for (const item of scanClaudeProjects(projectsDir)) counts.set(item.sessionId, (counts.get(item.sessionId) ?? 0) + (item.depth > 0 ? 1 : 0));
  let best: string | null = null;
  for (const [key, n] of counts) if (best === null || n > counts.get(best)!) best = key;
  return best;
}

/** What one harness's import reports, in the demo's terms. */
interface DemoImported {
  sessions: number;
  subagents: number;
  turnsAdded: number;
}

/**
 * The recorded harnesses: the folder `demo/sessions/<harness id>` (in that harness's own layout)
 * and the import `baton import <harness>` runs on it. A folder that is missing is skipped.
 */
const DEMO_SOURCES: Array<{ harness: string; importFolder(folder: string, open: () => Promise<ApiAccess>): Promise<DemoImported> }> = [
  { harness: claudeCodeHarness.id, importFolder: (folder, open) => importClaudeCode({ projectsDir: folder, open }) },
  { harness: codexHarness.id, importFolder: (folder, open) => importCodex({ sessionsDir: folder, open }) },
  { harness: openCodeHarness.id, importFolder: (folder, open) => importOpenCode({ source: folder, loadSqlJs, open }) },
  // VS Code agent mode: a workspaceStorage folder (<hash>/chatSessions/*.jsonl beside its workspace.json).
  { harness: copilotHarness.id, importFolder: (folder, open) => importCopilotChatSessions({ source: folder, open }) },
];

/** Imports the recorded sessions into `dataDir` (made a demo directory first). */
export async function prepareDemo(dataDir: string, sessionsDir: string): Promise<DemoResult> {
  assertDemoTarget(dataDir);
  // The marker first: a directory left half-imported is still recognisably the demo (and removable).
  const previous = readDemoMarker(dataDir);
  const createdAt = previous?.createdAt ?? new Date().toISOString();
  writeDemoMarker(dataDir, { demo: true, createdAt, sessions: previous?.sessions ?? 0, featured: null });
  const open = () => openApi(dataDir, { holder: 'baton demo', onRecovery: printRecoveryLine }, 60_000);
  const total: DemoImported = { sessions: 0, subagents: 0, turnsAdded: 0 };
  for (const source of DEMO_SOURCES) {
    const folder = path.join(sessionsDir, source.harness);
    if (!fs.existsSync(folder)) continue;
    const result = await source.importFolder(folder, open);
    total.sessions += result.sessions;
    total.subagents += result.subagents;
    total.turnsAdded += result.turnsAdded;
  }
  // The featured session is the Claude Code story's: its lineage is the deepest.
  const featured = featuredSession(path.join(sessionsDir, claudeCodeHarness.id));
  writeDemoMarker(dataDir, { demo: true, createdAt, sessions: total.sessions, featured });
  return { dataDir, ...total, featured };
}

export function registerDemoCommand(program: Command, { out }: Helpers): void {
  program
    .command('demo')
    .description('fill a separate demo data directory with recorded sessions (or remove it with --remove)')
    .addOption(new Option('--data-dir <dir>', 'the demo data directory (default: $XDG_DATA_HOME/baton-demo or ~/.local/share/baton-demo)'))
    .option('--remove', 'delete the demo data directory')
    .option('--json', 'machine-readable summary')
    .action(async (opts: { dataDir?: string; remove?: boolean; json?: boolean }) => {
      const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : defaultDemoDataDir();
      if (dataDir === resolveDataDir() && !readDemoMarker(dataDir))
        throw new BatonError('conflict', `${dataDir} is your Baton data directory; the demo goes into a directory of its own (--data-dir)`);
      if (opts.remove && liveEndpoint(dataDir))
        throw new BatonError('conflict', `a Baton server holds ${dataDir}: stop it (or leave the demo in VS Code) first`);
      if (opts.remove) {
        const removed = removeDemoDataDir(dataDir);
        out(opts.json ? JSON.stringify({ dataDir, removed }) : removed ? `removed the demo data in ${dataDir}` : `no demo data in ${dataDir}`);
        return;
      }
      assertWritableDataDir(dataDir);
      const sessionsDir = findDemoSessions(__dirname);
      if (!sessionsDir) throw new BatonError('not_found', 'the recorded demo sessions (demo/sessions) are not next to this Baton install');
      const result = await prepareDemo(dataDir, sessionsDir);
      out(
        opts.json
          ? JSON.stringify(result, null, 2)
          : `demo data ready in ${dataDir}: ${result.sessions} sessions (${result.subagents} sub-agents), ${result.turnsAdded} turns added\n` +
              `look at it: baton sessions --data-dir ${dataDir}   or in VS Code: Baton: Explore a Demo`,
      );
    });
}
