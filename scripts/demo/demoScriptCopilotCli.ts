// The GitHub Copilot CLI part of the demo story (scripts/demo/record-demo-copilot-cli.ts records it): a
// teammate on the same project as the Claude Code story (acme-billing, scripts/demo/demoScript.ts)
// picks up what that story left open ("Nothing handles dispute events yet") with Copilot CLI:
// refunds are held while a chargeback is open, then the disputes table for billing-staging and the
// pull request. The scripted model is stateless, like the others: a request is answered by finding
// the newest prompt of the story among its user messages (a session's prompt, or the task a `task`
// call handed a sub-agent) and counting the assistant messages after it: that count is the step of
// that prompt's script. Copilot CLI runs the tools itself (view, grep, glob, create, edit, bash and
// task, with the arguments its 1.0.102 tool list declares).

import { chatStoryModel, type StoryStep } from './demoModel';

type Tool = NonNullable<StoryStep['tools']>[number];
type Step = StoryStep;

export interface CopilotCliDemoSession {
  title: string;
  /** Run one after another in the same session (`copilot -p … --session-id <id>`). */
  prompts: string[];
}

/** Placeholder for the project's absolute path in tool inputs; replaced per request with the real one. */
const ROOT = '@PROJECT@';

const view = (file: string): Tool => ({ name: 'view', input: { path: `${ROOT}/${file}` } });
const grep = (pattern: string, where = 'src', glob?: string): Tool => ({
  name: 'grep',
  input: { pattern, paths: `${ROOT}/${where}`, output_mode: 'content', '-n': true, ...(glob ? { glob } : {}) },
});
const glob = (pattern: string): Tool => ({ name: 'glob', input: { pattern, paths: ROOT } });
const bash = (command: string, description: string): Tool => ({ name: 'bash', input: { command, description } });
const create = (file: string, fileText: string): Tool => ({ name: 'create', input: { path: `${ROOT}/${file}`, file_text: fileText } });
const edit = (file: string, oldStr: string, newStr: string): Tool => ({ name: 'edit', input: { path: `${ROOT}/${file}`, old_str: oldStr, new_str: newStr } });
/** A sub-agent in sync mode: the call returns its final reply. `explore` agents read only and start none of their own. */
const task = (agentType: 'general-purpose' | 'explore', name: string, description: string, prompt: string): Tool => ({
  name: 'task',
  input: { agent_type: agentType, name, description, prompt, mode: 'sync' },
});

const P = {
  disputes:
    'The provider now sends charge.dispute.created when a customer files a chargeback, and src/webhooks.ts drops it. Hold refunds on a checkout while its dispute is open, so support cannot refund money the bank already took back. Any query you need runs on billing-staging, never on production.',
  refundPaths:
    'List every provider event type src/webhooks.ts accepts and every place in src/ that can issue a refund, and say which of them would still refund a checkout whose dispute is open. Have a sub-agent check whether db/migrations can record a dispute. Read only: change no file.',
  disputeSchema:
    'Check db/migrations for a table that can record an open dispute per checkout, and say what a new migration needs (columns, keys, indexes). Read only.',
  disputeTest:
    'Write test/disputes.test.mjs for src/disputes.mjs: a refund is held from charge.dispute.created until charge.dispute.closed, and the same created event twice keeps one hold. Run it with node --test.',
  disputesDiff: 'Show me the diff, and run the whole suite once more.',
  disputesMigration:
    'Write the migration for the disputes table the audit asked for, as db/migrations/006_disputes.sql (004 and 005 are taken by the refunds and processed_events branches). It goes to billing-staging first; production only through the release pipeline.',
  openDisputes: 'How many checkouts have a dispute open right now, and did any of them get a refund anyway? Give me the query for billing-staging.',
  prDescription: 'Write the pull request description for the chargeback hold: what changed, how it was tested, and how it rolls out.',
};

