// GitHub Copilot CLI's hooks mapped onto the sessions & hooks API (docs/harnesses.md, "GitHub
// Copilot CLI").

export const HARNESS = 'copilot-cli';

/**
 * The camelCase events Baton's hook file installs, each with its name on the command line (the
 * payloads do not name their event): a session's start, prompts, its sub-agents' start and stop,
 * the end of each turn and of the session.
 */
export const COPILOT_CLI_EVENTS = ['sessionStart', 'userPromptSubmitted', 'subagentStart', 'subagentStop', 'agentStop', 'sessionEnd'] as const;
