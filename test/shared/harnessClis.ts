// Where the end-to-end tests find the real Codex, OpenCode and GitHub Copilot CLIs: scripts/dev/install-harness-clis.sh
// caches them outside the repository, in $BATON_HARNESS_CLIS_DIR (default ~/.cache/baton-harness-clis).
// Missing binaries skip the tests that need them on a developer's machine, with the command that
// installs them; under CI=true a missing binary fails instead (CI installs them first).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type HarnessCli = 'codex' | 'opencode' | 'copilot';

export function harnessClisDir(): string {
  return process.env.BATON_HARNESS_CLIS_DIR || path.join(os.homedir(), '.cache', 'baton-harness-clis');
}

/** The binary's path in the cache (it may not exist). */
export function harnessCliBin(name: HarnessCli): string {
  return path.join(harnessClisDir(), 'node_modules', '.bin', name);
}

/** The binary, or: skip this suite (developer) / fail it (CI=true) with how to install it. */
export function requireHarnessCli(ctx: Mocha.Context, name: HarnessCli): string {
  const bin = harnessCliBin(name);
  if (fs.existsSync(bin)) return bin;
  const why = `the ${name} CLI is not installed at ${bin}: run \`bash scripts/dev/install-harness-clis.sh\``;
  if (process.env.CI === 'true') throw new Error(why);
  console.log(`      (skipped: ${why})`);
  ctx.skip();
  return bin; // not reached
}
