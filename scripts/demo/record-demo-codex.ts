// Records the Codex part of Baton's demo data set from real runs: the real Codex CLI
// (scripts/dev/install-harness-clis.sh caches it) driven by the scripted Responses API of the
// end-to-end tests (test/shared/fakeResponses.ts), offline, in a throwaway HOME and CODEX_HOME.
// The story (scripts/demo/demoScriptCodex.ts) continues the Claude Code one on the same project
// (acme-billing): Codex runs its real tools (shell, apply_patch, spawn_agent) on a small copy of
// it. The rollouts Codex wrote are copied into demo/sessions/codex/ (a Codex `sessions` folder),
// temp paths scrubbed to /home/dev. `baton demo` imports them with the same code as
// `baton import codex` (docs/demo.md).
//
//   node --import tsx scripts/demo/record-demo-codex.ts [--keep]

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run, cleanEnv } from '../../test/shared/claudeCli';
import { startFakeResponses } from '../../test/shared/fakeResponses';
import { harnessCliBin } from '../../test/shared/harnessClis';
import { DEMO_PROJECT } from './demoScript';
import { PLACEHOLDER_HOME, writeProject } from './demoRecording';
import { CODEX_DEMO_SESSIONS, respondForCodex } from './demoScriptCodex';

const repoRoot = path.resolve(__dirname, '..', '..');
const outDir = path.join(repoRoot, 'demo', 'sessions', 'codex');
const CODEX_TIMEOUT_MS = 180_000;

type Obj = Record<string, unknown>;

/**
 * Codex's bookkeeping that no reader of a rollout needs and that makes up most of its size: the
 * instructions it repeats in every thread's session_meta, its world-state snapshots, and the rate
 * limits of its token counts (the counts stay: they are the threads' spend, docs/harnesses.md).
 * Returns the line to keep (possibly slimmed), or null to drop it.
 */
function slim(line: string): string | null {
  if (!line.trim()) return null;
  const record = JSON.parse(line) as { type?: string; payload?: Obj };
  if (record.type === 'world_state' || record.type === 'token_usage_record') return null;
  if (record.type === 'event_msg' && record.payload?.type === 'token_count') {
    if (!record.payload.info) return null;
    delete record.payload.rate_limits;
    return JSON.stringify(record);
  }
  if (record.type === 'session_meta' && record.payload) {
    delete record.payload.base_instructions;
    return JSON.stringify(record);
  }
  return line;
}

/** Copies the rollouts Codex wrote (YYYY/MM/DD/rollout-….jsonl), with the temp paths replaced. */
function copyRollouts(sessionsDir: string, base: string): { files: number; bytes: number } {
  const scrub = (text: string) => text.split(base).join(PLACEHOLDER_HOME);
  fs.rmSync(outDir, { recursive: true, force: true });
  let files = 0;
  let bytes = 0;
  const walk = (from: string, to: string) => {
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      const source = path.join(from, entry.name);
      if (entry.isDirectory()) walk(source, path.join(to, entry.name));
      else if (entry.name.endsWith('.jsonl')) {
        const kept = fs
          .readFileSync(source, 'utf8')
          .split('\n')
          .map(slim)
          .filter((l): l is string => l !== null);
        const text = scrub(kept.join('\n') + '\n');
        fs.mkdirSync(to, { recursive: true });
        fs.writeFileSync(path.join(to, entry.name), text);
        files++;
        bytes += Buffer.byteLength(text);
      }
    }
  };
  walk(sessionsDir, outDir);
  return { files, bytes };
}

async function main(): Promise<void> {
  const bin = harnessCliBin('codex');
  if (!fs.existsSync(bin)) throw new Error(`the Codex CLI is not installed at ${bin}: run \`bash scripts/dev/install-harness-clis.sh\``);
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-codex-')));
  const codexHome = path.join(base, '.codex');
  const tmp = path.join(base, 'tmp');
  const project = path.join(base, DEMO_PROJECT);
  for (const dir of [codexHome, tmp, project]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeProject(project);

  const fake = await startFakeResponses({
    // The e2e roles are not used: every request of the story is answered by respondForCodex.
    parentPromptIncludes: '\u0000unused',
    agentPrompt: '\u0000unused',
    subagentReply: 'OK.',
    parentFinal: 'OK.',
    respond: (body) => respondForCodex(body),
  });
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "gpt-demo"',
      'model_provider = "scripted"',
      '',
      // Sub-agents may start sub-agents of their own (one level deeper than Codex's default).
      '[agents]',
      'max_depth = 2',
      '',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${fake.url}"`,
      'wire_api = "responses"',
      'env_key = "BATON_DEMO_KEY"',
      '',
    ].join('\n'),
  );
  const env = cleanEnv(base, tmp, { PATH: `${path.dirname(bin)}:${process.env.PATH}`, CODEX_HOME: codexHome, BATON_DEMO_KEY: 'sk-demo' });
  try {
    for (const session of CODEX_DEMO_SESSIONS) {
      let id: string | undefined;
      for (const prompt of session.prompts) {
        // The temp project is throwaway and the model scripted: no sandbox, no approvals.
        const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...(id ? ['resume', id] : []), prompt];
        const result = await run('bash', ['-c', 'exec "$0" "$@" </dev/null', bin, ...args], { cwd: project, env, timeoutMs: CODEX_TIMEOUT_MS });
        const thread = /session id: (\S+)/.exec(`${result.stdout}\n${result.stderr}`)?.[1];
        if (result.code !== 0 || !thread)
          throw new Error(`codex failed on "${prompt.slice(0, 60)}" (exit ${result.code}, timed out ${result.timedOut}):\n${result.stdout}\n${result.stderr}`);
        id = thread;
        console.log(`${session.title}: "${prompt.slice(0, 50)}" -> ${id} (${result.ms} ms)`);
      }
    }
  } finally {
    await fake.close();
  }
  const copied = copyRollouts(path.join(codexHome, 'sessions'), base);
  console.log(`copied ${copied.files} rollouts, ${Math.round(copied.bytes / 1024)} KB, into ${path.relative(repoRoot, outDir)}`);
  if (process.argv.includes('--keep')) console.log(`kept ${base}`);
  else fs.rmSync(base, { recursive: true, force: true });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
