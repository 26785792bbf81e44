// Records the OpenCode part of Baton's demo data set from real runs: the real OpenCode CLI (the one
// scripts/dev/install-harness-clis.sh caches) driven by the scripted Chat Completions server of the
// end-to-end tests (test/shared/fakeChatCompletions.ts), offline, in a throwaway HOME and XDG
// folders. The story (scripts/demo/demoScriptOpenCode.ts) works on the same project as the Claude Code
// one (acme-billing); OpenCode runs its real tools (read, grep, write, edit, bash, task) on a small
// copy of it. Each session, task children included, is then printed by `opencode export` into
// demo/sessions/opencode/<session id>.json, temp paths scrubbed to /home/dev. `baton demo` imports
// them with the same code as `baton import opencode --path` (docs/demo.md, docs/harnesses.md).
//
//   node --import tsx scripts/demo/record-demo-opencode.ts [--keep]
//
// --keep leaves the temp folder (OpenCode's own opencode.db is in .local/share/opencode).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readOpenCodeDatabase } from '../../src/harnesses/openCode/import';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { run } from '../../test/shared/claudeCli';
import { startFakeChatCompletions } from '../../test/shared/fakeChatCompletions';
import { harnessCliBin } from '../../test/shared/harnessClis';
import { makeOpenCodeHome } from '../../test/shared/openCodeHome';
import { OPENCODE_DEMO_SESSIONS, respondForOpenCode } from './demoScriptOpenCode';
import { PLACEHOLDER_HOME } from './demoRecording';
import { DEMO_PROJECT, DEMO_PROJECT_FILES } from './demoScript';

const repoRoot = path.resolve(__dirname, '..', '..');
const outDir = path.join(repoRoot, 'demo', 'sessions', 'opencode');
const OPENCODE_TIMEOUT_MS = 180_000;

/** The session id in `opencode run --format json`'s event lines. */
function sessionIdOf(stdout: string): string | undefined {
  for (const line of stdout.split('\n')) {
    const m = /"sessionID"\s*:\s*"(ses_[A-Za-z0-9]+)"/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

async function main(): Promise<void> {
  const bin = harnessCliBin('opencode');
  if (!fs.existsSync(bin)) throw new Error(`the OpenCode CLI is not installed at ${bin}: run \`bash scripts/dev/install-harness-clis.sh\``);
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-oc-')));
  const fake = await startFakeChatCompletions({
    // The e2e roles are not used: every request of the story is answered by respondForOpenCode.
    parentPromptIncludes: '\u0000unused',
    agentPrompt: '\u0000unused',
    agentDescription: 'unused',
    subagentType: 'general',
    subagentReply: 'OK.',
    parentFinal: 'OK.',
    respond: respondForOpenCode,
  });
  const { project, openCodeData, env } = makeOpenCodeHome(base, DEMO_PROJECT, DEMO_PROJECT_FILES, fake.url);
  try {
    for (const session of OPENCODE_DEMO_SESSIONS) {
      let id: string | undefined;
      for (const prompt of session.prompts) {
        const args = ['run', '--format', 'json', ...(id ? ['--session', id] : []), ...prompt.split(' ')];
        const result = await run(bin, args, { cwd: project, env, timeoutMs: OPENCODE_TIMEOUT_MS });
        id ??= sessionIdOf(result.stdout);
        if (result.code !== 0 || !id)
          throw new Error(
            `opencode failed on "${prompt.slice(0, 60)}" (exit ${result.code}, timed out ${result.timedOut}):\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
          );
        console.log(`${session.title}: "${prompt.slice(0, 50)}" -> ${id} (${result.ms} ms)`);
      }
    }
  } finally {
    await fake.close();
  }

  // Every session OpenCode stored (task children too), printed by OpenCode itself.
  const db = path.join(openCodeData, 'opencode.db');
  const sessions = await readOpenCodeDatabase(db, loadSqlJs, (m) => console.warn(m));
  const scrub = (text: string) => text.split(base).join(PLACEHOLDER_HOME);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  let bytes = 0;
  for (const session of sessions) {
    const exported = spawnSync(bin, ['export', session.id], { cwd: project, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    const start = exported.stdout.indexOf('{');
    if (exported.status !== 0 || start < 0) throw new Error(`opencode export ${session.id} failed: ${exported.stderr}`);
    const text = scrub(exported.stdout.slice(start));
    JSON.parse(text); // as OpenCode printed it, and whole
    fs.writeFileSync(path.join(outDir, `${session.id}.json`), text);
    bytes += Buffer.byteLength(text);
  }
  console.log(`exported ${sessions.length} sessions, ${Math.round(bytes / 1024)} KB, into ${path.relative(repoRoot, outDir)}`);
  if (process.argv.includes('--keep')) console.log(`kept ${base}`);
  else fs.rmSync(base, { recursive: true, force: true });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
