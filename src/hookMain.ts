// The hook command (dist/hookMain.js, started by dist/hook.js): `hook.js <harness> [--event E] [--data-dir DIR]`.
// The same as `baton hook`, without loading the whole CLI, because it runs on every prompt. It
// relays the payload to the server (connectors/hookRelay.ts); the harnesses' mappings
// (dist/hookLocal.js) load only for an event that must run here.

import * as path from 'node:path';
import { runHookCommand } from './connectors/hookRelay';
import { resolveDataDir } from './node/paths';

type HookLocal = typeof import('./hookLocal');

/** The mappings, loaded on first need: dist/hookLocal.js beside this bundle, src/hookLocal.ts from source. */
function hookLocal(): HookLocal {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a run-time path on purpose: a bundle of its own, loaded only when needed
  return require(path.join(__dirname, 'hookLocal')) as HookLocal;
}

const args = process.argv.slice(2);
const harness = args[0] ?? '';
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

/** The usage, with the harness ids the mappings know. */
function usage(local: HookLocal): void {
  process.stderr.write(`usage: hook.js <${local.HOOK_HARNESS_IDS.join('|')}> [--event E] [--data-dir DIR]\n`);
}

async function main(): Promise<void> {
  // Anything but a harness id: the usage.
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(harness) || harness === 'baton') return usage(hookLocal());
  const dataDir = resolveDataDir({ flag: option('--data-dir') });
  const eventFlag = option('--event');
  await runHookCommand(harness, dataDir, eventFlag, (raw, started) => {
    const local = hookLocal();
    if (!local.HOOK_HARNESS_IDS.includes(harness)) return Promise.resolve(usage(local));
    return local.runHook(harness, dataDir, eventFlag, raw, started);
  });
}

main()
  .catch(() => undefined)
  .finally(() => process.exit(0));
