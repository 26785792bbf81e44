// Damaged data directories for fault-injection tests: a real store written by a real process and
// killed, copies of it, seeded byte flips, and a fingerprint of every file to prove nothing changed.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, onStdoutLines, ROOT, startFixture } from './child';
import { tempDir } from './tmp';

/** A deterministic generator (LCG), so a failing case can be replayed exactly. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** XORs `count` bytes at distinct random offsets in [from, to) of `file` with random non-zero values; returns the offsets. */
export function flipBytes(file: string, from: number, to: number, count: number, random: () => number): number[] {
  const data = fs.readFileSync(file);
  const offsets = new Set<number>();
  for (let tries = 0; offsets.size < Math.min(count, to - from) && tries < 1000; tries++) offsets.add(from + Math.floor(random() * (to - from)));
  for (const at of offsets) data[at] ^= 1 + Math.floor(random() * 255);
  fs.writeFileSync(file, data);
  return [...offsets].sort((a, b) => a - b);
}

/** Path → SHA-256 of every file under `dir` (and its mode), to compare before and after. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex') + ` ${fs.statSync(full).mode.toString(8)}`;
    }
  };
  walk(dir);
  return out;
}

export interface StagedStore {
  dir: string;
  /** Acknowledged writes in order: write i carries journal seq i + 1. */
  acked: string[];
}

/**
 * A data directory as a crash leaves it: `perRound` writes, a snapshot, `perRound` more, a
 * snapshot, `perRound` more, then SIGKILL. It holds snapshots at perRound and 2·perRound and the
 * journal from perRound + 1 on.
 */
export async function stageStore(perRound: number): Promise<StagedStore> {
  const dir = tempDir();
  const child = startFixture('storeChild.ts', ['staged', dir, String(perRound)], { COMPACT_BYTES: String(1 << 30) });
  const acked: string[] = [];
  const lines: string[] = [];
  await new Promise<void>((resolve) => {
    onStdoutLines(child, (line) => {
      lines.push(line);
      if (line.startsWith('ack ')) acked.push(line.slice(4));
      if (line === 'done') resolve();
    });
    child.on('exit', () => resolve());
  });
  await new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  if (acked.length !== 3 * perRound) throw new Error(`the staging writer stopped early: ${lines.slice(-3).join(' | ')}`);
  return { dir, acked };
}

/** A fresh copy of a staged directory, to damage. */
export function copyStore(staged: StagedStore): StagedStore {
  const dir = tempDir();
  fs.cpSync(staged.dir, dir, { recursive: true });
  return { dir, acked: staged.acked };
}

/**
 * Makes `dir` read-only for a child process. As root, permission bits do not stop writes, so the
 * child then runs as an unprivileged user (nobody) instead; returns the spawn options that apply.
 */
export function readOnlyFor(dir: string): { uid?: number; gid?: number } {
  const asRoot = process.getuid?.() === 0;
  chmodTree(dir, (mode, isDir) => (isDir ? 0o555 : 0o444) & (mode | 0o555));
  return asRoot ? { uid: 65534, gid: 65534 } : {};
}

export function makeWritable(dir: string): void {
  chmodTree(dir, (_mode, isDir) => (isDir ? 0o700 : 0o600));
}

function chmodTree(dir: string, mode: (current: number, isDir: boolean) => number): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chmodTree(full, mode);
    else fs.chmodSync(full, mode(fs.statSync(full).mode, false));
  }
  fs.chmodSync(dir, mode(fs.statSync(dir).mode, true));
}

/** Runs the built CLI, optionally as another user (see readOnlyFor). */
export function runCliAs(args: string[], user: { uid?: number; gid?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, ...user });
}
