// Background jobs across real processes: `baton import claude-code` runs in-process while no
// server holds the data directory, so the summary jobs its session ends queue stay pending; the
// next `baton serve` (a child process) does them, and they can be polled over HTTP
// (docs/memory.md, "Background jobs"). Needs the built CLI (npm run build).

import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT, runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const PROJECTS = path.join(ROOT, 'test', 'fixtures', 'claude-projects');

/** Every manifest.json under DIR/memory. */
function manifests(dataDir: string): Array<{ file: string; manifest: any }> {
  const out: Array<{ file: string; manifest: any }> = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name === 'manifest.json') out.push({ file: full, manifest: JSON.parse(fs.readFileSync(full, 'utf8')) });
    }
  };
  visit(path.join(dataDir, 'memory'));
  return out;
}

function serve(dataDir: string): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
    setTimeout(() => reject(new Error('serve did not start in 15 s')), 15_000);
  });
  return { child, url };
}

describe('background jobs across processes (built CLI)', function () {
  this.timeout(90_000);
  after(cleanupTempDirs);

  it('summary jobs queued by an in-process import are done by the next baton serve', async () => {
    assert.ok(fs.existsSync(CLI), 'npm run build first');
    const dataDir = tempDir('baton-jobs-');
    const imported = runCli(['import', 'claude-code', PROJECTS, '--data-dir', dataDir, '--json'], { timeout: 60_000 });
    assert.equal(imported.status, 0, imported.stderr);

    // The import ended every session in-process: transcripts and manifests exist, summaries do not yet.
    const before = manifests(dataDir);
    assert.ok(before.length >= 3, `manifests: ${before.length}`);
    for (const { manifest } of before) {
      assert.ok(manifest.transcript_path && fs.existsSync(path.join(dataDir, manifest.transcript_path)));
      assert.ok(manifest.summary_job_id, 'a summary job was queued');
      assert.equal(manifest.summary_path, null, 'no server ran it yet');
    }

    const { child, url } = serve(dataDir);
    try {
      const base = await url;
      const token = JSON.parse(fs.readFileSync(path.join(dataDir, 'endpoint.json'), 'utf8')).token as string;
      for (const { manifest } of before) {
        let job: any;
        for (let i = 0; i < 200; i++) {
          const res = await fetch(`${base}/api/jobs/${manifest.summary_job_id}`, { headers: { authorization: `Bearer ${token}` } });
          assert.equal(res.status, 200);
          job = await res.json();
          if (job.status === 'completed' || job.status === 'failed') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(job.status, 'completed', JSON.stringify(job));
        assert.ok(fs.existsSync(path.join(dataDir, job.result.summary_path)), job.result.summary_path);
      }
      for (const { file } of before) {
        const after = JSON.parse(fs.readFileSync(file, 'utf8'));
        assert.match(after.summary_path, /--summary\.md$/, file);
      }
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });
});
