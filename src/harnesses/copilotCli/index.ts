// GitHub Copilot CLI (docs/harnesses.md, "GitHub Copilot CLI"): camelCase hook commands from a hook
// file Baton owns ($COPILOT_HOME/hooks/baton.json, or a repository's .github/hooks/baton.json), the
// session log under $COPILOT_HOME/session-state, sessions keyed by sessionId, each sub-agent (a
// `task` call) by its agentId under the agent that started it.

import type { HarnessLineage } from '../../core/lineage';
import type { Harness } from '../harness';
import { COPILOT_CLI_JSONL, copilotCliTranscript } from './events';
import { copilotCliHooks, HARNESS } from './hooks';
import { COPILOT_CLI_IMPORTER } from './import';
import { COPILOT_CLI_INSTALL } from './install';
import { sessionStateDir } from './paths';

// Lineage: every sub-agent event names the agent that started it (parentAgentId), sent as the
// explicit parent; nothing is guessed.
export const copilotCliLineage: HarnessLineage = {};

export const copilotCli: Harness = {
  id: HARNESS,
  displayName: 'GitHub Copilot CLI',
  transcripts: {
    parser: copilotCliTranscript,
    fallbackFormat: COPILOT_CLI_JSONL,
    matchesName: (name) => /copilot[-_ ]?cli/i.test(name),
    roots: (env, home) => [sessionStateDir(env, home)],
  },
  lineage: copilotCliLineage,
  hooks: copilotCliHooks,
  importer: COPILOT_CLI_IMPORTER,
  install: COPILOT_CLI_INSTALL,
};
