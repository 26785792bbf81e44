// Records the VS Code agent mode (Copilot) part of Baton's demo from a real run: code-server 4.139.1
// (VS Code 1.139.1, Copilot Chat built in) in Chromium, the way the chat view tests run it
// (test/shared/chatHost.ts: its own temp user data and extensions folders, offline), with
// the scripted language model playing the assistant (scripts/demo/demoScriptCopilot.ts). The chats are
// typed into the Chat view in Agent mode on a copy of the demo project (`acme-billing`); agent mode
// runs its own tools and sub-agents. VS Code's chat session files (workspaceStorage/<hash>/
// chatSessions/*.jsonl, with the workspace.json that names the folder) are then copied into
// demo/sessions/copilot/ in that layout, temp paths scrubbed to /home/dev. `baton demo` imports them
// with the same code as `baton import copilot` (docs/demo.md). Baton's hooks are not installed:
// what is recorded is what VS Code itself writes.
//
//   npm run build && node --import tsx scripts/demo/record-demo-copilot.ts [--keep]
//
// Needs the VS Code host (bash scripts/dev/install-vscode-host.sh). --keep leaves the temp folder.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { startChatHost, type ChatHost } from '../../test/shared/chatHost';
import { latestReply, newChat, pickModel, prepareChat, send } from '../../test/shared/chatUi';
import { parseChatSession } from '../../src/harnesses/copilot/chatSessions';
import { COPILOT_CHATS, copilotModel, type CopilotChat, copilotProjectFiles, finalAnswer } from './demoScriptCopilot';
import { PLACEHOLDER_HOME } from './demoRecording';
import { DEMO_PROJECT } from './demoScript';

const repoRoot = path.resolve(__dirname, '..', '..');
const outDir = path.join(repoRoot, 'demo', 'sessions', 'copilot');
const REPLY_TIMEOUT_MS = 120_000;
const FLUSH_TIMEOUT_MS = 60_000;

/**
 * The final answer to wait for, as its last words in order: the chat view renders markdown (code,
 * file names become links, or widgets without text), so only the prose words are sure to be there.
 */
function waitText(prompt: string): RegExp {
  const words = finalAnswer(prompt).match(/[A-Za-z]{3,}/g) ?? [];
  return new RegExp(words.slice(-6).join('[^]*?'));
}

function chatSessionDirs(userData: string): string[] {
  const storage = path.join(userData, 'User', 'workspaceStorage');
  if (!fs.existsSync(storage)) return [];
  return fs
    .readdirSync(storage)
    .map((hash) => path.join(storage, hash))
    .filter((dir) => fs.existsSync(path.join(dir, 'chatSessions')));
}

/**
 * The chat session files of the story's chats, once VS Code has written each whole: all its prompts
 * and the last one's final answer. (Other files, such as the empty chat opened last, are left out.)
 */
async function waitForChatSessions(host: ChatHost): Promise<string[]> {
  const deadline = Date.now() + FLUSH_TIMEOUT_MS;
  for (;;) {
    const files = chatSessionDirs(host.dirs.userData).flatMap((dir) =>
      fs
        .readdirSync(path.join(dir, 'chatSessions'))
        .filter((n) => n.endsWith('.jsonl'))
        .map((n) => path.join(dir, 'chatSessions', n)),
    );
    const complete = (file: string, chat: CopilotChat): boolean => {
      const parsed = parseChatSession(fs.readFileSync(file, 'utf8'), path.basename(file));
      const prompts = parsed?.messages.filter((m) => m.role === 'user').map((m) => m.content) ?? [];
      const last = parsed?.messages.at(-1);
      return prompts.join('\n') === chat.prompts.join('\n') && last?.role === 'assistant' && waitText(chat.prompts[chat.prompts.length - 1]).test(last.content);
    };
    const found = COPILOT_CHATS.map((chat) => files.find((f) => complete(f, chat)));
    if (found.every((f) => f !== undefined)) return found as string[];
    if (Date.now() > deadline)
      throw new Error(
        `VS Code did not write the whole of ${COPILOT_CHATS.filter((_, i) => !found[i])
          .map((c) => c.title)
          .join(', ')} (${files.length} files)`,
      );
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** Copies the chat session files and their workspace.json into demo/sessions/copilot/<hash>/, scrubbed. */
function copyChatSessions(files: string[], host: ChatHost): { files: number; bytes: number } {
  const roots = [...new Set([host.dirs.root, fs.realpathSync(host.dirs.root)])];
  const scrub = (text: string) =>
    roots.reduce(
      (t, root) =>
        t
          .split(pathToFileURL(root).href)
          .join(pathToFileURL(PLACEHOLDER_HOME).href)
          .split(encodeURIComponent(root))
          .join(encodeURIComponent(PLACEHOLDER_HOME))
          .split(root)
          .join(PLACEHOLDER_HOME),
      text,
    );
  fs.rmSync(outDir, { recursive: true, force: true });
  let bytes = 0;
  const write = (target: string, text: string) => {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
    bytes += Buffer.byteLength(text);
  };
  const hashes = new Set<string>();
  for (const file of files) {
    const hashDir = path.dirname(path.dirname(file));
    const hash = path.basename(hashDir);
    write(path.join(outDir, hash, 'chatSessions', path.basename(file)), scrub(fs.readFileSync(file, 'utf8')));
    if (!hashes.has(hash)) {
      hashes.add(hash);
      // Desktop VS Code names a workspaceStorage folder's workspace in workspace.json; code-server's web
      // workbench keeps only its name (meta.json). The import reads the project from workspace.json.
      const own = path.join(hashDir, 'workspace.json');
      const meta = fs.existsSync(own) ? fs.readFileSync(own, 'utf8') : `${JSON.stringify({ folder: pathToFileURL(host.dirs.workspace).href }, null, 2)}\n`;
      write(path.join(outDir, hash, 'workspace.json'), scrub(meta));
    }
  }
  const leftover = fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' }).filter((rel) => {
    const p = path.join(outDir, rel);
    return fs.statSync(p).isFile() && roots.some((root) => fs.readFileSync(p, 'utf8').includes(path.basename(root)));
  });
  if (leftover.length) throw new Error(`temp paths left in ${leftover.join(', ')}`);
  return { files: files.length + hashes.size, bytes };
}

