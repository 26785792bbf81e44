// Entry of dist/hook.js, the command harness hooks run: `node dist/hook.js <harness> [--data-dir DIR]`.
// The same as `baton hook`, without loading the whole CLI, because it runs on every prompt.

import { HOOK_HARNESS_IDS as HARNESSES, runHook } from './connectors/runHook';

const args = process.argv.slice(2);
const harness = args[0] ?? '';
const at = args.indexOf('--data-dir');
const dataDir = at >= 0 ? args[at + 1] : undefined;
if (!HARNESSES.includes(harness)) {
  process.stderr.write(`usage: hook.js <${HARNESSES.join('|')}> [--data-dir DIR]\n`);
  process.exit(0);
}
runHook(harness, dataDir).finally(() => process.exit(0));
