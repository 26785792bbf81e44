// Versioned schema migrations. Each step runs once, in order, tracked by PRAGMA user_version,
// which lives inside the database image and so travels with snapshots.

import type { Database } from 'sql.js';

interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Data steps that SQL alone cannot do; runs after `sql`, in the same transaction. */
  after?: (db: Database) => void;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'sessions, transcripts, memory, runs',
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('applied_seq', '0');

CREATE TABLE agents (
  id          TEXT PRIMARY KEY,
  read_policy TEXT NOT NULL DEFAULT 'shared' CHECK (read_policy IN ('shared', 'isolated')),
  created_at  TEXT NOT NULL
);

CREATE TABLE sessions (
  id                 INTEGER PRIMARY KEY,
  agent_id           TEXT NOT NULL REFERENCES agents(id),
  session_key        TEXT NOT NULL,
  harness            TEXT NOT NULL,
  project            TEXT,
  parent_session_key TEXT,
  lineage_source     TEXT,
  harness_agent_id   TEXT,
  harness_agent_type TEXT,
  execution_mode     TEXT CHECK (execution_mode IN ('SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK')),
  status             TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'failed', 'ended')),
  runtime_path       TEXT,
  claimed_at         TEXT,
  bypassed           INTEGER NOT NULL DEFAULT 0,
  title              TEXT,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  ended_at           TEXT,
  end_reason         TEXT,
  turn_count         INTEGER NOT NULL DEFAULT 0,
  char_count         INTEGER NOT NULL DEFAULT 0,
  source_turns       INTEGER NOT NULL DEFAULT 0,
  source_hash        TEXT NOT NULL DEFAULT '',
  pending_turns      TEXT NOT NULL DEFAULT '[]',
  UNIQUE (agent_id, session_key)
);
CREATE INDEX sessions_by_parent ON sessions (parent_session_key);
CREATE INDEX sessions_by_recency ON sessions (agent_id, project, harness, updated_at);
CREATE INDEX sessions_by_updated ON sessions (updated_at);

-- Transcript text lives in bounded segments (consecutive turns up to a size cap); only the newest
-- segment of a session is ever rewritten. (Full-text search indexes single turns: see migration 2.)
CREATE TABLE transcript_segments (
  id         INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  ordinal    INTEGER NOT NULL,
  first_seq  INTEGER NOT NULL,
  text       TEXT NOT NULL,
  UNIQUE (session_id, ordinal)
);

