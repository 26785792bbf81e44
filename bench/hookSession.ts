// The end-to-end part of bench/hookCost.ts: the real Claude Code CLI (node_modules/.bin/claude)
// driven by a scripted model on 127.0.0.1 (test/shared/fakeAnthropic.ts) through a session of N
// prompts, `claude -p` for the first and `claude -p --continue` for each next one, in three
// projects: without hooks, with the hook command for every event (`baton install claude-code
// --command`, each event relayed to the server), and with the hooks `baton install claude-code`
// writes (Claude Code's HTTP hooks with a hooks token, the hook command for SessionStart), both
// feeding one `baton serve` of its own. Offline and bounded: HOME, CLAUDE_CONFIG_DIR and temp
// folders are fresh, every claude run is killed after CLAUDE_TIMEOUT_MS.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baton, CLAUDE_TIMEOUT_MS, claudeBin, claudeEnv, cleanEnv, run } from '../test/shared/claudeCli';
import { startFakeAnthropic } from '../test/shared/fakeAnthropic';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

export interface SessionCost {
  version: string;
  prompts: number;
  how: string;
  runs: Array<{ label: string; totalMs: number }>;
  notes: string[];
}

/** `baton serve` on a free port of 127.0.0.1 in a process of its own (`nodeArgs` for its node: a profiler), once it listens. */
export async function startServe(dataDir: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve did not start in 30 s')), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  return child;
}

/** The hook types `baton install claude-code` wrote, per event (command, http). */
function installedHookTypes(project: string): string {
  const settings = JSON.parse(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')) as {
    hooks: Record<string, Array<{ hooks: Array<{ type: string }> }>>;
  };
  const types = new Map<string, string[]>();
  for (const [event, groups] of Object.entries(settings.hooks))
    for (const type of new Set(groups.flatMap((g) => g.hooks.map((h) => h.type)))) types.set(type, [...(types.get(type) ?? []), event]);
  return [...types].map(([type, events]) => `${type} (${events.join(', ')})`).join('; ');
}

/** One prompt of the session in `project` (the first starts it, each next one continues it); its wall time. */
async function prompt(i: number, project: string, env: NodeJS.ProcessEnv): Promise<number> {
  const args = ['-p', `Prompt ${i + 1}: note the checkout detail number ${i + 1}.`, '--output-format', 'json', ...(i > 0 ? ['--continue'] : [])];
  const r = await run(claudeBin(), args, { cwd: project, env, timeoutMs: CLAUDE_TIMEOUT_MS });
  if (r.code !== 0 || r.timedOut) throw new Error(`claude exited ${r.code}${r.timedOut ? ' (timed out)' : ''} at prompt ${i + 1}: ${r.stderr.slice(0, 500)}`);
  return r.ms;
}

/** How many sessions the server holds, by project (to show both hook kinds reached it). */
async function recordedSessions(dataDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await baton(['sessions', '--json', '--data-dir', dataDir], env);
  if (r.code !== 0) return `unknown (${r.stderr.trim().slice(0, 200)})`;
  try {
    const listed = JSON.parse(r.stdout) as Array<{ project?: string | null }> | { sessions: Array<{ project?: string | null }> };
    const sessions = Array.isArray(listed) ? listed : listed.sessions;
    const counts = new Map<string, number>();
    for (const s of sessions) counts.set(path.basename(s.project ?? '?'), (counts.get(path.basename(s.project ?? '?')) ?? 0) + 1);
    return [...counts].map(([project, n]) => `${project}: ${n}`).join(', ') || 'none';
  } catch {
    return 'unknown';
  }
}

