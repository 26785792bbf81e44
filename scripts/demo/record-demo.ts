// Records Baton's demo data set from real harness runs: the real Claude Code CLI (devDependency)
// driven by the scripted Messages-API server of the end-to-end tests (test/shared/fakeAnthropic.ts),
// offline, in a throwaway HOME and CLAUDE_CONFIG_DIR. The story (scripts/demo/demoScript.ts) is a
// billing team's week on one project; Claude Code runs its real tools (Read, Grep, Bash, Edit,
// Agent) on a small copy of that project. The transcript files Claude Code wrote are copied into
// demo/sessions/claude-code/ (a Claude Code `projects` folder), temp paths scrubbed to /home/dev.
// `baton demo` imports them with the same code as `baton import claude-code` (docs/demo.md).
//
//   node --import tsx scripts/demo/record-demo.ts [--keep] [--dump FILE]
//
// --keep leaves the temp folder for inspection; --dump appends every model request (JSONL).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { claudeBin, claudeEnv, run, cleanEnv } from '../../test/shared/claudeCli';
import { startFakeAnthropic } from '../../test/shared/fakeAnthropic';
import { DEMO_PROJECT, DEMO_SESSIONS, respondFor } from './demoScript';
import { PLACEHOLDER_HOME, writeProject } from './demoRecording';

const repoRoot = path.resolve(__dirname, '..', '..');
const outDir = path.join(repoRoot, 'demo', 'sessions', 'claude-code');
const CLAUDE_TIMEOUT_MS = 180_000;

function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Claude Code's folder name for a project path: every character but letters and digits becomes '-'. */
function projectFolderName(projectPath: string): string {
  return projectPath.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * Lines Claude Code writes for its own bookkeeping that no reader of the transcript needs and that
 * make up most of a file's size: the request shapes and blobs it keeps for resuming, and large
 * attachments (the skill and deferred-tool listings it repeats at every prompt).
 */
function bulky(line: string): boolean {
  if (!line.trim()) return false;
  const type = (JSON.parse(line) as { type?: string }).type;
  return type === 'api-request-shape' || type === 'api-request-blob' || (type === 'attachment' && line.length > 2048);
}

/** Copies the transcripts (and sub-agent meta files) Claude Code wrote, with the temp paths replaced. */
function copyTranscripts(projectsDir: string, base: string): { files: number; bytes: number } {
  const scrub = (text: string) => text.split(base).join(PLACEHOLDER_HOME).split(projectFolderName(base)).join(projectFolderName(PLACEHOLDER_HOME));
  fs.rmSync(outDir, { recursive: true, force: true });
  let files = 0;
  let bytes = 0;
  const walk = (from: string, to: string) => {
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      const source = path.join(from, entry.name);
      const target = path.join(to, scrub(entry.name));
      if (entry.isDirectory()) walk(source, target);
      else if (entry.name.endsWith('.jsonl') || entry.name.endsWith('.meta.json')) {
        const raw = fs.readFileSync(source, 'utf8');
        const kept = entry.name.endsWith('.jsonl')
          ? raw
              .split('\n')
              .filter((line) => !bulky(line))
              .join('\n')
          : raw;
        const text = scrub(kept);
        fs.mkdirSync(to, { recursive: true });
        fs.writeFileSync(target, text);
        files++;
        bytes += Buffer.byteLength(text);
      }
    }
  };
  walk(projectsDir, outDir);
  return { files, bytes };
}

async function main(): Promise<void> {
  const bin = claudeBin();
  if (!fs.existsSync(bin)) throw new Error(`the Claude Code CLI is not installed at ${bin} (npm ci installs it as a devDependency)`);
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-rec-')));
  const home = base;
  const configDir = path.join(base, '.claude');
  const tmp = path.join(base, 'tmp');
  const project = path.join(base, DEMO_PROJECT);
  for (const dir of [configDir, tmp, project]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeProject(project);

  const fake = await startFakeAnthropic({
    // The e2e roles are not used: every request of the story is answered by respondFor.
    parentPromptIncludes: '\u0000unused',
    agentPrompt: '\u0000unused',
    subagentReply: 'OK.',
    parentFinal: 'OK.',
    otherText: 'OK.',
    dumpFile: option('dump'),
    respond: respondFor,
  });
  const env = claudeEnv(cleanEnv(home, tmp), { configDir, tmp, fakeUrl: fake.url });
  try {
    for (const session of DEMO_SESSIONS) {
      let id: string | undefined;
      for (const prompt of session.prompts) {
        const args = ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash,Edit,Write,Read,Grep,Glob,Agent'];
        if (id) args.push('--resume', id);
        const result = await run(bin, args, { cwd: project, env, timeoutMs: CLAUDE_TIMEOUT_MS });
        let reply: { session_id?: string; is_error?: boolean } = {};
        try {
          reply = JSON.parse(result.stdout) as typeof reply;
        } catch {
          // reported below
        }
        if (result.code !== 0 || !reply.session_id)
          throw new Error(`claude failed on "${prompt.slice(0, 60)}" (exit ${result.code}, timed out ${result.timedOut}):\n${result.stdout}\n${result.stderr}`);
        id = reply.session_id;
        console.log(`${session.title}: "${prompt.slice(0, 50)}" -> ${id} (${result.ms} ms)`);
      }
    }
  } finally {
    await fake.close();
  }
  const copied = copyTranscripts(path.join(configDir, 'projects'), base);
  console.log(`copied ${copied.files} files, ${Math.round(copied.bytes / 1024)} KB, into ${path.relative(repoRoot, outDir)}`);
  if (flag('keep')) console.log(`kept ${base}`);
  else fs.rmSync(base, { recursive: true, force: true });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
