// The hook inputs bench/hookCost.ts hands each harness's hook, per event: recorded ones where the
// repository holds a recording (VS Code agent mode: test/fixtures/copilot/recorded; Copilot CLI:
// the hook.start lines of test/fixtures/copilotCli/session-state), the shapes the connector tests
// send elsewhere (Claude Code with its recorded session and sub-agent transcripts in
// test/fixtures/claude-projects; Codex). Each iteration gets sessions of its own, whose files are
// copied into the folders the benchmark's server allows before anything is timed.

import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/** The events the benchmark times, by the names Claude Code, Codex and VS Code give them. */
export const EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PreCompact', 'Stop'] as const;
export type BenchEvent = (typeof EVENTS)[number];

export const HARNESSES = ['claude-code', 'codex', 'copilot', 'copilot-cli'] as const;
export type BenchHarness = (typeof HARNESSES)[number];

/** One hook call: its input, the `--event` the installed command names (Copilot CLI), and whether it must hand over an inherited block. */
export interface HookCall {
  event: BenchEvent;
  payload: Record<string, unknown>;
  eventFlag?: string;
  deliversBlock?: boolean;
}

/** Calls that set the stage for a timed one (untimed), then the timed calls, in the harness's order. */
export interface IterationCalls {
  setup: Array<{ before: BenchEvent; call: HookCall }>;
  timed: HookCall[];
}

/** Where the benchmark's harness files live: each harness's folder, all under the server's allowed roots. */
export interface PayloadFolders {
  /** CLAUDE_CONFIG_DIR of the benchmark. */
  claudeDir: string;
  /** VS Code's transcripts folder of the benchmark. */
  copilotDir: string;
  /** COPILOT_HOME of the benchmark. */
  copilotHome: string;
}

type Obj = Record<string, unknown>;

const CLAUDE_SESSION = '5f0c2a9e-8d1b-4c3e-9a7f-2b6d1e4c8a01';
const CLAUDE_PROJECT = '-home-dev-shop';
const CLAUDE_AGENT = 'a3f9c21';

