// Entry of the tests that run inside a real VS Code extension host (code-server, see
// test/vscode/runner.ts). The runner bundles this file, mocha included, into one CommonJS file;
// the extension host loads it and calls run(), whose promise rejects when a test fails.

import Mocha from 'mocha';

/** The test modules, required lazily so that mocha's `describe`/`it` globals exist first. */
// host.test.ts comes first: it waits for VS Code's own onStartupFinished activation. The
// activation suite comes last: it calls host.start() a second time (see host.test.ts, "a second
// start() keeps a leader the leader"), so any regression there shows in the other suites first.
const files: Array<[name: string, load: () => unknown]> = [
  ['host.test.ts', () => require('./host.test')],
  ['tree.test.ts', () => require('./tree.test')],
  ['spend.test.ts', () => require('./spend.test')],
  ['commands.test.ts', () => require('./commands.test')],
  ['webviews.test.ts', () => require('./webviews.test')],
  ['terminal.test.ts', () => require('./terminal.test')],
  ['ui.test.ts', () => require('./ui.test')],
  ['chat.test.ts', () => require('./chat.test')],
  ['tools.test.ts', () => require('./tools.test')],
  ['scale.test.ts', () => require('./scale.test')],
  ['chatSessionImport.test.ts', () => require('./chatSessionImport.test')],
  // Restarts the leader (the inherit profile settings): after the suites that keep one endpoint.
  ['inheritance.test.ts', () => require('./inheritance.test')],
  // Switches the window to a demo data directory and back (a leader restart each way).
  ['demo.test.ts', () => require('./demo.test')],
  ['activation.test.ts', () => require('./activation.test')],
];

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    color: false,
    timeout: Number(process.env.BATON_VSCODE_TEST_TIMEOUT_MS_PER_TEST ?? 60_000),
    grep: process.env.BATON_VSCODE_GREP || undefined,
  });
  for (const [name, load] of files) {
    mocha.suite.emit(Mocha.Suite.constants.EVENT_FILE_PRE_REQUIRE, globalThis, name, mocha);
    load();
    mocha.suite.emit(Mocha.Suite.constants.EVENT_FILE_POST_REQUIRE, globalThis, name, mocha);
  }
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const passes = runner.stats?.passes ?? 0;
        // The plain closing line that CI reads, whatever the reporter printed.
        console.log(`vscode: ${passes} passed, ${failures} failed`);
        if (failures > 0) reject(new Error(`${failures} test(s) failed in the VS Code host`));
        else if (passes === 0) reject(new Error('no test ran in the VS Code host'));
        else resolve();
      });
    } catch (err) {
      reject(err);
    }
  });
}