const DISPUTES = `// Chargebacks: while a customer's dispute is open the bank has already taken the money back, so no
// refund may go out for that checkout (it would pay the customer twice). Plain JavaScript, so the
// webhook worker and node --test load it without a build.

/** Updates \`open\` (the checkout ids with an open dispute) from one provider event; other events change nothing. */
export function applyDisputeEvent(open, event) {
  if (event.type === 'charge.dispute.created') open.add(event.checkoutId);
  else if (event.type === 'charge.dispute.closed') open.delete(event.checkoutId);
  return open;
}

/** Whether a refund may go out for the checkout now. */
export function refundAllowed(open, checkoutId) {
  return !open.has(checkoutId);
}
`;

const DISPUTES_TEST = `import { test } from 'node:test';
import assert from 'node:assert';
import { applyDisputeEvent, refundAllowed } from '../src/disputes.mjs';

test('a refund is held from charge.dispute.created until charge.dispute.closed', () => {
  const open = new Set();
  applyDisputeEvent(open, { id: 'evt_1', type: 'charge.dispute.created', checkoutId: 'chk_42' });
  assert.equal(refundAllowed(open, 'chk_42'), false);
  assert.equal(refundAllowed(open, 'chk_43'), true, 'other checkouts are not held');
  applyDisputeEvent(open, { id: 'evt_2', type: 'charge.dispute.closed', checkoutId: 'chk_42' });
  assert.equal(refundAllowed(open, 'chk_42'), true);
});

test('the same created event twice keeps one hold', () => {
  const open = new Set();
  const created = { id: 'evt_3', type: 'charge.dispute.created', checkoutId: 'chk_7' };
  applyDisputeEvent(open, created);
  applyDisputeEvent(open, created);
  assert.deepEqual([...open], ['chk_7']);
});
`;

const EVENT_TYPES = "  type: 'charge.succeeded' | 'charge.failed' | 'refund.succeeded';";
const EVENT_TYPES_WITH_DISPUTES = "  type: 'charge.succeeded' | 'charge.failed' | 'refund.succeeded' | 'charge.dispute.created' | 'charge.dispute.closed';";

const REFUNDABLE = `export function refundable(charge: Charge, refunded: number): number {
  return Math.max(0, charge.amountCents - refunded);`;
const REFUNDABLE_HELD = `export function refundable(charge: Charge, refunded: number, disputed = false): number {
  // An open chargeback: the bank already took the money back (src/disputes.mjs).
  if (disputed) return 0;
  return Math.max(0, charge.amountCents - refunded);`;

const DISPUTES_MIGRATION = `-- Chargebacks reported by the provider (charge.dispute.created / charge.dispute.closed).
-- Refunds are held while a checkout has an open dispute (src/disputes.mjs).
-- Apply to billing-staging first; production goes through the release pipeline.
CREATE TABLE disputes (
  id BIGSERIAL PRIMARY KEY,
  checkout_id TEXT NOT NULL,
  provider_event_id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  opened_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  closed_at TIMESTAMPTZ
);

-- At most one open dispute per checkout, and a fast "is this checkout held?" lookup.
CREATE UNIQUE INDEX disputes_open_checkout ON disputes (checkout_id) WHERE status = 'open';
`;

