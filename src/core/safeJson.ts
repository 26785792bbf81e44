// JSON from outside the process (request bodies, hook stdin), parsed with two guarantees:
// - nesting deeper than MAX_JSON_DEPTH is refused before JSON.parse, by an iterative scan (never
//   recursion, so the check itself cannot overflow the stack);
// - a failure says only what went wrong and where (a byte offset), never a piece of the input:
//   the engine's SyntaxError message quotes the text, which may hold transcript text or secrets.

/**
 * The deepest nesting of arrays and objects accepted. Real payloads stay far below it (a harness
 * transcript line with tool calls nests about ten levels), while everything that walks parsed
 * values recursively afterwards (schema validation, JSON.stringify, transcript normalisation) stays
 * far from the stack limit; thousands of levels would make those throw "Maximum call stack size
 * exceeded" instead of answering.
 */
export const MAX_JSON_DEPTH = 64;

export type JsonProblem = 'syntax' | 'too_deep';

export class JsonInputError extends Error {
  constructor(
    readonly problem: JsonProblem,
    message: string,
  ) {
    super(message);
    this.name = 'JsonInputError';
  }
}

/**
 * The first offset at which `text` nests deeper than `limit` arrays/objects, or -1. Brackets inside
 * strings do not count. One pass, constant memory; stops at the first excess.
 */
export function excessDepthAt(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return -1;
}

/** JSON.parse with the depth limit and input-free error messages (JsonInputError). */
export function parseJsonSafely(text: string, what = 'input', limit = MAX_JSON_DEPTH): unknown {
  const deep = excessDepthAt(text, limit);
  if (deep >= 0)
    throw new JsonInputError(
      'too_deep',
      `${what} is nested too deeply: the nesting-depth limit is ${limit} levels of arrays/objects (exceeded at offset ${deep})`,
    );
  try {
    return JSON.parse(text);
  } catch (err) {
    // Only the position survives from the engine's message ("... in JSON at position 17").
    const at = /\bposition (\d+)/.exec(err instanceof Error ? err.message : '');
    throw new JsonInputError('syntax', `${what} is not valid JSON${at ? ` (at offset ${at[1]})` : ''}`);
  }
}
