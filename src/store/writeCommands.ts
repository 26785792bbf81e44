// The registry of write commands the store worker accepts (see commands.ts and lifecycle.ts).

import type { Database } from 'sql.js';
import type { ReadPolicy } from '../core/types';
import * as c from './commands';
import type { CommandContext } from './commands';
import * as life from './lifecycle';
import { recordExtraction } from './ruleCommands';
import * as mem from './memoryCommands';
import { enqueueJob, setJob } from './jobs';
import { archiveTurns } from './archive';
import { failInterruptedRuns, recordRunProcess } from './runProcesses';
import { checkClaimGuard } from './claims';
import type { ClaimGuard } from './claimGuard';

/**
 * What the engine runs before a request that carries a guard, in the same step (a write: inside
 * its savepoint, so a refusal journals nothing). The guard is opaque to the engine; the rule it
 * applies is the domain's (claims.ts).
 */
export function checkRequestGuard(db: Database, guard: unknown, now: string): void {
  checkClaimGuard(db, guard as ClaimGuard, now);
}

export const WRITE_COMMANDS = {
  ensureAgent: (ctx: CommandContext, args: { agentId: string; readPolicy?: ReadPolicy }) => {
    c.ensureAgent(ctx, args.agentId, args.readPolicy);
    return { ok: true as const };
  },
  setAgentPolicy: c.setAgentPolicy,
  upsertSession: c.upsertSession,
  recordTranscript: c.recordTranscript,
  forgetTranscriptFile: c.forgetTranscriptFile,
  updateSession: c.updateSession,
  startSession: life.startSession,
  touchSession: life.touchSession,
  endPreviousSessions: life.endPreviousSessions,
  setBypass: life.setBypass,
  markCompacted: life.markCompacted,
  takeSubagentsDue: life.takeSubagentsDue,
  addCheckpoint: c.addCheckpoint,
  setAttribute: c.setAttribute,
  addAttribute: c.addAttribute,
  setEntity: c.setEntity,
  recordExtraction,
  addMemory: c.addMemory,
  addSummary: c.addSummary,
  recordSessionMemory: mem.recordSessionMemory,
  recordRecalled: mem.recordRecalled,
  takeHeadLease: mem.takeHeadLease,
  writeHead: mem.writeHead,
  upsertRun: c.upsertRun,
  takeDeliveries: c.takeDeliveries,
  recordRunProcess,
  failInterruptedRuns,
  archiveTurns,
  createToken: c.createToken,
  enqueueJob,
  setJob,
  revokeToken: (ctx: CommandContext, args: { id: string }) => {
    ctx.emit({ t: 'tokenRevoke', id: args.id, at: ctx.now() });
    return { ok: true as const };
  },
};

export type WriteCommands = typeof WRITE_COMMANDS;
export type WriteName = keyof WriteCommands;
export type WriteArgs<N extends WriteName> = Parameters<WriteCommands[N]>[1];
export type WriteResult<N extends WriteName> = ReturnType<WriteCommands[N]>;
