// A seeded generator of Claude Code session files (JSONL, the shape docs/harnesses.md describes):
// user prompts, assistant text split one content block per line under a shared message id,
// thinking blocks, tool calls (Read, Bash, Grep, Edit, Agent) and their tool results, with the
// structured `toolUseResult` copy Claude Code keeps beside a result. Results are a few KB, a few are
// large (a whole file read, a long build log). Text comes from bench/workload.ts's vocabulary, so
// searches of its words match.

import { buildVocabulary, mix, prng, type Vocabulary } from './workload';

const MODEL = 'claude-sonnet-4-5-20250929';
const VERSION = '2.1.328';
const VOCABULARY_SEED = 0xc1a0de;

/** Sizes of the generated pieces, in characters: [min, max). */
const PROMPT: [number, number] = [80, 600];
const THINKING: [number, number] = [300, 2000];
const ASSISTANT_TEXT: [number, number] = [100, 900];
const RESULT: [number, number] = [1500, 8000];
const LARGE_RESULT: [number, number] = [40_000, 160_000];
/** Share of Read/Bash results that are large. */
const LARGE_SHARE = 0.05;

type Obj = Record<string, unknown>;

export class ClaudeSessionWriter {
  private rand: () => number;
  private readonly vocab: Vocabulary;
  private parentUuid: string | null = null;
  private clock: number;
  private counter = 0;

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
    seed: number,
  ) {
    this.rand = prng(mix(seed, 1));
    // One vocabulary for every session, so the same query means the same thing at every size.
    this.vocab = buildVocabulary(VOCABULARY_SEED, 4000, 5000);
    this.clock = Date.UTC(2026, 2, 2, 9, 0, 0);
  }

  /** Draws from another seed from now on (the lines keep chaining by parentUuid). */
  reseed(seed: number): void {
    this.rand = prng(seed);
  }

  /** Words of rank 100–999: frequent enough to match across the session, rare enough to rank. */
  queryWords(seed: number, count: number): string[] {
    const r = prng(seed);
    return Array.from({ length: count }, () => `${this.vocab.words[100 + Math.floor(r() * 900)]} ${this.vocab.words[100 + Math.floor(r() * 900)]}`);
  }

  /** One exchange: a prompt, then 1–4 tool calls with their results, then the answer. JSONL text. */
  exchange(): string {
    const lines: string[] = [];
    const prompt = this.prose(this.between(PROMPT));
    lines.push(this.line({ type: 'user', message: { role: 'user', content: prompt } }));
    const tools = 1 + Math.floor(this.rand() * 4);
    let message = this.messageId();
    if (this.rand() < 0.4) lines.push(this.assistant(message, { type: 'thinking', thinking: this.prose(this.between(THINKING)), signature: this.hex(24) }));
    lines.push(this.assistant(message, { type: 'text', text: this.prose(this.between(ASSISTANT_TEXT)) }));
    for (let t = 0; t < tools; t++) {
      lines.push(...this.toolCall(message));
      message = this.messageId();
    }
    lines.push(this.assistant(message, { type: 'text', text: this.prose(this.between(ASSISTANT_TEXT)) }));
    return lines.join('');
  }

  /** The assistant line that spawns a sub-agent (written before Claude Code's SubagentStart fires). */
  agentCall(): string {
    return this.assistant(this.messageId(), {
      type: 'tool_use',
      id: `toolu_${this.hex(20)}`,
      name: 'Agent',
      input: { description: this.prose(40), prompt: this.prose(300), subagent_type: 'general-purpose' },
    });
  }

  private toolCall(message: string): string[] {
    const id = `toolu_${this.hex(20)}`;
    const kind = this.rand();
    const large = this.rand() < LARGE_SHARE;
    const size = this.between(large ? LARGE_RESULT : RESULT);
    let input: Obj;
    let result: string;
    let structured: Obj;
    if (kind < 0.4) {
      const filePath = `${this.cwd}/src/${this.word()}/${this.word()}.ts`;
      input = { file_path: filePath };
      result = this.code(size);
      structured = {
        type: 'text',
        file: { filePath, content: result, numLines: result.split('\n').length, startLine: 1, totalLines: result.split('\n').length },
      };
    } else if (kind < 0.7) {
      input = { command: `npm run ${this.word()} -- --${this.word()}`, description: this.prose(40) };
      result = this.log(size);
      structured = { stdout: result, stderr: '', interrupted: false, isImage: false };
    } else if (kind < 0.9) {
      input = { pattern: this.word(), path: this.cwd, output_mode: 'content' };
      result = this.matches(Math.min(size, 4000));
      structured = { mode: 'content', numFiles: 12, content: result };
    } else {
      const filePath = `${this.cwd}/src/${this.word()}.ts`;
      input = { file_path: filePath, old_string: this.code(400), new_string: this.code(600) };
      result = `The file ${filePath} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${this.code(1200)}`;
      structured = { filePath, oldString: input.old_string, newString: input.new_string, userModified: false };
    }
    const name = kind < 0.4 ? 'Read' : kind < 0.7 ? 'Bash' : kind < 0.9 ? 'Grep' : 'Edit';
    return [
      this.assistant(message, { type: 'tool_use', id, name, input }),
      this.line({ type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: result }] }, toolUseResult: structured }),
    ];
  }

  private assistant(id: string, block: Obj): string {
    return this.line({
      type: 'assistant',
      requestId: `req_${id.slice(4)}`,
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 4096, output_tokens: 87, service_tier: 'standard' },
      },
    });
  }

  private line(record: Obj): string {
    const uuid = this.uuid();
    this.clock += 200 + Math.floor(this.rand() * 4000);
    const full = {
      parentUuid: this.parentUuid,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: VERSION,
      gitBranch: 'main',
      ...record,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
    };
    this.parentUuid = uuid;
    return JSON.stringify(full) + '\n';
  }

  private between([min, max]: [number, number]): number {
    return min + Math.floor(this.rand() * (max - min));
  }

  private word(): string {
    return this.vocab.words[this.vocab.table[Math.floor(this.rand() * this.vocab.table.length)]];
  }

  private prose(chars: number): string {
    const out: string[] = [];
    let length = 0;
    let left = 0;
    while (length < chars) {
      if (left === 0) left = 6 + Math.floor(this.rand() * 18);
      let w = this.rand() < 0.012 ? this.vocab.identifiers[Math.floor(this.rand() * this.vocab.identifiers.length)] : this.word();
      if (--left === 0) w += '.';
      out.push(w);
      length += w.length + 1;
    }
    return out.join(' ');
  }

  /** Source with `cat -n`-style line numbers, as Claude Code's Read returns it. */
  private code(chars: number): string {
    const out: string[] = [];
    let length = 0;
    for (let n = 1; length < chars; n++) {
      const indent = '  '.repeat(Math.floor(this.rand() * 4));
      const line = `${String(n).padStart(6)}\t${indent}const ${this.word()} = ${this.word()}.${this.word()}(${this.word()}, ${Math.floor(this.rand() * 100)});`;
      out.push(line);
      length += line.length + 1;
    }
    return out.join('\n');
  }

  private log(chars: number): string {
    const out: string[] = [];
    let length = 0;
    while (length < chars) {
      const line = `[${this.word()}] ${this.prose(40 + Math.floor(this.rand() * 80))}`;
      out.push(line);
      length += line.length + 1;
    }
    return out.join('\n');
  }

  private matches(chars: number): string {
    const out: string[] = [];
    let length = 0;
    while (length < chars) {
      const line = `src/${this.word()}/${this.word()}.ts:${1 + Math.floor(this.rand() * 400)}:  ${this.prose(30 + Math.floor(this.rand() * 50))}`;
      out.push(line);
      length += line.length + 1;
    }
    return out.join('\n');
  }

  private messageId(): string {
    return `msg_01${this.hex(22)}`;
  }

  private uuid(): string {
    const n = (this.counter++).toString(16).padStart(12, '0');
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-8${this.hex(3)}-${n}`;
  }

  private hex(length: number): string {
    let s = '';
    while (s.length < length) s += Math.floor(this.rand() * 0x100000000).toString(16);
    return s.slice(0, length);
  }
}
