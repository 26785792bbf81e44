// The hook command itself (dist/hookMain.js, started by dist/hook.js): `hook.js <harness> [--event E] [--data-dir DIR]`.
// The same as `baton hook`, without loading the whole CLI, because it runs on every prompt.

import { HOOK_HARNESS_IDS as HARNESSES, runHook } from './connectors/runHook';

const args = process.argv.slice(2);
const harness = args[0] ?? '';
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
if (!HARNESSES.includes(harness)) {
  process.stderr.write(`usage: hook.js <${HARNESSES.join('|')}> [--event E] [--data-dir DIR]\n`);
  process.exit(0);
}
runHook(harness, option('--data-dir'), option('--event')).finally(() => process.exit(0));
