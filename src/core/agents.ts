// Agents: the scopes sessions, memories and runs belong to (docs/security.md).

/** The agent a write acts for when nobody names one: the user's own hooks, VS Code, the CLI. */
export const DEFAULT_AGENT = 'default';

/** Which agents' data a caller may read: 'all' for the admin, else its agent plus the shared ones. */
export type Scope = 'all' | { agentId: string };

/**
 * Who a child session's parent is resolved for: the agent the child's write acts for, and whether
 * the admin token writes it (docs/security.md, "Parents belong to the child's agent").
 */
export interface ParentWriter {
  agentId: string;
  admin: boolean;
}

/** A change to one session, as the store reports it and the event stream forwards it. */
export interface SessionChange {
  agentId: string;
  key: string;
}
