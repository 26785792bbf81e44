// The chatSessions watcher (src/vscode/chatSessionImport.ts) in the real host: a VS Code agent-mode
// chat session file written into this window's workspaceStorage/<hash>/chatSessions folder reaches
// Baton's store with its runSubagent child, marked imported; a request appended to the file later
// arrives as new turns (the watcher's change path); and another pass over the same file adds nothing.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { api, extension, sleep, waitFor, type BatonApi, type ClientLike } from './helpers';

/** The exported API's read-only chat folder (src/extension.ts), typed structurally like helpers.ts. */
function chatSessionsFolder(a: BatonApi): string | undefined {
  return (a as unknown as { chatSessionsFolder?: string }).chatSessionsFolder;
}

/** The fixture's ids and marker, as written in it (test/fixtures/copilot/workspaceStorage). */
const FIXTURE_ID = 'c0ffee00-1234-4abc-8def-0123456789ab';
const FIXTURE_MARK = 'IMPORT-MARK-9931';
// The child's key takes the call id without VS Code's `__vscode-N` suffix (as the hooks see it).
const FIXTURE_CALL = 'call_Ab12Cd34';

function fixture(): string {
  const dir = path.join(extension().extensionPath, 'test', 'fixtures', 'copilot', 'workspaceStorage');
  const hash = fs.readdirSync(dir)[0];
  return fs.readFileSync(path.join(dir, hash, 'chatSessions', `${FIXTURE_ID}.jsonl`), 'utf8');
}

type Stored = { endReason?: string | null; parentSessionKey: string | null; turnCount: number };

async function stored(client: ClientLike, key: string): Promise<Stored | null> {
  return (await client.getSession(key)) as unknown as Stored | null;
}

async function allText(client: ClientLike, key: string): Promise<string> {
  const page = await client.turns(key, 1, 500);
  return page.turns.map((t) => t.text).join('\n');
}

/** `baton import copilot --path <file> --json` against the window's running store, as a user runs it. */
function cliImport(dataDir: string, file: string): Promise<{ turnsAdded: number; sessions: number; created: number }> {
  const cli = path.join(extension().extensionPath, 'dist', 'cli.js');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, 'import', 'copilot', '--path', file, '--data-dir', dataDir, '--json'], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as { turnsAdded: number; sessions: number; created: number });
    });
  });
}

describe('Chat session import: the chatSessions watcher', () => {
  const id = crypto.randomUUID();
  const mark = `kumquat${crypto.randomBytes(4).toString('hex')}`;
  const childKey = `${id}/agent-${FIXTURE_CALL}`;
  let file = '';

  after(() => {
    if (file) fs.rmSync(file, { force: true });
  });

  it("a chat session file written into this window's chatSessions folder is imported, its sub-agent under it", async function () {
    this.timeout(60_000);
    const a = await api();
    const folder = chatSessionsFolder(a);
    assert.ok(folder, 'the extension exports the chatSessions folder it imports from');
    assert.equal(path.basename(folder), 'chatSessions');
    // VS Code creates the folder with the first chat; this window has had none.
    fs.mkdirSync(folder, { recursive: true });
    file = path.join(folder, `${id}.jsonl`);
    fs.writeFileSync(file, fixture().replaceAll(FIXTURE_ID, id).replaceAll(FIXTURE_MARK, mark));
    const client = a.host.client!;
    const t0 = Date.now();
    // Imported: started, then ended by the import with its transcript (the start alone is visible in between).
    const imported = async (key: string) => ((await stored(client, key))?.endReason === 'import' ? stored(client, key) : null);
    const parent = await waitFor(() => imported(id), 20_000, `session ${id} imported`, 250);
    assert.equal(parent.endReason, 'import');
    const child = await waitFor(() => imported(childKey), 20_000, `sub-agent ${childKey} imported`, 250);
    assert.equal(child.parentSessionKey, id);
    assert.equal(child.endReason, 'import');
    const children = await client.listSessions({ parent: id });
    assert.deepEqual(
      children.sessions.map((s) => s.key),
      [childKey],
    );
    assert.match(await allText(client, id), new RegExp(mark));
    assert.match(await allText(client, childKey), /chargeCustomer/);
    console.log(`      (imported ${Date.now() - t0} ms after the write; ${parent.turnCount} turn(s), the child ${child.turnCount})`);
  });

  it('a request appended to the file arrives as new turns; another pass adds nothing', async function () {
    this.timeout(60_000);
    assert.ok(file, 'the first test wrote the file');
    const a = await api();
    const client = a.host.client!;
    const before = (await stored(client, id))!.turnCount;
    const followUp = `${mark}-followup`;
    // VS Code appends a new request as a kind-2 push onto "requests".
    const push = {
      kind: 2,
      k: ['requests'],
      v: [
        {
          requestId: 'request_watch_3',
          timestamp: Date.now(),
          message: { text: `Summarize the refactor (${followUp})` },
          response: [{ kind: 'markdownContent', content: { value: `Summary: two callers moved (${followUp} done).` } }],
          result: { timings: {} },
        },
      ],
    };
    fs.appendFileSync(file, `${JSON.stringify(push)}\n`);
    const t0 = Date.now();
    const after = await waitFor(
      async () => {
        const s = await stored(client, id);
        return s && s.turnCount > before && (await allText(client, id)).includes(`${followUp} done`) ? s : null;
      },
      20_000,
      'the appended request imported',
      250,
    );
    assert.equal(after.turnCount, before + 2, 'the prompt and its reply, nothing else');
    console.log(`      (the change arrived ${Date.now() - t0} ms after the append; ${before} -> ${after.turnCount} turns)`);

    // The watcher's second pass over the unchanged file: rewritten as VS Code saves it, then given
    // the debounce and some more.
    fs.writeFileSync(file, fs.readFileSync(file));
    await sleep(5_000);
    assert.equal((await stored(client, id))!.turnCount, after.turnCount, 'the watcher pass over the same file added nothing');
    // And a pass whose result is visible: `baton import copilot` through the window's endpoint.
    const again = await cliImport(a.host.dataDir, file);
    assert.equal(again.sessions, 2);
    assert.equal(again.created, 0);
    assert.equal(again.turnsAdded, 0, JSON.stringify(again));
    assert.equal((await stored(client, id))!.turnCount, after.turnCount);
    assert.equal((await stored(client, childKey))!.endReason, 'import');
  });
});
