// Records the GitHub Copilot CLI part of Baton's demo data set from real runs: the real Copilot CLI
// (npm @github/copilot, the one scripts/dev/install-harness-clis.sh caches) driven by the scripted
// Chat Completions server of the end-to-end tests (test/shared/fakeChatCompletions.ts), offline
// (COPILOT_OFFLINE, a custom provider, no GitHub login), in a throwaway HOME and COPILOT_HOME. The
// story (scripts/demo/demoScriptCopilotCli.ts) works on the same project as the Claude Code one
// (acme-billing); Copilot CLI runs its real tools (view, grep, glob, create, edit, bash, task) on a
// small copy of it. Each session's log, $COPILOT_HOME/session-state/<id>/events.jsonl (its
// sub-agents write into it too), is then copied into demo/sessions/copilot-cli/<id>/events.jsonl,
// temp paths scrubbed to /home/dev and its system.message lines left out (Copilot CLI's own system
// prompts, most of the size and nothing Baton reads); every other line is as Copilot CLI wrote it.
// `baton demo` imports them with the same code as `baton import copilot-cli` (docs/demo.md).
// No Baton hooks are installed for the recording.
//
//   node --import tsx scripts/demo/record-demo-copilot-cli.ts [--keep]
//
// --keep leaves the temp folder (the whole COPILOT_HOME is in .copilot).

import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanCopilotCliSessions } from '../../src/harnesses/copilotCli/import';
import { cleanEnv, run } from '../../test/shared/claudeCli';
import { startFakeChatCompletions } from '../../test/shared/fakeChatCompletions';
import { harnessCliBin, harnessClisDir } from '../../test/shared/harnessClis';
import { COPILOT_CLI_DEMO_SESSIONS, respondForCopilotCli } from './demoScriptCopilotCli';
import { PLACEHOLDER_HOME, writeProject } from './demoRecording';
import { DEMO_PROJECT } from './demoScript';

const repoRoot = path.resolve(__dirname, '..', '..');
const outDir = path.join(repoRoot, 'demo', 'sessions', 'copilot-cli');
const COPILOT_TIMEOUT_MS = 180_000;
/** Lines of the log left out of the copy: the system prompts Copilot CLI sends (about 20 KB each, one per conversation). */
const DROPPED_TYPES = new Set(['system.message']);

/** A fresh git repository holding the demo project, as a developer's checkout is (`git status` and `git diff` work in it). */
function makeProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeProject(dir);
  const git = spawnSync('bash', ['-c', 'git init -q && git add -A && git -c user.name=dev -c user.email=dev@example.invalid commit -qm init'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (git.status !== 0) throw new Error(`git init in ${dir}: ${git.stderr}`);
}

/** What in a log names this machine rather than the story: the temp folder, the cached CLI, the repository, the user. */
function scrubber(base: string): (text: string) => string {
  const pairs: Array<[string, string]> = [
    [base, PLACEHOLDER_HOME],
    [fs.realpathSync(harnessClisDir()), '/opt/copilot-cli'],
    [harnessClisDir(), '/opt/copilot-cli'],
    [`${repoRoot}/`, `${PLACEHOLDER_HOME}/baton/`],
    // With its slash: a bare home such as /root would also match the start of other names.
    [`${os.homedir()}/`, `${PLACEHOLDER_HOME}/`],
  ];
  return (text) => pairs.reduce((t, [from, to]) => (from.length > 1 ? t.split(from).join(to) : t), text);
}

/** The log as committed: every line but the dropped ones, scrubbed; each line stays whole JSON. */
function committedLog(raw: string, scrub: (text: string) => string): string {
  const kept: string[] = [];
  for (const line of raw.split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { type?: unknown };
    if (typeof record.type === 'string' && DROPPED_TYPES.has(record.type)) continue;
    const text = scrub(line);
    JSON.parse(text); // still one JSON record
    kept.push(text);
  }
  return kept.join('\n') + '\n';
}

async function main(): Promise<void> {
  const bin = harnessCliBin('copilot');
  if (!fs.existsSync(bin)) throw new Error(`the GitHub Copilot CLI is not installed at ${bin}: run \`bash scripts/dev/install-harness-clis.sh\``);
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-cpcli-')));
  const copilotHome = path.join(base, '.copilot');
  const project = path.join(base, DEMO_PROJECT);
  const tmp = path.join(base, 'tmp');
  for (const dir of [copilotHome, tmp]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  makeProject(project);

  const fake = await startFakeChatCompletions({
    // The e2e roles are not used: every request of the story is answered by respondForCopilotCli.
    parentPromptIncludes: '\u0000unused',
    agentPrompt: '\u0000unused',
    agentDescription: 'unused',
    subagentType: 'general-purpose',
    subagentReply: 'OK.',
    parentFinal: 'OK.',
    respond: respondForCopilotCli,
  });
  const env = cleanEnv(base, tmp, {
    PATH: `${path.dirname(bin)}:${process.env.PATH}`,
    COPILOT_HOME: copilotHome,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: fake.url,
    COPILOT_PROVIDER_API_KEY: 'sk-scripted',
    COPILOT_MODEL: 'gpt-4.1',
  });
  const ids: string[] = [];
  try {
    for (const session of COPILOT_CLI_DEMO_SESSIONS) {
      // A session id of our own: the first prompt starts the session with it, later ones resume it.
      const id = crypto.randomUUID();
      ids.push(id);
      for (const prompt of session.prompts) {
        const args = ['-p', prompt, '--session-id', id, '--allow-all-tools', '--no-auto-update'];
        const result = await run(bin, args, { cwd: project, env, timeoutMs: COPILOT_TIMEOUT_MS });
        if (result.code !== 0)
          throw new Error(
            `copilot failed on "${prompt.slice(0, 60)}" (exit ${result.code}, timed out ${result.timedOut}):\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
          );
        console.log(`${session.title}: "${prompt.slice(0, 50)}" -> ${id} (${result.ms} ms)`);
      }
    }
  } finally {
    await fake.close();
  }

  // Every session folder's log; lock folders and other entries beside them hold none.
  const sessionState = path.join(copilotHome, 'session-state');
  const logs = fs
    .readdirSync(sessionState, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(sessionState, e.name, 'events.jsonl')))
    .map((e) => e.name)
    .sort();
  if (logs.length !== ids.length || !ids.every((id) => logs.includes(id)))
    throw new Error(`expected the logs of ${ids.join(', ')} in ${sessionState}, found ${logs.join(', ')}`);
  const scrub = scrubber(base);
  fs.rmSync(outDir, { recursive: true, force: true });
  let bytes = 0;
  for (const id of ids) {
    const text = committedLog(fs.readFileSync(path.join(sessionState, id, 'events.jsonl'), 'utf8'), scrub);
    fs.mkdirSync(path.join(outDir, id), { recursive: true });
    fs.writeFileSync(path.join(outDir, id, 'events.jsonl'), text);
    bytes += Buffer.byteLength(text);
  }
  // What `baton demo` will import: the sessions and their sub-agents, as the importer reads them.
  const items = scanCopilotCliSessions(outDir, (m) => console.warn(m));
  const subagents = items.filter((i) => i.depth > 0);
  console.log(
    `copied ${ids.length} sessions with ${subagents.length} sub-agents (${subagents.filter((i) => i.depth > 1).length} nested), ${Math.round(bytes / 1024)} KB, into ${path.relative(repoRoot, outDir)}`,
  );
  if (process.argv.includes('--keep')) console.log(`kept ${base}`);
  else fs.rmSync(base, { recursive: true, force: true });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
