// Agents: the scopes sessions, memories and runs belong to (docs/security.md).

/** The agent a write acts for when nobody names one: the user's own hooks, VS Code, the CLI. */
export const DEFAULT_AGENT = 'default';
