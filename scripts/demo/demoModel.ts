// What the demo stories' scripted models (scripts/demo/demoScript*.ts) share: they are stateless, so a
// request is placed in the story by what it carries, and the tool inputs a script writes with a
// placeholder for the project folder get the folder the harness really runs in.

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
