// Session artifacts on disk (docs/memory.md, "Session artifacts"; layout in docs/storage.md):
// at session end the canonical transcript.jsonl and the session's manifest; at compaction the
// compaction markdown, linked from the manifest as compaction_path; from the summary job the
// immutable --summary.md. Every file is written atomically (temp file, fsync, rename, fsync of
// the folder), files 0600 and folders 0700 like the rest of the data directory, and every name
// comes from fileToken, so no agent id or session key can lead outside DIR/memory.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifactFileName, compactionMarkdown, emptyManifest, fileToken, summaryMarkdown, transcriptJsonl, type SessionManifest } from '../core/artifacts';
import { redactSecrets } from '../core/redact';
import { fsyncDir, writeFileAtomicAsync } from '../node/fsync';
import type { Job } from '../store/jobs';
import type { StoreAccess } from '../store/store';

export const SUMMARY_JOB = 'session-summary';

/** Queues a background job (src/server/jobs.ts); answers its id. */
export type QueueJob = (args: { agentId: string; kind: string; sessionKey: string; payload: Record<string, unknown> }) => Promise<{ id: string | null }>;

/** Turns read per request when writing a transcript. */
const PAGE = 2000;

export class SessionArtifacts {
  readonly root: string;
  /** One read-modify-write of a manifest at a time (one server writes a data directory). */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Compaction files chosen but not written yet: two compactions in one millisecond get two names. */
  private readonly reserved = new Set<string>();

  constructor(
    private readonly store: StoreAccess,
    private readonly dataDir: string,
    private readonly queueJob?: QueueJob,
  ) {
    this.root = path.join(dataDir, 'memory');
  }

  /** A path relative to the data directory, with `/` separators (what manifests and replies hold). */
  relative(file: string): string {
    return path.relative(this.dataDir, file).split(path.sep).join('/');
  }

  private inside(...parts: string[]): string {
    const file = path.join(this.root, ...parts);
    // fileToken never yields a separator or "..": this only guards against a future mistake.
    if (!file.startsWith(this.root + path.sep)) throw new Error('artifact path outside the artifacts folder');
    return file;
  }

  private agentDir(agentId: string): string {
    return this.inside(fileToken(agentId));
  }

  /** DIR/memory/<agent>/<harness>/transcripts/<session>/: the session's transcript.jsonl and manifest.json. */
  private sessionDir(agentId: string, harness: string, key: string): string {
    return this.inside(fileToken(agentId), fileToken(harness), 'transcripts', fileToken(key));
  }