CREATE TABLE transcript_turns (
  session_id INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
  at         TEXT,
  hash       TEXT NOT NULL,
  segment_id INTEGER NOT NULL,
  start      INTEGER NOT NULL,
  length     INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX transcript_turns_by_hash ON transcript_turns (session_id, hash);

CREATE VIRTUAL TABLE transcript_fts USING fts4 (content="transcript_segments", text, tokenize=unicode61);
CREATE TRIGGER transcript_segments_ai AFTER INSERT ON transcript_segments BEGIN
  INSERT INTO transcript_fts (docid, text) VALUES (new.id, new.text);
END;
-- FTS4 external content: deletes read the old text from the content table, hence BEFORE triggers.
CREATE TRIGGER transcript_segments_bu BEFORE UPDATE OF text ON transcript_segments BEGIN
  DELETE FROM transcript_fts WHERE docid = old.id;
END;
CREATE TRIGGER transcript_segments_au AFTER UPDATE OF text ON transcript_segments BEGIN
  INSERT INTO transcript_fts (docid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER transcript_segments_bd BEFORE DELETE ON transcript_segments BEGIN
  DELETE FROM transcript_fts WHERE docid = old.id;
END;
INSERT INTO transcript_fts (transcript_fts) VALUES ('automerge=8');

CREATE TABLE checkpoints (
  id                INTEGER PRIMARY KEY,
  session_id        INTEGER NOT NULL REFERENCES sessions(id),
  digest            TEXT NOT NULL,
  focal_entities    TEXT NOT NULL DEFAULT '[]',
  extraction_cursor INTEGER NOT NULL DEFAULT 0,
  source            TEXT,
  created_at        TEXT NOT NULL
);
CREATE INDEX checkpoints_by_session ON checkpoints (session_id, id);

CREATE TABLE entities (
  id         INTEGER PRIMARY KEY,
  agent_id   TEXT NOT NULL,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL DEFAULT 'entity',
  created_at TEXT NOT NULL,
  UNIQUE (agent_id, name)
);

CREATE TABLE entity_attributes (
  id          INTEGER PRIMARY KEY,
  entity_id   INTEGER NOT NULL REFERENCES entities(id),
  kind        TEXT NOT NULL DEFAULT 'attribute',
  content     TEXT NOT NULL,
  importance  REAL NOT NULL DEFAULT 0.5,
  confidence  REAL,
  active      INTEGER NOT NULL DEFAULT 1,
  session_key TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT
);
CREATE INDEX entity_attributes_by_entity ON entity_attributes (entity_id, kind, active);

CREATE TABLE memories (
  rowid       INTEGER PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  agent_id    TEXT NOT NULL,
  session_key TEXT,
  project     TEXT,
  content     TEXT NOT NULL,
  type        TEXT,
  tags        TEXT,
  who         TEXT,
  importance  REAL NOT NULL DEFAULT 0.5,
  source_type TEXT,
  source_id   TEXT,
  created_at  TEXT NOT NULL
);
CREATE INDEX memories_by_agent ON memories (agent_id, created_at);
CREATE VIRTUAL TABLE memories_fts USING fts4 (content="memories", content, tokenize=unicode61);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (docid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER memories_bd BEFORE DELETE ON memories BEGIN
  DELETE FROM memories_fts WHERE docid = old.rowid;
END;

CREATE TABLE summary_nodes (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  kind        TEXT NOT NULL,
  depth       INTEGER NOT NULL DEFAULT 0,
  source_type TEXT NOT NULL,
  source_ref  TEXT,
  session_key TEXT,
  project     TEXT,
  content     TEXT NOT NULL,
  score       REAL NOT NULL DEFAULT 0.5,
  meta_json   TEXT NOT NULL DEFAULT '{}',
  created_at  TEXT NOT NULL
);
CREATE INDEX summary_nodes_by_agent ON summary_nodes (agent_id, created_at);
CREATE TABLE summary_links (
  parent_id TEXT NOT NULL REFERENCES summary_nodes(id),
  child_id  TEXT NOT NULL REFERENCES summary_nodes(id),
  PRIMARY KEY (parent_id, child_id)
) WITHOUT ROWID;

CREATE TABLE subagent_runs (
  id                    TEXT PRIMARY KEY,
  agent_id              TEXT NOT NULL,
  session_key           TEXT,
  parent_session_key    TEXT,
  runner                TEXT NOT NULL,
  status                TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  execution_mode        TEXT NOT NULL DEFAULT 'SYNC' CHECK (execution_mode IN ('SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK')),
  workspace_path        TEXT,
  spec_id               TEXT,
  prompt                TEXT,
  files                 TEXT NOT NULL DEFAULT '[]',
  result_content        TEXT,
  input_tokens          INTEGER,
  output_tokens         INTEGER,
  duration_ms           INTEGER,
  error                 TEXT,
  callback_delivered_at TEXT,
  created_at            TEXT NOT NULL,
  started_at            TEXT,
  finished_at           TEXT,
  updated_at            TEXT NOT NULL
);
CREATE INDEX subagent_runs_by_parent ON subagent_runs (parent_session_key, created_at);
CREATE INDEX subagent_runs_by_status ON subagent_runs (status, created_at);
CREATE INDEX subagent_runs_by_spec ON subagent_runs (spec_id, created_at);

CREATE TABLE tokens (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  permissions TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  label       TEXT,
  created_at  TEXT NOT NULL,
  revoked_at  TEXT
);
`,
  },
  {
    // Appending a turn used to re-index the whole open segment (FTS4 external content re-reads and
    // re-tokenises a row on update). Now each turn is its own row of a contentless index: an append
    // indexes only the new text, and excerpts are cut from the segment text in JS.
    version: 2,
    name: 'index each turn once',
    sql: `
DROP TRIGGER transcript_segments_ai;
DROP TRIGGER transcript_segments_bu;
DROP TRIGGER transcript_segments_au;
DROP TRIGGER transcript_segments_bd;
DROP TABLE transcript_fts;
ALTER TABLE transcript_turns ADD COLUMN doc_id INTEGER;
CREATE VIRTUAL TABLE transcript_fts USING fts4 (content="", text, tokenize=unicode61);
INSERT INTO transcript_fts (transcript_fts) VALUES ('automerge=8');
-- Keys are looked up on every hook, often across agents (a shared scope): index the key alone.
CREATE INDEX sessions_by_key ON sessions (session_key, updated_at);
`,
    after: indexEveryTurn,
  },
  {
    // One full-text table read whole: a common word's doclist (positions included, FTS4 cannot
    // defer it) grew with the store, and so did every search that named one. Shards of consecutive
    // documents, read newest first until the ranking window is full, bound that cost (searchIndex.ts).
    // The existing index becomes the first shard, however many turns it holds.
    version: 3,
    name: 'shard the transcript index',
    sql: `
ALTER TABLE transcript_fts RENAME TO transcript_fts_1;
CREATE TABLE index_shards (
  id        INTEGER PRIMARY KEY,
  first_doc INTEGER NOT NULL UNIQUE
);
INSERT INTO index_shards (id, first_doc) VALUES (1, 1);
`,
  },
  {
    // Expanding a summary lists the memories it produced; without this, every expansion read all
    // of the agent's memories.
    version: 4,
    name: 'memories by source',
    sql: `CREATE INDEX memories_by_source ON memories (agent_id, source_id, created_at);`,
  },
  {
    // Where a constraint came from (extracted from turn N said by the user or the agent, or added
    // by hand), shown by the preview; entities edited by hand can be described and deactivated;
    // a compaction leaves a mark so the next prompt hears which sub-agents ran (docs/inheritance.md).
    version: 5,
    name: 'constraint provenance, entities by hand, sub-agents after compaction',
    sql: `
ALTER TABLE sessions ADD COLUMN children_due INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entity_attributes ADD COLUMN origin TEXT;
ALTER TABLE entity_attributes ADD COLUMN source_seq INTEGER;
ALTER TABLE entity_attributes ADD COLUMN source_role TEXT;
ALTER TABLE entities ADD COLUMN active INTEGER NOT NULL DEFAULT 1;
ALTER TABLE entities ADD COLUMN description TEXT;
ALTER TABLE entities ADD COLUMN updated_at TEXT;
CREATE INDEX entity_attributes_by_session ON entity_attributes (session_key, kind);
`,
  },
  {
    // Memory side (docs/memory.md): a memory's type and tags become searchable words next to its
    // text; the recall ledger remembers which memory a session's context already holds, per
    // context epoch; the MEMORY.md head of each agent keeps its lease and last write in the
    // database, so a restart neither forgets a live lease nor lets a second writer in.
    version: 6,
    name: 'memory search fields, recall ledger, MEMORY.md heads',
    sql: `
DROP TRIGGER memories_ai;
DROP TRIGGER memories_bd;
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts4 (content="memories", content, type, tags, tokenize=unicode61);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (docid, content, type, tags) VALUES (new.rowid, new.content, new.type, new.tags);
END;
CREATE TRIGGER memories_bd BEFORE DELETE ON memories BEGIN
  DELETE FROM memories_fts WHERE docid = old.rowid;
END;
INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
CREATE INDEX memories_by_session ON memories (agent_id, session_key, source_type);
CREATE INDEX summary_nodes_by_session ON summary_nodes (agent_id, session_key, kind, created_at);

CREATE TABLE recall_ledger (
  agent_id    TEXT NOT NULL,
  session_key TEXT NOT NULL,
  epoch       INTEGER NOT NULL,
  memory_id   TEXT NOT NULL,
  recalled_at TEXT NOT NULL,
  PRIMARY KEY (agent_id, session_key, epoch, memory_id)
) WITHOUT ROWID;

CREATE TABLE memory_heads (
  agent_id          TEXT PRIMARY KEY,
  lease_id          TEXT,
  lease_session_key TEXT,
  lease_expires_at  TEXT,
  written_at        TEXT,
  written_hash      TEXT,
  written_session_key TEXT
);
`,
  },
  {
    // Work a route answers for at once and a background runner does later (checkpoint
    // extraction, session summaries): queued in the store so it survives a restart
    // (src/store/jobs.ts). through_seq: the last turn a checkpoint job covers, its cursor.
    version: 7,
    name: 'background jobs',
    sql: `
CREATE TABLE jobs (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  kind        TEXT NOT NULL,
  session_key TEXT,
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  payload     TEXT NOT NULL DEFAULT '{}',
  through_seq INTEGER,
  result      TEXT,
  error       TEXT,
  attempts    INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL,
  started_at  TEXT,
  finished_at TEXT,
  updated_at  TEXT NOT NULL
);
CREATE INDEX jobs_by_status ON jobs (status, created_at);
CREATE INDEX jobs_by_session ON jobs (agent_id, session_key, kind, status);
`,
  },
  {
    // Where the last read of each harness transcript file stopped (src/core/fileCursor.ts), so a
    // hook reads only what was appended and a restart does not read a long session again.
    version: 8,
    name: 'transcript file cursors',
    sql: `
CREATE TABLE transcript_files (
  session_id   INTEGER NOT NULL REFERENCES sessions(id),
  path         TEXT NOT NULL,
  cursor       TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (session_id, path)
) WITHOUT ROWID;
`,
  },
  {
    // Which process runs a run Baton started itself, and its child (docs/runs.md, "After a
    // crash"): a restart fails the runs a dead process left unfinished and ends their children.
    // child_identity tells the child from a later process that got the same pid.
    version: 9,
    name: 'run processes',
    sql: `
ALTER TABLE subagent_runs ADD COLUMN host_pid INTEGER;
ALTER TABLE subagent_runs ADD COLUMN child_pid INTEGER;
ALTER TABLE subagent_runs ADD COLUMN child_identity TEXT;
`,
  },
  {
    // Other names an entity goes by, named in a prompt like its name (docs/memory.md, "Entity
    // context at each prompt"): a JSON list of strings. meta.entity_edits counts the edits of
    // entities, so a reader's index of names knows when a rename, alias or deactivation outdated it.
    version: 10,
    name: 'entity aliases',
    sql: `
ALTER TABLE entities ADD COLUMN aliases TEXT NOT NULL DEFAULT '[]';
INSERT INTO meta (key, value) VALUES ('entity_edits', '0');
`,
  },
  {
    // The tools a language-model sub-agent was granted at spawn (docs/runs.md, "Tools of a
    // sub-agent"), as a JSON list; NULL: the spawn asked for none (the child had no tools).
    version: 11,
    name: 'run tool grants',
    sql: `
ALTER TABLE subagent_runs ADD COLUMN tools TEXT;
`,
  },
  {
    // Runs listed by runner, newest first (`baton runs --runner`, GET /api/runs?runner=, a
    // window's holders): without it every such listing scans all runs (docs/storage.md).
    version: 12,
    name: 'runs by runner',
    sql: `CREATE INDEX subagent_runs_by_runner ON subagent_runs (runner, created_at);`,
  },
  {
    // What each session spent (docs/storage.md, "Spend"): the usage of every model request, by the
    // turn it came with (turn_usage; its key counts a request read twice once), and per session the
    // sums of its own requests and of its own plus all its descendants' (JSON tallies by model,
    // core/spend.ts), kept in the same write as the turn so no read walks the tree. NULL: nothing
    // reported. Sessions stored before have no usage: their tallies start empty.
    version: 13,
    name: 'spend per session',
    sql: `
ALTER TABLE sessions ADD COLUMN spend_own TEXT;
ALTER TABLE sessions ADD COLUMN spend_total TEXT;
CREATE TABLE turn_usage (
  session_id         INTEGER NOT NULL REFERENCES sessions(id),
  usage_key          TEXT NOT NULL,
  seq                INTEGER,
  model              TEXT,
  input_tokens       INTEGER NOT NULL,
  output_tokens      INTEGER NOT NULL,
  cache_read_tokens  INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cost_usd           REAL,
  at                 TEXT NOT NULL,
  PRIMARY KEY (session_id, usage_key)
) WITHOUT ROWID;
CREATE INDEX turn_usage_by_time ON turn_usage (at);
`,
  },
  {
    // What a sub-agent was asked to do, from its spawn call (docs/inheritance.md, "The child's
    // task"): the inherited block is chosen by it; NULL when the harness did not say.
    version: 14,
    name: 'sub-agent task',
    sql: `ALTER TABLE sessions ADD COLUMN task TEXT;`,
  },
];

/** Gives every stored turn a document id (in storage order) and indexes its text. */
function indexEveryTurn(db: Database): void {
  const segments = db.prepare('SELECT id, text FROM transcript_segments ORDER BY id');
  const turns = db.prepare(
    'SELECT seq, start, length FROM transcript_turns WHERE session_id = (SELECT session_id FROM transcript_segments WHERE id = ?) AND segment_id = ? ORDER BY start',
  );
  const setDoc = db.prepare('UPDATE transcript_turns SET doc_id = ? WHERE session_id = (SELECT session_id FROM transcript_segments WHERE id = ?) AND seq = ?');
  const index = db.prepare('INSERT INTO transcript_fts (docid, text) VALUES (?, ?)');
  let next = 1;
  try {
    while (segments.step()) {
      const [segmentId, text] = segments.get() as [number, string];
      turns.bind([segmentId, segmentId]);
      const found: Array<[number, number, number]> = [];
      while (turns.step()) found.push(turns.get() as [number, number, number]);
      turns.reset();
      for (const [seq, start, length] of found) {
        setDoc.run([next, segmentId, seq]);
        index.run([next, text.slice(start, start + length)]);
        next++;
      }
    }
  } finally {
    for (const stmt of [segments, turns, setDoc, index]) stmt.free();
  }
  db.run('CREATE INDEX transcript_turns_by_doc ON transcript_turns (doc_id)');
  db.run("INSERT INTO meta (key, value) VALUES ('next_doc_id', ?), ('indexed_doc_id', ?)", [String(next), String(next)]);
}

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export function schemaVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
}

/** Brings a database up to the newest schema; returns the versions applied. */
export function migrate(db: Database): number[] {
  const applied: number[] = [];
  const current = schemaVersion(db);
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.exec('BEGIN');
    try {
      db.exec(migration.sql);
      migration.after?.(db);
      db.exec(`PRAGMA user_version = ${migration.version}`);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(err as Error).message}`, { cause: err });
    }
    applied.push(migration.version);
  }
  return applied;
}