/** Claude Code: the recorded shop session and one of its sub-agents, copied under a new session id. */
function claudeCode(folders: PayloadFolders, id: string): IterationCalls {
  const from = path.join(FIXTURES, 'claude-projects', CLAUDE_PROJECT);
  const project = path.join(folders.claudeDir, 'projects', CLAUDE_PROJECT);
  const transcript = path.join(project, `${id}.jsonl`);
  const subagents = path.join(project, id, 'subagents');
  fs.mkdirSync(subagents, { recursive: true });
  fs.copyFileSync(path.join(from, `${CLAUDE_SESSION}.jsonl`), transcript);
  for (const ext of ['.jsonl', '.meta.json'])
    fs.copyFileSync(path.join(from, CLAUDE_SESSION, 'subagents', `agent-${CLAUDE_AGENT}${ext}`), path.join(subagents, `agent-${CLAUDE_AGENT}${ext}`));
  const common = { session_id: id, transcript_path: transcript, cwd: '/home/dev/shop' };
  return {
    setup: [],
    timed: [
      { event: 'SessionStart', payload: { ...common, hook_event_name: 'SessionStart', source: 'startup', model: 'claude-sonnet-4-5' } },
      {
        event: 'UserPromptSubmit',
        payload: { ...common, hook_event_name: 'UserPromptSubmit', prompt: 'Refactor the checkout flow', permission_mode: 'default' },
      },
      {
        event: 'SubagentStart',
        payload: { ...common, hook_event_name: 'SubagentStart', agent_id: CLAUDE_AGENT, agent_type: 'general-purpose' },
        deliversBlock: true,
      },
      {
        event: 'SubagentStop',
        payload: {
          ...common,
          hook_event_name: 'SubagentStop',
          agent_id: CLAUDE_AGENT,
          agent_type: 'general-purpose',
          agent_transcript_path: path.join(subagents, `agent-${CLAUDE_AGENT}.jsonl`),
          stop_hook_active: false,
        },
      },
      { event: 'PreCompact', payload: { ...common, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' } },
      { event: 'Stop', payload: { ...common, hook_event_name: 'Stop', stop_hook_active: false } },
    ],
  };
}

/** Codex: the payload shapes of its hooks (test/connectors/hooks.test.ts); its threads are sub-agents. */
function codex(id: string): IterationCalls {
  const common = { session_id: id, cwd: '/home/dev/shop', model: 'gpt-5-codex' };
  const child = { agent_id: `thread-${id}`, agent_type: 'worker', turn_id: 't1' };
  return {
    setup: [],
    timed: [
      { event: 'SessionStart', payload: { ...common, hook_event_name: 'SessionStart', source: 'startup' } },
      {
        event: 'UserPromptSubmit',
        payload: { ...common, hook_event_name: 'UserPromptSubmit', prompt: 'Refactor the checkout flow; keep the CODEX-MARK in mind', turn_id: 't1' },
      },
      { event: 'SubagentStart', payload: { ...common, ...child, hook_event_name: 'SubagentStart' }, deliversBlock: true },
      {
        event: 'SubagentStop',
        payload: { ...common, ...child, hook_event_name: 'SubagentStop', last_assistant_message: 'The checkout flow has two entry points.' },
      },
      { event: 'PreCompact', payload: { ...common, hook_event_name: 'PreCompact', trigger: 'auto' } },
      { event: 'Stop', payload: { ...common, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' } },
    ],
  };
}

/** VS Code agent mode: its recorded hook inputs and transcript, under a new session id. */
function copilot(folders: PayloadFolders, id: string): IterationCalls {
  const recorded = path.join(FIXTURES, 'copilot', 'recorded');
  const transcript = path.join(folders.copilotDir, `${id}.jsonl`);
  fs.copyFileSync(path.join(recorded, 'transcript.jsonl'), transcript);
  const inputs = fs
    .readFileSync(path.join(recorded, 'hook-payloads.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Obj);
  const first = (event: string, match: (p: Obj) => boolean = () => true): Obj => {
    const found = inputs.find((p) => p.hook_event_name === event && match(p));
    if (!found) throw new Error(`no recorded VS Code ${event} input`);
    const { timestamp: _recordedAt, ...rest } = found;
    return { ...rest, session_id: id, transcript_path: transcript };
  };
  const stop = first('Stop');
  return {
    // Agent mode announces a sub-agent by its runSubagent tool call first (docs/harnesses.md).
    setup: [{ before: 'SubagentStart', call: { event: 'SubagentStart', payload: first('PreToolUse', (p) => p.tool_name === 'runSubagent') } }],
    timed: [
      { event: 'SessionStart', payload: first('SessionStart') },
      { event: 'UserPromptSubmit', payload: first('UserPromptSubmit') },
      { event: 'SubagentStart', payload: first('SubagentStart'), deliversBlock: true },
      { event: 'SubagentStop', payload: first('SubagentStop') },
      // Not in the recording: agent mode's PreCompact input has the shape of its Stop's.
      { event: 'PreCompact', payload: { ...stop, hook_event_name: 'PreCompact', trigger: 'auto' } },
      { event: 'Stop', payload: stop },
    ],
  };
}

const COPILOT_CLI_SESSION = 'b3695a2b-6c2e-4447-825a-c18dfbbd8099';
const COPILOT_CLI_RECORDED_HOME = '/tmp/cpl/home/.copilot';
/** Copilot CLI's names for the benchmark's events (it has no compaction hook). */
const COPILOT_CLI_EVENT: Partial<Record<BenchEvent, string>> = {
  SessionStart: 'sessionStart',
  UserPromptSubmit: 'userPromptSubmitted',
  SubagentStart: 'subagentStart',
  SubagentStop: 'subagentStop',
  Stop: 'agentStop',
};

/**
 * Copilot CLI: its recorded hook inputs (the hook.start lines of its session log), with the log
 * itself under the benchmark's COPILOT_HOME. The session keeps its recorded id in every
 * iteration: its sub-agents' ids are the log's.
 */
function copilotCli(folders: PayloadFolders): IterationCalls {
  const log = path.join(folders.copilotHome, 'session-state', COPILOT_CLI_SESSION, 'events.jsonl');
  const lines = fs
    .readFileSync(path.join(FIXTURES, 'copilotCli', 'session-state', COPILOT_CLI_SESSION, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split(COPILOT_CLI_RECORDED_HOME).join(folders.copilotHome));
  fs.mkdirSync(path.dirname(log), { recursive: true });
  fs.writeFileSync(log, lines.join('\n') + '\n');
  const hooks = lines.map((l) => JSON.parse(l) as { type: string; data: Obj }).filter((r) => r.type === 'hook.start');
  const input = (hookType: string): Obj => {
    // The parent's own hooks: the session's, not a sub-agent's (whose sessionId is its agentId).
    const found = hooks.find((r) => r.data.hookType === hookType && (r.data.input as Obj).sessionId === COPILOT_CLI_SESSION);
    if (!found) throw new Error(`no recorded Copilot CLI ${hookType} input`);
    return found.data.input as Obj;
  };
  const timed: HookCall[] = [];
  for (const event of EVENTS) {
    const name = COPILOT_CLI_EVENT[event];
    if (name) timed.push({ event, payload: input(name), eventFlag: name, deliversBlock: event === 'SubagentStart' });
  }
  return { setup: [], timed };
}

/** The calls of one iteration of a harness; `id` names its sessions. */
export function iterationCalls(harness: BenchHarness, folders: PayloadFolders, id: string): IterationCalls {
  switch (harness) {
    case 'claude-code':
      return claudeCode(folders, id);
    case 'codex':
      return codex(id);
    case 'copilot':
      return copilot(folders, id);
    case 'copilot-cli':
      return copilotCli(folders);
  }
}

/** Whether a hook's output hands the sub-agent an inherited block (each harness's own output shape). */
export function deliversBlock(stdout: string): boolean {
  return stdout.includes('Inherited from Parent Session');
}