/**
 * Clicks "Allow" on the confirmations agent mode asks for (a terminal command can still ask, even
 * when a rule approves it) until `done` resolves, as the user at the keyboard would.
 */
async function allowWhile<T>(page: Page, done: Promise<T>): Promise<T> {
  let finished = false;
  const buttons = page.locator('.part.auxiliarybar .chat-confirmation-widget-buttons a.monaco-button[aria-label^="Allow"]');
  const loop = (async () => {
    while (!finished) {
      for (const button of await buttons.all().catch(() => []))
        if (await button.isVisible().catch(() => false)) await button.click({ timeout: 2_000 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  try {
    return await done;
  } finally {
    finished = true;
    await loop;
  }
}

async function main(): Promise<void> {
  let host: ChatHost | undefined;
  let failed = true;
  try {
    host = await startChatHost({
      workspaceName: DEMO_PROJECT,
      files: copilotProjectFiles(),
      // Agent mode runs its tools without asking (the recording has no one to click "Allow").
      settings: {
        'baton.port': 0,
        'chat.tools.global.autoApprove': true,
        'chat.tools.autoApprove': true,
        // Terminal commands have rules of their own: the story's commands (node, grep, tail) run unasked.
        'chat.tools.terminal.autoApprove': { node: true, grep: true, tail: true },
        // Risk assessment asks a Copilot model, which this offline host lacks: the confirmation would wait for it.
        'chat.tools.riskAssessment.enabled': false,
      },
    });
    const model = copilotModel(host.dirs.workspace);
    host.script.respond = (request) => model.respond(request);
    await prepareChat(host.page);
    await pickModel(host.page, 'Scripted');
    for (const [n, chat] of COPILOT_CHATS.entries()) {
      if (n > 0) await newChat(host.page);
      for (const prompt of chat.prompts) {
        const started = Date.now();
        await send(host.page, prompt);
        await allowWhile(host.page, latestReply(host.page, waitText(prompt), REPLY_TIMEOUT_MS));
        console.log(`${chat.title}: "${prompt.slice(0, 50)}" (${Date.now() - started} ms)`);
        if (model.problems.length) throw new Error(`the scripted model: ${model.problems.join('; ')}`);
      }
    }
    // A new chat makes VS Code save the last one (it writes a chat session when it is saved or disposed).
    await newChat(host.page);
    const files = await waitForChatSessions(host);
    const copied = copyChatSessions(files, host);
    console.log(`copied ${copied.files} files, ${Math.round(copied.bytes / 1024)} KB, into ${path.relative(repoRoot, outDir)}`);
    console.log(`${host.script.requests.length} model requests`);
    failed = false;
  } catch (err) {
    // What the workbench showed when it went wrong, in the kept folder.
    await host?.screenshot('failure').catch(() => undefined);
    if (host) fs.writeFileSync(path.join(host.dirs.artifacts, 'failure.html'), await host.page.content().catch(() => ''));
    throw err;
  } finally {
    const kept = await host?.stop({ keep: failed || process.argv.includes('--keep') });
    if (kept) console.log(`kept ${kept}`);
  }
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