  private async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(name) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.catch(() => undefined);
    this.queues.set(name, settled);
    void settled.then(() => {
      if (this.queues.get(name) === settled) this.queues.delete(name);
    });
    return mine;
  }

  private readManifest(file: string): SessionManifest | null {
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as SessionManifest;
      return parsed && parsed.version === 1 ? parsed : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      // A damaged manifest is rebuilt: everything in it but the links can be derived again.
      if (err instanceof SyntaxError) return null;
      throw err;
    }
  }

  /** Reads (or starts) a session's manifest, lets `change` edit it, writes it back atomically. */
  private async updateManifest(
    where: { agentId: string; harness: string; key: string },
    change: (m: SessionManifest, now: string) => void | Promise<void>,
  ): Promise<{ manifest: SessionManifest; file: string }> {
    const dir = this.sessionDir(where.agentId, where.harness, where.key);
    const file = path.join(dir, 'manifest.json');
    return this.exclusive(file, async () => {
      const now = new Date().toISOString();
      const manifest =
        this.readManifest(file) ??
        emptyManifest({ sessionKey: where.key, sessionToken: fileToken(where.key), agentId: where.agentId, harness: where.harness, now });
      await change(manifest, now);
      manifest.updated_at = now;
      ensureDir(dir);
      await writeFileAtomicAsync(file, JSON.stringify(manifest, null, 2) + '\n');
      return { manifest, file };
    });
  }

  /**
   * At session end: the whole transcript as transcript.jsonl (rewritten, so a session ended again
   * leaves one consistent file), the manifest, and a queued summary job. Turns are only ever
   * appended, so an end that brings no new turn leaves the transcript and its summary as they
   * are and only updates the status fields. Null when the session has no turns.
   */
  async sessionEnded(agentId: string, key: string) {
    const first = await this.store.read('writableSession', { agentId, key });
    if (!first || first.turnCount === 0) return null;
    const dir = this.sessionDir(agentId, first.harness, key);
    const transcriptFile = path.join(dir, 'transcript.jsonl');
    // Read under the manifest's lock: of two ends at once, the later one writes the newer transcript.
    const { manifest, file } = await this.updateManifest({ agentId, harness: first.harness, key }, async (m) => {
      const session = (await this.store.read('writableSession', { agentId, key })) ?? first;
      m.project = session.project;
      m.lineage = {
        parent_session_key: session.parentSessionKey,
        lineage_source: session.lineageSource,
        harness_agent_id: session.harnessAgentId,
        harness_agent_type: session.harnessAgentType,
        execution_mode: session.executionMode,
      };
      m.status = session.status;
      m.ended_at = session.endedAt;
      m.end_reason = session.endReason;
      if (m.transcript_path && m.turn_count === session.turnCount && fileSize(transcriptFile) === m.transcript_bytes) return;
      let jsonl = '';
      let total = 0;
      for (let from = 1, page = 0; page < 10_000; page++) {
        const got = await this.store.read('turns', { scope: { agentId }, key, from, limit: PAGE });
        jsonl += transcriptJsonl(key, got.turns);
        total += got.turns.length;
        if (got.turns.length < PAGE) break;
        from = got.turns[got.turns.length - 1].seq + 1;
      }
      const bytes = Buffer.from(jsonl, 'utf8');
      ensureDir(dir);
      await writeFileAtomicAsync(transcriptFile, bytes);
      const capturedAt = new Date().toISOString();
      m.transcript_path = this.relative(transcriptFile);
      m.turn_count = total;
      m.transcript_bytes = bytes.length;
      m.transcript_sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
      m.captured_at = capturedAt;
      if (this.queueJob) {
        const job = await this.queueJob({ agentId, kind: SUMMARY_JOB, sessionKey: key, payload: { capturedAt, throughSeq: total, harness: first.harness } });
        m.summary_job_id = job.id;
      }
    });
    return {
      transcript_path: this.relative(transcriptFile),
      manifest_path: this.relative(file),
      turn_count: manifest.turn_count,
      summaryJobId: manifest.summary_job_id,
    };
  }

  /** Where a compaction's markdown will go, decided before the summary node is written (it records the path). */
  async compactionTarget(agentId: string, key: string | null, harness: string, fallbackToken: string) {
    const session = key ? await this.store.read('writableSession', { agentId, key }) : null;
    let capturedAt = new Date().toISOString();
    const token = key ? fileToken(key) : fileToken(fallbackToken);
    const dir = this.agentDir(agentId);
    let file = path.join(dir, artifactFileName(capturedAt, token, 'compaction'));
    // Immutable: a second compaction in the same millisecond gets the next one.
    for (let i = 0; (fs.existsSync(file) || this.reserved.has(file)) && i < 1000; i++) {
      capturedAt = new Date(Date.parse(capturedAt) + 1).toISOString();
      file = path.join(dir, artifactFileName(capturedAt, token, 'compaction'));
    }
    this.reserved.add(file);
    return { key, harness: session?.harness ?? harness, project: session?.project ?? null, capturedAt, file, compaction_path: this.relative(file) };
  }

  /**
   * Writes the compaction markdown and, for a session, links it from the manifest as
   * compaction_path. Written before the summary node that names it, so no link ever points at a
   * missing file (a failure after it leaves an unlinked file, never a dangling link).
   */
  async writeCompaction(
    agentId: string,
    target: Awaited<ReturnType<SessionArtifacts['compactionTarget']>>,
    summary: string,
    project: string | null,
  ): Promise<void> {
    const text = compactionMarkdown(
      { sessionKey: target.key, agentId, harness: target.harness, project: project ?? target.project, capturedAt: target.capturedAt },
      redactSecrets(summary),
    );
    try {
      ensureDir(path.dirname(target.file));
      await writeFileAtomicAsync(target.file, text);
    } finally {
      this.reserved.delete(target.file);
    }
    if (!target.key) return;
    await this.updateManifest({ agentId, harness: target.harness, key: target.key }, (m) => {
      m.compaction_path = target.compaction_path;
      if (!m.compaction_paths.includes(target.compaction_path)) m.compaction_paths.push(target.compaction_path);
      m.project ??= project ?? target.project;
    });
  }

  /**
   * The summary job: DIR/memory/<agent>/<captured_at>--<session>--summary.md for the transcript
   * captured at that session end (immutable: a job run again after a crash leaves an existing file
   * as it is), then summary_path in the manifest when it still describes that capture.
   */
  async writeSummary(job: Job) {
    const key = job.sessionKey!;
    const payload = job.payload as { capturedAt: string; throughSeq: number; harness: string };
    const session = await this.store.read('writableSession', { agentId: job.agentId, key });
    if (!session) throw new Error('the session is gone');
    const turns: Array<{ role: string; text: string }> = [];
    for (let from = 1, page = 0; from <= payload.throughSeq && page < 10_000; page++) {
      const got = await this.store.read('turns', { scope: { agentId: job.agentId }, key, from, limit: Math.min(PAGE, payload.throughSeq - from + 1) });
      turns.push(...got.turns.map((t) => ({ role: t.role, text: redactSecrets(t.text) })));
      if (got.turns.length === 0) break;
      from = got.turns[got.turns.length - 1].seq + 1;
    }
    const file = path.join(this.agentDir(job.agentId), artifactFileName(payload.capturedAt, fileToken(key), 'summary'));
    if (!fs.existsSync(file)) {
      const text = summaryMarkdown(
        { sessionKey: key, agentId: job.agentId, harness: session.harness, project: session.project, capturedAt: payload.capturedAt, turnCount: turns.length },
        turns,
      );
      ensureDir(path.dirname(file));
      await writeFileAtomicAsync(file, text);
    }
    const summaryPath = this.relative(file);
    await this.updateManifest({ agentId: job.agentId, harness: payload.harness, key }, (m) => {
      if (m.captured_at === payload.capturedAt) m.summary_path = summaryPath;
    });
    return { summary_path: summaryPath };
  }
}

/** A file's size, or -1 when it is missing. */
function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return -1;
  }
}

/** mkdir -p with mode 0700, and each new folder's entry made durable in its parent. */
function ensureDir(dir: string): void {
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!first) return;
  for (let d = dir; ; d = path.dirname(d)) {
    fsyncDir(path.dirname(d));
    if (d === first || path.dirname(d) === d) break;
  }
}
