// What Baton hands a new child before its task: the inherited block and/or the memories of
// earlier sessions, then a `## Task` heading, then the task. Runs write it that way (childPrompt);
// a harness that puts the context before the child's own first prompt gets it ending with the
// heading (Copilot CLI). Titles and a child's stored first prompt are its task: what follows the
// heading (docs/inheritance.md).

import { INHERIT_HEADING } from './inherit';
import { MEMORIES_HEADING } from './startMemories';

/** Ends the handed context: what follows it is the task. */
export const TASK_HEADING = '## Task';

/** The context, the heading and the task, as one prompt (just the task when there is no context). */
export function withTask(context: string, task: string): string {
  return context.trim() ? `${context}\n\n${TASK_HEADING}\n\n${task}` : task;
}

/**
 * The task of a prompt that may open with handed context: the prompt itself when it opens with
 * none; what follows the heading when it does; undefined when it does but no heading follows.
 */
export function taskBehindContext(prompt: string): string | undefined {
  const opened = prompt.trimStart();
  if (!opened.startsWith(INHERIT_HEADING) && !opened.startsWith(MEMORIES_HEADING)) return prompt;
  const at = prompt.indexOf(`\n${TASK_HEADING}\n`);
  return at < 0 ? undefined : prompt.slice(at + TASK_HEADING.length + 2).trim() || undefined;
}
