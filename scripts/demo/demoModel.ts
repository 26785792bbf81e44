// What the demo stories' scripted models (scripts/demo/demoScript*.ts) share: they are stateless, so a
// request is placed in the story by what it carries, and the tool inputs a script writes with a
// placeholder for the project folder get the folder the harness really runs in.

import type * as http from 'node:http';
import type { ScriptedChatReply } from '../../test/shared/fakeChatCompletions';

/** `value` with `placeholder` replaced by `root` in every string it holds (tool inputs are JSON). */
export function withProject(value: unknown, placeholder: string, root: string): unknown {
  if (typeof value === 'string') return value.split(placeholder).join(root);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withProject(v, placeholder, root)]));
  return value;
}

/**
 * Where a request stands in the story: the newest user message that holds one of `prompts` (a
 * session's prompt, or the task handed to a sub-agent), and how many assistant messages follow it,
 * which is the step of that prompt's script. Undefined when no story prompt is in the request.
 */
export function storyStep<M extends { role?: string }>(
  messages: M[],
  prompts: string[],
  textOf: (message: M) => string,
): { prompt: string; step: number } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    const said = textOf(messages[i]);
    const prompt = prompts.find((p) => said.includes(p));
    if (!prompt) continue;
    return { prompt, step: messages.slice(i + 1).filter((m) => m?.role === 'assistant').length };
  }
  return undefined;
}

/** One model turn of a story's script: some text, then tool calls (none on the last step). */
export interface StoryStep {
  say?: string;
  tools?: Array<{ name: string; input: Record<string, unknown> }>;
}

/** A story told through Chat Completions (OpenCode, Copilot CLI): its sessions and each prompt's script. */
export interface ChatStory {
  sessions: Array<{ title: string; prompts: string[] }>;
  scripts: Record<string, StoryStep[]>;
  /** The placeholder for the project folder in the scripts' tool inputs. */
  placeholder: string;
  /** Finds the folder the harness runs in, in the request's text (its system prompt names it). */
  workingDirectory: RegExp;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (typeof (c as { text?: unknown })?.text === 'string' ? (c as { text: string }).text : '')).join('\n');
  return '';
}

/**
 * The scripted model of a Chat Completions story: a side request (no tools offered: a title) gets
 * the title of the session whose first prompt it quotes; an agent request the next step of the
 * newest story prompt it holds; anything else is left to the caller (undefined).
 */
export function chatStoryModel(story: ChatStory): (request: unknown, headers?: http.IncomingHttpHeaders) => ScriptedChatReply | undefined {
  const prompts = Object.keys(story.scripts);
  let callIds = 0;
  return (request) => {
    const body = (request ?? {}) as { messages?: Array<{ role?: string; content?: unknown }>; tools?: unknown[] };
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const all = messages.map((m) => contentText(m?.content)).join('\n');
    if (!Array.isArray(body.tools) || body.tools.length === 0) {
      const session = story.sessions.find((s) => all.includes(s.prompts[0]));
      return { text: session?.title ?? 'Billing work' };
    }
    const root = story.workingDirectory.exec(all)?.[1] ?? process.cwd();
    const at = storyStep(messages, prompts, (m) => contentText(m?.content));
    if (!at) return undefined;
    const step = story.scripts[at.prompt][at.step];
    if (!step) return { text: 'Done.' };
    return {
      text: step.say,
      toolCalls: (step.tools ?? []).map((t) => ({
        id: `call_demo_${(++callIds).toString().padStart(4, '0')}`,
        name: t.name,
        arguments: withProject(t.input, story.placeholder, root),
      })),
    };
  };
}