export async function claudeSessionCost(prompts: number, work: string): Promise<SessionCost | null> {
  if (!fs.existsSync(claudeBin())) {
    process.stderr.write(`[hook-cost] no Claude Code CLI at ${claudeBin()}: the session part is skipped\n`);
    return null;
  }
  const dirs = Object.fromEntries(
    ['home', 'tmp', 'config-none', 'config-baton', 'config-http', 'project-none', 'project-baton', 'project-http', 'data'].map((n) => [n, path.join(work, n)]),
  );
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const base = cleanEnv(dirs.home, dirs.tmp);
  const fake = await startFakeAnthropic({
    parentPromptIncludes: 'never-in-this-session',
    agentPrompt: 'never-in-this-session',
    subagentReply: 'OK.',
    parentFinal: 'OK.',
    respond: () => ({ blocks: [{ type: 'text', text: 'Noted.' }], stopReason: 'end_turn' }),
  });
  let server: ChildProcess | null = null;
  try {
    fs.writeFileSync(
      path.join(dirs.data, 'config.json'),
      JSON.stringify({ transcriptRoots: [path.join(dirs['config-baton'], 'projects'), path.join(dirs['config-http'], 'projects')] }),
    );
    server = await startServe(dirs.data, base);
    const installed = await baton(['install', 'claude-code', '--command', '--project', dirs['project-baton'], '--data-dir', dirs.data], base);
    if (installed.code !== 0) throw new Error(`baton install claude-code --command failed: ${installed.stderr}`);
    // Claude Code's own HTTP hooks to the same server, with a token for hooks in the environment.
    const { port } = JSON.parse(fs.readFileSync(path.join(dirs.data, 'endpoint.json'), 'utf8')) as { port: number };
    const created = await baton(['token', 'create', '--agent', 'default', '--permissions', 'remember,recall', '--json', '--data-dir', dirs.data], base);
    if (created.code !== 0) throw new Error(`baton token create failed: ${created.stderr}`);
    const hookToken = (JSON.parse(created.stdout) as { token: string }).token;
    const http = await baton(['install', 'claude-code', '--url', `http://127.0.0.1:${port}`, '--project', dirs['project-http'], '--data-dir', dirs.data], base);
    if (http.code !== 0) throw new Error(`baton install claude-code failed: ${http.stderr}`);
    const version = (await run(claudeBin(), ['--version'], { cwd: dirs.home, env: base, timeoutMs: 30_000 })).stdout.trim();
    const envFor = (config: string) => claudeEnv({ ...base, BATON_HOOK_TOKEN: hookToken }, { configDir: dirs[config], tmp: dirs.tmp, fakeUrl: fake.url });
    process.stderr.write(`[hook-cost] Claude Code ${version}: ${prompts} prompts, each without hooks and then with Baton's…\n`);
    // The sessions advance prompt by prompt, so load from elsewhere falls on all of them alike.
    let none = 0;
    let withBaton = 0;
    let withHttp = 0;
    for (let i = 0; i < prompts; i++) {
      none += await prompt(i, dirs['project-none'], envFor('config-none'));
      withBaton += await prompt(i, dirs['project-baton'], envFor('config-baton'));
      withHttp += await prompt(i, dirs['project-http'], envFor('config-http'));
    }
    const log = path.join(dirs.data, 'hooks.log');
    const failures = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
    return {
      version,
      prompts,
      how: `\`claude -p\` for the first prompt, \`claude -p --continue\` for each next one (one process per prompt, as a script drives it; the sessions alternate prompt by prompt); the scripted model answers every request at once. Baton's hooks as \`baton install claude-code --command\` writes them (the hook command for every event, each relayed to the server), and as \`baton install claude-code\` writes them (Claude Code's HTTP hooks with a hooks token, the hook command for SessionStart).`,
      runs: [
        { label: 'none', totalMs: none },
        { label: `Baton, \`--command\` (${installedHookTypes(dirs['project-baton'])})`, totalMs: withBaton },
        { label: `Baton, as installed (${installedHookTypes(dirs['project-http'])})`, totalMs: withHttp },
      ],
      notes: [
        `hooks.log lines (one per failed command hook): ${failures}`,
        `sessions the server recorded per project folder: ${await recordedSessions(dirs.data, base)}`,
        `model requests the scripted server answered: ${fake.messages().length}`,
      ],
    };
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    }
    await fake.close();
  }
}
