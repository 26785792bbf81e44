// `npm test`: build, lint (types, layers, import circles, ESLint), the Codex and OpenCode CLIs, the mocha suites, then the extension suite in a real VS Code
// host, then the Chat view tests (test/vscode/chatView) in another. Each stage's output streams through; the run ends with one line totalling both suites
// ("N passed, N failed", after a TAP-style summary) so a reader (or CI) sees the whole count in the last line.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Runs a command with its output passed through; resolves to its exit code and what it printed. */
function stage(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    child.on('error', (err) => {
      console.error(`${command}: ${err.message}`);
      resolve({ code: 1, out });
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

// Mocha's spec reporter closes with "N passing", "N pending", "N failing"; ANSI colours removed first.
function mochaCounts(out) {
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (word) => Number(plain.match(new RegExp(`^\\s*(\\d+) ${word}\\b`, 'm'))?.[1] ?? 0);
  return { passed: count('passing'), failed: count('failing'), skipped: count('pending') };
}

// The extension suite prints "vscode: N passed, N failed".
function vscodeCounts(out) {
  const m = out.match(/^vscode: (\d+) passed, (\d+) failed/m);
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: 0 } : { passed: 0, failed: 0, skipped: 0 };
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const add = (c) => {
  totals.passed += c.passed;
  totals.failed += c.failed;
  totals.skipped += c.skipped;
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let broken = '';

for (const [name, cmd, args] of [
  ['build', npm, ['run', '--silent', 'build']],
  ['lint', npm, ['run', '--silent', 'lint']],
]) {
  const r = await stage(cmd, args);
  if (r.code !== 0) {
    broken = name;
    break;
  }
}

if (!broken) {
  // The real Codex and OpenCode CLIs for their end-to-end suites (cached outside the repo; ~1 s when
  // present). Without them those suites skip on a developer's machine and fail under CI=true.
  const clis = await stage('bash', ['scripts/dev/install-harness-clis.sh']);
  if (clis.code !== 0) console.error('npm test: could not install the Codex and OpenCode CLIs; their end-to-end suites will skip (fail under CI=true)');
  const mocha = await stage(path.join('node_modules', '.bin', 'mocha'), []);
  add(mochaCounts(mocha.out));
  if (mocha.code !== 0) broken = 'mocha';
  const host = await stage('bash', ['scripts/dev/install-vscode-host.sh']);
  if (host.code !== 0) broken ||= 'install-vscode-host';
  else {
    const vscode = await stage(process.execPath, ['--import', 'tsx', 'test/vscode/runner.ts']);
    const counts = vscodeCounts(vscode.out);
    add(counts);
    if (vscode.code !== 0) {
      broken ||= 'vscode';
      if (counts.failed === 0) totals.failed += 1; // the host itself failed: count it, never report green
    }
    // The Chat view driven from the browser side, in a host of its own (with the scripted model).
    const chat = await stage(path.join('node_modules', '.bin', 'mocha'), [
      '--no-config',
      '--require',
      'test/helpers/checkReplies.ts',
      '--node-option',
      'import=tsx',
      '--extension',
      'ts',
      '--timeout',
      '60000',
      'test/vscode/chatView/*.test.ts',
    ]);
    const chatCounts = mochaCounts(chat.out);
    add(chatCounts);
    if (chat.code !== 0) {
      broken ||= 'vscode-chat';
      if (chatCounts.failed === 0) totals.failed += 1;
    }
  }
}

if (broken && totals.failed === 0) totals.failed = 1;
if (broken) console.log(`\nnpm test: the ${broken} stage failed`);
// The totals twice: as a TAP summary (what runners that print ✔ lines close with) and as one plain
// line last, so a reader of the log finds the count whichever form it looks for.
console.log(
  `\n# tests ${totals.passed + totals.failed}\n# pass ${totals.passed}\n# fail ${totals.failed}${totals.skipped ? `\n# skip ${totals.skipped}` : ''}`,
);
console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(broken ? 1 : 0);