const SCRIPTS: Record<string, Step[]> = {
  [P.disputes]: [
    {
      say: 'Starting with the webhook handler and the refund code.',
      tools: [view('src/webhooks.ts'), view('src/refunds.ts'), grep('refund|dispute', 'src')],
    },
    {
      say: 'handleEvent only knows charge.succeeded, charge.failed and refund.succeeded, and refundable() has no notion of a dispute. The hold goes into a small plain-JS module first, so a test can load it without a build:',
      tools: [create('src/disputes.mjs', DISPUTES)],
    },
    {
      say: 'Two sub-agents in parallel: one audits every refund path (and has the schema checked), one writes and runs the test.',
      tools: [
        task('general-purpose', 'refund-paths', 'Audit refund paths for disputes', P.refundPaths),
        task('general-purpose', 'dispute-test', 'Test the dispute hold', P.disputeTest),
      ],
    },
    {
      say: 'The audit confirms refundable() is the only refund path. Adding the dispute events to the handler and the hold to refundable():',
      tools: [edit('src/webhooks.ts', EVENT_TYPES, EVENT_TYPES_WITH_DISPUTES), edit('src/refunds.ts', REFUNDABLE, REFUNDABLE_HELD)],
    },
    { tools: [bash('node --test test/ 2>&1 | tail -n 8', 'Run the test suite')] },
    {
      say: 'Done:\n- src/webhooks.ts: `ProviderEvent` accepts charge.dispute.created and charge.dispute.closed (still deduplicated by event id).\n- src/disputes.mjs: `applyDisputeEvent` keeps the set of checkouts with an open dispute; `refundAllowed` says whether a refund may go out.\n- src/refunds.ts: `refundable(charge, refunded, disputed)` returns 0 while a dispute is open.\n- test/disputes.test.mjs (from the sub-agent): hold from created to closed, one hold for a repeated event. The suite passes.\nThe holds live in memory for now; the schema check says nothing in db/migrations records a dispute, so a disputes table is next (billing-staging first, never production).',
    },
  ],
  [P.refundPaths]: [
    { tools: [view('src/webhooks.ts'), grep('refund', 'src')] },
    {
      say: 'The code paths are clear; asking a sub-agent about the schema while I check the callers.',
      tools: [task('explore', 'dispute-schema', 'Check migrations for disputes', P.disputeSchema)],
    },
    { tools: [grep('refundable\\(|amountCents', 'src')] },
    {
      say: 'Event types src/webhooks.ts accepts (`ProviderEvent.type`, line 3): charge.succeeded, charge.failed, refund.succeeded. A charge.dispute.* event is not one of them, so it never reaches `apply`.\nRefund paths in src/: only `refundable()` in src/refunds.ts (line 9); `Refund` (line 3) is the record it produces. It would refund a disputed checkout in full today: it looks at the amount only.\nSchema (from the sub-agent): no table records a dispute; db/migrations holds only 003_invoices.sql. A disputes table needs checkout_id, the provider event id (unique) and an open/closed status, with one open dispute per checkout.\nNo file was changed.',
    },
  ],
  [P.disputeSchema]: [
    { tools: [glob('db/migrations/*.sql'), view('db/migrations/003_invoices.sql')] },
    { tools: [grep('dispute|chargeback', 'db', '*.sql')] },
    {
      say: 'Only db/migrations/003_invoices.sql exists (invoices: id, checkout_id, total_cents, created_at); nothing mentions disputes or chargebacks. A new migration needs a `disputes` table: checkout_id (TEXT, as in invoices), provider_event_id (UNIQUE, so a replayed webhook inserts nothing), status open/closed, opened_at and closed_at, and a partial unique index on checkout_id where the status is open (one open dispute per checkout, and the lookup the refund path needs). Like the others it goes to billing-staging first.',
    },
  ],
  [P.disputeTest]: [
    { tools: [view('src/disputes.mjs')] },
    { say: 'Two cases: the hold from created to closed, and a repeated created event.', tools: [create('test/disputes.test.mjs', DISPUTES_TEST)] },
    { tools: [bash('node --test test/disputes.test.mjs 2>&1 | grep -E "^# (tests|pass|fail)"', 'Run the dispute test')] },
    { say: 'Wrote test/disputes.test.mjs: both tests pass (a refund is held for chk_42 and not for chk_43 until the dispute closes; the same created event twice leaves one hold).' },
  ],
  [P.disputesDiff]: [
    { tools: [bash('git status --short && git diff src/', 'Show the changes')] },
    { tools: [bash('node --test test/ 2>&1 | grep -E "^# (tests|pass|fail)"', 'Run the whole test suite')] },
    {
      say: 'Changed: src/webhooks.ts (two event types) and src/refunds.ts (the `disputed` parameter); new: src/disputes.mjs and test/disputes.test.mjs. The whole suite passes, the placeholder charge test included.',
    },
  ],
  [P.disputesMigration]: [
    {
      say: 'Following the conventions of the invoices migration, and checking where the database URL points.',
      tools: [view('db/migrations/003_invoices.sql'), view('.env.example')],
    },
    { tools: [create('db/migrations/006_disputes.sql', DISPUTES_MIGRATION)] },
    { tools: [bash('ls db/migrations && grep -c "CREATE" db/migrations/006_disputes.sql', 'List the migrations')] },
    {
      say: 'Wrote db/migrations/006_disputes.sql: a `disputes` table (checkout_id, provider_event_id UNIQUE so a replayed webhook inserts nothing, status open/closed, opened_at, closed_at) and a partial unique index so a checkout has at most one open dispute. BILLING_DB_URL in .env.example points at billing-staging.internal, so `psql "$BILLING_DB_URL" -f db/migrations/006_disputes.sql` applies it there. I ran nothing; production gets it through the release pipeline.',
    },
  ],
  [P.openDisputes]: [
    { say: 'Checking the database the project is configured for.', tools: [bash('grep BILLING_DB_URL .env.example', 'Show the database URL')] },
    {
      say: "On billing-staging (once 006 is applied there), never on production:\n\n```sql\nSELECT d.checkout_id, d.opened_at, r.id AS refund_id, r.amount_cents\nFROM disputes d LEFT JOIN refunds r ON r.checkout_id = d.checkout_id AND r.created_at >= d.opened_at\nWHERE d.status = 'open'\nORDER BY d.opened_at;\n```\n\nEvery row is a checkout on hold; a row with a refund_id was refunded after its dispute opened, which means the customer is paid twice and support has to claw one back.",
    },
  ],
  [P.prDescription]: [
    { tools: [bash('git status --short && git diff --stat', 'Summarize the changes')] },
    { tools: [bash('node --test test/ 2>&1 | grep -E "^# (tests|pass|fail)"', 'Run the test suite')] },
    {
      say: "## Hold refunds while a chargeback is open\n\nThe provider sends `charge.dispute.created` when a customer files a chargeback; we dropped it, so support could refund money the bank had already taken back.\n\n**What changed**\n- `src/webhooks.ts`: accepts `charge.dispute.created` and `charge.dispute.closed`.\n- `src/disputes.mjs`: the set of checkouts with an open dispute; `refundAllowed()`.\n- `src/refunds.ts`: `refundable()` returns 0 for a disputed checkout.\n- `db/migrations/006_disputes.sql`: the disputes table, one open dispute per checkout.\n\n**Tests**: `test/disputes.test.mjs` (hold from created to closed, repeated events); `node --test test/` passes.\n\n**Rollout**: apply 006 on billing-staging and replay a dispute webhook there; production gets the migration through the release pipeline, never by hand.",
    },
  ],
};

export const COPILOT_CLI_DEMO_SESSIONS: CopilotCliDemoSession[] = [
  { title: 'Hold refunds during chargebacks', prompts: [P.disputes, P.disputesDiff] },
  { title: 'Disputes table on billing-staging', prompts: [P.disputesMigration, P.openDisputes] },
  { title: 'Pull request for the chargeback hold', prompts: [P.prDescription] },
];

// ---------------------------------------------------------------------------------------------
// The scripted model (Chat Completions, as Copilot CLI's custom provider sends them).

// Copilot CLI's system prompt names the folder it runs in (sub-agents' too).
export const respondForCopilotCli = chatStoryModel({ sessions: COPILOT_CLI_DEMO_SESSIONS, scripts: SCRIPTS, placeholder: ROOT, workingDirectory: /Current working directory: (\S+)/ });
