// The story scripts/demo/record-demo.ts records: a billing team's sessions on one project, and the
// scripted model that plays the assistant in them. The model is stateless: a request is answered
// by finding the newest prompt of the story among its user messages (a session's prompt, or the
// task an Agent call handed a sub-agent) and counting the assistant messages after it: that count
// is the step of that prompt's script. Claude Code runs the tools itself.

import type * as http from 'node:http';
import { contentText, type ScriptedBlock, type ScriptedReply } from '../../test/shared/fakeAnthropic';
import { storyStep, withProject } from './demoModel';

export const DEMO_PROJECT = 'acme-billing';

interface Tool {
  name: string;
  input: Record<string, unknown>;
}
/** One model turn: some text, then tool calls (none on the last step of a script). */
interface Step {
  say?: string;
  tools?: Tool[];
}

export interface DemoSession {
  title: string;
  /** Run one after another in the same session (`--resume`); `/compact` compacts it. */
  prompts: string[];
  /** What the model answers when this session is compacted. */
  compactSummary?: string;
}

const read = (file: string): Tool => ({ name: 'Read', input: { file_path: `${PROJECT_ROOT}/${file}` } });
const grep = (pattern: string, where = 'src'): Tool => ({ name: 'Grep', input: { pattern, path: where, output_mode: 'content', '-n': true } });
const bash = (command: string, description: string): Tool => ({ name: 'Bash', input: { command, description } });
const edit = (file: string, oldString: string, newString: string): Tool => ({
  name: 'Edit',
  input: { file_path: `${PROJECT_ROOT}/${file}`, old_string: oldString, new_string: newString },
});
const write = (file: string, content: string): Tool => ({ name: 'Write', input: { file_path: `${PROJECT_ROOT}/${file}`, content } });
const agent = (description: string, prompt: string): Tool => ({
  name: 'Agent',
  input: { description, prompt, subagent_type: 'general-purpose', run_in_background: false },
});

/** Placeholder for the project's absolute path in tool inputs; replaced per request with the real cwd. */
const PROJECT_ROOT = '@PROJECT@';

// ---------------------------------------------------------------------------------------------
// The project the sessions work on (written into the temp project folder before recording).

export const DEMO_PROJECT_FILES: Record<string, string> = {
  'README.md': `# acme-billing

Charges, invoices and refunds for the Acme storefront.

- \`src/charge.ts\`: card charges with retries and an idempotency key
- \`src/invoice.ts\`: invoice totals and rounding
- \`src/refunds.ts\`: partial and full refunds
- \`db/migrations/\`: schema changes, applied to billing-staging first

Tests: \`node --test test/\`
`,
  'package.json': `{
  "name": "acme-billing",
  "version": "2.2.0",
  "private": true,
  "scripts": { "test": "node --test test/" }
}
`,
  'src/charge.ts': `export interface Charge {
  checkoutId: string;
  amountCents: number;
}

/** Sends a charge, retrying with exponential backoff. */
export async function chargeCard(charge: Charge, send: (c: Charge, idempotencyKey: string) => Promise<void>, attempts = 4): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const key = \`checkout-\${charge.checkoutId}-\${attempt}\`;
    try {
      return await send(charge, key);
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
}
`,
  'src/invoice.ts': `export interface Line {
  description: string;
  unitCents: number;
  quantity: number;
  taxRate: number;
}

/** Invoice total in cents: each line's tax is rounded on its own. */
export function invoiceTotal(lines: Line[]): number {
  return lines.reduce((sum, l) => sum + l.unitCents * l.quantity + Math.round(l.unitCents * l.quantity * l.taxRate), 0);
}
`,
  'src/refunds.ts': `import type { Charge } from './charge';

export interface Refund {
  checkoutId: string;
  amountCents: number;
  reason: string;
}

export function refundable(charge: Charge, refunded: number): number {
  return Math.max(0, charge.amountCents - refunded);
}
`,
  'src/webhooks.ts': `export interface ProviderEvent {
  id: string;
  type: 'charge.succeeded' | 'charge.failed' | 'refund.succeeded';
  checkoutId: string;
}

const seen = new Set<string>();

/** Handles a provider webhook once per event id. */
export function handleEvent(event: ProviderEvent, apply: (e: ProviderEvent) => void): boolean {
  if (seen.has(event.id)) return false;
  seen.add(event.id);
  apply(event);
  return true;
}
`,
  'db/migrations/003_invoices.sql': `CREATE TABLE invoices (
  id BIGSERIAL PRIMARY KEY,
  checkout_id TEXT NOT NULL,
  total_cents BIGINT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
`,
  'test/charge.test.mjs': `import { test } from 'node:test';
import assert from 'node:assert';

test('placeholder: charge tests run against a fake provider', () => {
  assert.equal(1 + 1, 2);
});
`,
  '.env.example': `BILLING_DB_URL=postgres://billing-staging.internal:5432/billing
PROVIDER_KEY=sk_test_replace_me
`,
};

// ---------------------------------------------------------------------------------------------
// The story. Every prompt (and every Agent task) is unique: it names its script.

const P = {
  doubleCharge:
    "Customers were charged twice during Tuesday's provider outage. Find out why chargeCard retries create duplicate charges and fix it. Never touch the production database: use billing-staging for every query.",
  auditRetries: 'Audit every retry path in src/ that can send a charge to the provider twice. Report file, line and why each one is or is not safe.',
  providerDocs: 'Check how the payment provider deduplicates requests: which header carries the idempotency key and how long keys are kept.',
  regressionTest: 'Write a regression test for chargeCard: after two failed attempts and a success, all three attempts carry one and the same idempotency key.',
  runTests: 'Run the tests and show me the diff of src/charge.ts.',
  afterCompact: 'What is left before we can ship the double-charge fix?',
  stagingCheck: 'Count the duplicated charges from Tuesday on billing-staging so we know how many refunds to issue.',
  partialRefunds: 'Add partial refunds to src/refunds.ts: a refund may take any amount up to what is left on the charge.',
  refundEdgeCases:
    'List the edge cases a partial refund has to handle (currency, zero amounts, concurrent refunds) and say which ones refundable() covers today.',
  refundsMigration:
    'Write the migration for a refunds table. Apply it to billing-staging only. Do not run migrations against production yourself; production goes through the release pipeline.',
  invoiceRounding: 'Invoice totals are off by one cent for some multi-line EU orders. Find out why in src/invoice.ts.',
  invoiceTest: 'Add a test with the order from ticket BILL-311 (3 lines at 19% VAT) so this stays fixed.',
  webhookRestart: 'The webhook handler forgets which events it has seen when it restarts. Make the dedupe survive a restart.',
  webhookTypes: 'Find every provider event type the code handles or ignores, and where.',
  reviewPr: 'Review PR #142 (currency conversion for refunds): read src/refunds.ts and tell me what you would change.',
  flakyTest: 'test/charge.test.mjs failed once in CI last night. Run it a few times and tell me if it is flaky.',
  dunning: 'Plan dunning emails for failed renewals: a schedule of reminders and the copy for each.',
  dunningCopy: 'Draft short, friendly email copy for three payment reminders: day 1, day 4 and day 10 after a failed renewal.',
  dunningConfig: 'Find where retry or reminder schedules are configured in this project, if anywhere.',
  vatRates: 'Add EU VAT rates for DE, FR and NL in a new src/tax.ts, and use it from invoice lines.',
  loadTest: 'Write a load test plan for checkout before Black Friday. Always point load tests at billing-staging, and keep them under 200 requests per second.',
  releaseNotes: 'Draft release notes for 2.2.1 from the work this week.',
  postmortem: "Write the postmortem for Tuesday's double charges: timeline, root cause, fix, follow-ups.",
  postmortemTimeline: 'Reconstruct a timeline of the double-charge incident from what the code and notes in this project show.',
  handoff: 'Summarize the open billing issues for the on-call handoff in five bullets.',
  handoffRefunds: 'Which files hold the refunds work, and is anything in them unfinished?',
  webhookMigration: 'Write the processed_events migration for the webhook dedupe. It goes to billing-staging first.',
  reviewFollowup: 'Good points. Add the RangeError to 422 mapping you suggested, in a new src/errors.ts.',
  flakyCi: 'Add a note to the README on how to rerun the test suite locally the way CI does.',
  dunningTest: 'Add a test for nextReminder covering day 0, day 4 and day 11.',
  vatTest: 'Check that vatRate throws for an unknown country and that DE is 19%.',
  loadScript: 'Turn the plan into a small script that prints the ramp schedule, minute by minute.',
  releaseVersion: 'Bump the version to 2.2.1 in package.json and check nothing else names 2.2.0.',
  postmortemOwners: 'Add owners and due dates to the follow-ups in the postmortem.',
  invoiceDocs: 'Explain the per-rate rounding in the README so nobody reverts it.',
};

const SCRIPTS: Record<string, Step[]> = {
  [P.doubleCharge]: [
    { say: "I'll start with the charge code and where the idempotency key is built.", tools: [read('src/charge.ts'), grep('idempotency|checkout-')] },
    {
      say: 'The key includes the attempt number, so each retry looks like a new charge to the provider. Two checks in parallel: the other retry paths, and a regression test.',
      tools: [agent('Audit retry paths', P.auditRetries), agent('Regression test for retries', P.regressionTest)],
    },
    {
      say: 'Both reports agree. Fixing the key so it is built once per checkout:',
      tools: [
        edit(
          'src/charge.ts',
          '  for (let attempt = 1; ; attempt++) {\n    const key = `checkout-${charge.checkoutId}-${attempt}`;',
          '  // One key for every attempt: the provider drops a retry of a charge it already took.\n  const key = `checkout-${charge.checkoutId}`;\n  for (let attempt = 1; ; attempt++) {',
        ),
      ],
    },
    {
      say: "Fixed: chargeCard now sends one idempotency key, `checkout-<id>`, on every attempt, so a retry after a timeout is deduplicated by the provider (it keeps keys for 24 hours). The sub-agents found the same bug nowhere else; the webhook handler dedupes by event id. Next: run the tests, then count Tuesday's duplicates on billing-staging for refunds.",
    },
  ],
  [P.auditRetries]: [
    { say: 'Looking for loops around provider calls.', tools: [grep('for \\(let attempt|retry|send\\('), read('src/webhooks.ts')] },
    { say: "Before judging the charge path I'll confirm how the provider deduplicates.", tools: [agent('Provider idempotency rules', P.providerDocs)] },
    {
      say: 'Retry paths:\n1. src/charge.ts:8 chargeCard: UNSAFE. The key `checkout-<id>-<attempt>` changes per attempt, so the provider treats each retry as a new charge.\n2. src/webhooks.ts:10 handleEvent: safe, dedupes by event id (in memory only: a restart forgets seen ids, worth a follow-up).\n3. src/refunds.ts: no retries.',
    },
  ],
  [P.providerDocs]: [
    { say: 'Checking the project notes and config for the provider.', tools: [read('README.md'), read('.env.example')] },
    {
      say: 'The provider deduplicates on the `Idempotency-Key` header: a second request with the same key within 24 hours returns the first result instead of charging again. The key is per logical charge, so it has to stay the same across retries.',
    },
  ],
  [P.regressionTest]: [
    { say: 'Reading the current test file first.', tools: [read('test/charge.test.mjs')] },
    {
      tools: [
        write(
          'test/retry.test.mjs',
          "import { test } from 'node:test';\nimport assert from 'node:assert';\n\n// chargeCard must reuse one idempotency key across retries (Tuesday's double charges).\ntest('retries reuse the idempotency key', async () => {\n  const keys = [];\n  let calls = 0;\n  const send = async (_charge, key) => {\n    keys.push(key);\n    if (++calls < 3) throw new Error('timeout');\n  };\n  const { chargeCard } = await import('../src/charge.ts').catch(() => ({ chargeCard: null }));\n  if (!chargeCard) return; // plain node cannot load .ts: run with tsx\n  await chargeCard({ checkoutId: 'c1', amountCents: 500 }, send);\n  assert.deepEqual(new Set(keys).size, 1);\n});\n",
        ),
      ],
    },
    { say: 'Added test/retry.test.mjs: it fails twice then succeeds and expects exactly one distinct idempotency key across the three attempts.' },
  ],
  [P.runTests]: [
    { say: 'Running the suite.', tools: [bash('node --test test/ 2>&1 | tail -n 12', 'Run the test suite')] },
    { tools: [bash('git diff --no-index /dev/null src/charge.ts | head -n 30 || true', 'Show the charge module')] },
    { say: 'Tests pass (2 files). The change in src/charge.ts moves the key out of the retry loop; nothing else changed.' },
  ],
  [P.afterCompact]: [
    { say: 'Checking what is still open.', tools: [grep('TODO|FIXME', '.'), read('src/webhooks.ts')] },
    {
      say: "Left before shipping:\n1. Refunds for Tuesday's duplicates: count them on billing-staging (not production).\n2. The webhook dedupe keeps seen ids in memory only; a restart during an outage could apply an event twice.\n3. Release note for 2.2.1.",
    },
  ],
  [P.stagingCheck]: [
    {
      say: 'Querying billing-staging only, as agreed.',
      tools: [
        bash(
          'echo "SELECT checkout_id, count(*) FROM charges WHERE created_at::date = \'2026-11-24\' GROUP BY 1 HAVING count(*) > 1;" > /tmp/dupes.sql && cat /tmp/dupes.sql',
          'Prepare the duplicate-charge query for billing-staging',
        ),
      ],
    },
    {
      say: 'The query is ready in /tmp/dupes.sql for billing-staging (the staging replica mirrors Tuesday). It groups charges by checkout and lists those charged more than once; each row is one refund to issue.',
    },
  ],
  [P.partialRefunds]: [
    { say: 'Reading the refunds module and its callers.', tools: [read('src/refunds.ts'), grep('refundable')] },
    { say: 'Before changing it, a quick survey of the edge cases.', tools: [agent('Partial refund edge cases', P.refundEdgeCases)] },
    {
      tools: [
        edit(
          'src/refunds.ts',
          'export function refundable(',
          '/** A partial refund: at most what is left on the charge; zero or less is refused. */\nexport function partialRefund(charge: Charge, refunded: number, amountCents: number, reason: string): Refund {\n  const left = refundable(charge, refunded);\n  if (amountCents <= 0 || amountCents > left) throw new RangeError(`refund of ${amountCents} outside 1..${left}`);\n  return { checkoutId: charge.checkoutId, amountCents, reason };\n}\n\nexport function refundable(',
        ),
      ],
    },
    {
      say: 'Added partialRefund(): it checks the amount against refundable() and returns the Refund record. Concurrent refunds still need a row lock when we persist them (noted by the sub-agent).',
    },
  ],
  [P.refundEdgeCases]: [
    { tools: [read('src/refunds.ts'), read('src/charge.ts')] },
    {
      say: 'Edge cases:\n- Zero or negative amounts: not covered today.\n- Amount above what is left: refundable() returns the remainder, callers have to compare.\n- Currency: charges carry no currency field; refunds inherit the charge currency implicitly.\n- Two refunds at once: nothing serialises them; persisting needs a lock on the charge row.',
    },
  ],
  [P.refundsMigration]: [
    { say: 'Following the existing migration style.', tools: [read('db/migrations/003_invoices.sql')] },
    {
      tools: [
        write(
          'db/migrations/004_refunds.sql',
          'CREATE TABLE refunds (\n  id BIGSERIAL PRIMARY KEY,\n  checkout_id TEXT NOT NULL,\n  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),\n  reason TEXT NOT NULL,\n  created_at TIMESTAMPTZ NOT NULL DEFAULT now()\n);\nCREATE INDEX refunds_checkout ON refunds (checkout_id);\n',
        ),
      ],
    },
    { tools: [bash('grep -n BILLING_DB_URL .env.example', 'Check which database the env points at')] },
    {
      say: 'Wrote db/migrations/004_refunds.sql. The env points at billing-staging.internal, so `psql "$BILLING_DB_URL" -f db/migrations/004_refunds.sql` applies it there; production is left to the release pipeline.',
    },
  ],
  [P.invoiceRounding]: [
    { tools: [read('src/invoice.ts')] },
    {
      say: 'Tax is rounded per line, then summed. Checking with three lines at 19%:',
      tools: [
        bash(
          'node -e "const l=[333,333,334];const perLine=l.reduce((s,c)=>s+c+Math.round(c*0.19),0);const total=l.reduce((s,c)=>s+c,0);console.log(perLine, total+Math.round(total*0.19))"',
          'Compare per-line and per-invoice tax rounding',
        ),
      ],
    },
    {
      say: 'Per-line rounding gives 1189, rounding the invoice tax once gives 1190: the cent comes from rounding each line. Rounding once per tax rate:',
      tools: [
        edit(
          'src/invoice.ts',
          '  return lines.reduce((sum, l) => sum + l.unitCents * l.quantity + Math.round(l.unitCents * l.quantity * l.taxRate), 0);',
          '  // Tax is rounded once per rate (per invoice), not per line: per-line rounding drifts by a cent.\n  const net = new Map<number, number>();\n  for (const l of lines) net.set(l.taxRate, (net.get(l.taxRate) ?? 0) + l.unitCents * l.quantity);\n  let total = 0;\n  for (const [rate, cents] of net) total += cents + Math.round(cents * rate);\n  return total;',
        ),
      ],
    },
    { say: 'Fixed in src/invoice.ts: net amounts are summed per tax rate and the tax is rounded once per rate, which is what the EU invoices expect.' },
  ],
  [P.invoiceTest]: [
    {
      tools: [
        write(
          'test/invoice.test.mjs',
          "import { test } from 'node:test';\nimport assert from 'node:assert';\n\n// BILL-311: three lines at 19% VAT were a cent short when tax was rounded per line.\ntest('BILL-311 total', () => {\n  const lines = [333, 333, 334];\n  const net = lines.reduce((s, c) => s + c, 0);\n  assert.equal(net + Math.round(net * 0.19), 1190);\n});\n",
        ),
      ],
    },
    { tools: [bash('node --test test/invoice.test.mjs 2>&1 | grep -E "^# (pass|fail)"', 'Run the new invoice test')] },
    { say: 'Added test/invoice.test.mjs for BILL-311; it passes.' },
  ],
  [P.webhookRestart]: [
    { say: 'Two things to know first: the handler, and which events arrive.', tools: [read('src/webhooks.ts'), agent('Webhook event types', P.webhookTypes)] },
    {
      tools: [
        edit(
          'src/webhooks.ts',
          'const seen = new Set<string>();',
          '/** Seen event ids, persisted by the caller (a processed_events table) so a restart keeps them. */\nexport interface SeenStore {\n  has(id: string): boolean;\n  add(id: string): void;\n}\n\nconst seen: SeenStore = new Set<string>();',
        ),
      ],
    },
    {
      say: 'The handler now takes its seen ids from a SeenStore; the in-memory Set stays the default, and production wiring passes a store backed by a processed_events table (migration to follow, staging first).',
    },
  ],
  [P.webhookTypes]: [
    { tools: [grep("'charge\\.|'refund\\.", '.')] },
    {
      say: 'Event types: charge.succeeded, charge.failed and refund.succeeded, all in src/webhooks.ts (the ProviderEvent type). Nothing handles dispute events yet.',
    },
  ],
  [P.reviewPr]: [
    { tools: [read('src/refunds.ts'), grep('amountCents')] },
    {
      say: 'Review of PR #142:\n1. Conversion happens before the refundable() check, so rounding can let a refund exceed the charge by a cent; convert after the check.\n2. Store the rate used on the refund row for audits.\n3. partialRefund() throws RangeError; the API layer maps it to 422, please add that to the handler.\nOtherwise looks good.',
    },
  ],
  [P.flakyTest]: [
    {
      tools: [
        bash(
          'for i in 1 2 3 4 5; do node --test test/charge.test.mjs 2>&1 | grep -E "^# (pass|fail)" | tr "\\n" " "; echo; done',
          'Run the charge test five times',
        ),
      ],
    },
    { tools: [read('test/charge.test.mjs')] },
    {
      say: "Five runs, five passes, and the test has no timers or network. Last night's failure was more likely the CI runner (the job log shows an OOM kill at 02:14); no flakiness in the test itself.",
    },
  ],
  [P.dunning]: [
    {
      say: 'Two parts in parallel: the copy and any existing schedule config.',
      tools: [agent('Dunning email copy', P.dunningCopy), agent('Find schedule config', P.dunningConfig)],
    },
    {
      tools: [
        write(
          'src/dunning.ts',
          '/** Reminders after a failed renewal, in days; the card is retried the day before each one. */\nexport const DUNNING_SCHEDULE_DAYS = [1, 4, 10];\n\nexport function nextReminder(daysSinceFailure: number): number | null {\n  return DUNNING_SCHEDULE_DAYS.find((d) => d > daysSinceFailure) ?? null;\n}\n',
        ),
      ],
    },
    {
      say: 'Plan: reminders on day 1, 4 and 10 after a failed renewal (src/dunning.ts), a card retry the day before each, and the copy drafted by the sub-agent. No schedule existed before; this is the first.',
    },
  ],
  [P.dunningCopy]: [
    {
      say: 'Day 1: "Your renewal did not go through. Update your card in one click and nothing changes for you."\nDay 4: "Friendly reminder: your plan renews once your card is updated."\nDay 10: "Last reminder before your plan pauses. Update your card to keep everything running."',
    },
  ],
  [P.dunningConfig]: [
    { tools: [grep('schedule|reminder|retry', '.')] },
    { say: 'No schedule config exists: the only retry logic is the backoff inside chargeCard (src/charge.ts), 4 attempts at 200 to 1600 ms.' },
  ],
  [P.vatRates]: [
    { tools: [read('src/invoice.ts')] },
    {
      tools: [
        write(
          'src/tax.ts',
          '/** Standard VAT rates (2026) by country code. */\nexport const VAT: Record<string, number> = { DE: 0.19, FR: 0.2, NL: 0.21 };\n\nexport function vatRate(country: string): number {\n  const rate = VAT[country];\n  if (rate === undefined) throw new Error(`no VAT rate for ${country}`);\n  return rate;\n}\n',
        ),
      ],
    },
    {
      say: 'Added src/tax.ts with DE 19%, FR 20%, NL 21%. Invoice lines take `taxRate: vatRate(order.country)`; the per-rate rounding from BILL-311 keeps totals exact.',
    },
  ],
  [P.loadTest]: [
    { tools: [read('README.md'), read('.env.example')] },
    {
      tools: [
        write(
          'docs/loadtest.md',
          '# Checkout load test (before Black Friday)\n\nTarget: billing-staging only. Rate: ramp 20 -> 180 requests per second over 15 minutes, hold 10 minutes.\n\n1. Charges with the provider test key (sk_test_*), one idempotency key per checkout.\n2. Measure p50/p99 of chargeCard and invoice creation.\n3. Stop at 1% errors.\n',
        ),
      ],
    },
    { say: 'Plan written to docs/loadtest.md: staging only, ramp to 180 rps (under the 200 cap), provider test keys, stop at 1% errors.' },
  ],
  [P.releaseNotes]: [
    { tools: [bash('ls src db/migrations test docs', 'List what changed this week')] },
    {
      tools: [
        write(
          'CHANGELOG.md',
          '# 2.2.1\n\n- Fix: card retries reuse one idempotency key (no more double charges during provider timeouts).\n- Fix: invoice tax rounded once per rate (BILL-311).\n- New: partial refunds, refunds table (migration 004).\n- New: webhook dedupe survives restarts.\n- New: EU VAT rates, dunning schedule.\n',
        ),
      ],
    },
    { say: 'Drafted CHANGELOG.md for 2.2.1 with the two fixes first.' },
  ],
  [P.postmortem]: [
    { say: 'Getting the timeline from a sub-agent while I reread the fix.', tools: [agent('Incident timeline', P.postmortemTimeline), read('src/charge.ts')] },
    {
      tools: [
        write(
          'docs/postmortem-double-charges.md',
          "# Postmortem: double charges during Tuesday's provider outage\n\n## Root cause\nchargeCard built the idempotency key with the attempt number, so each retry after a timeout was a new charge.\n\n## Fix\nOne key per checkout for all attempts (2.2.1).\n\n## Follow-ups\n- Refunds for the duplicates (counted on billing-staging).\n- Webhook dedupe persisted across restarts.\n- Regression test test/retry.test.mjs.\n",
        ),
      ],
    },
    { say: 'Postmortem written to docs/postmortem-double-charges.md.' },
  ],
  [P.postmortemTimeline]: [
    { tools: [read('CHANGELOG.md'), grep('idempotency', 'src')] },
    {
      say: 'Timeline: Tue 14:02 provider timeouts start; 14:05 retries with fresh keys create second charges; 15:30 support reports duplicates; Wed fix merged (one key per checkout); Thu refunds counted on billing-staging.',
    },
  ],
  [P.handoffRefunds]: [
    { tools: [grep('refund', '.'), read('src/refunds.ts')] },
    { tools: [read('db/migrations/004_refunds.sql')] },
    {
      say: 'Refunds live in src/refunds.ts (partialRefund, refundable) and db/migrations/004_refunds.sql. Unfinished: nothing persists a refund yet, and two refunds at once need a row lock on the charge when that lands.',
    },
  ],
  [P.webhookMigration]: [
    { tools: [read('db/migrations/004_refunds.sql'), bash('ls db/migrations', 'List the migrations')] },
    {
      tools: [
        write(
          'db/migrations/005_processed_events.sql',
          '-- Webhook event ids already applied: the dedupe survives restarts.\nCREATE TABLE processed_events (\n  event_id TEXT PRIMARY KEY,\n  processed_at TIMESTAMPTZ NOT NULL DEFAULT now()\n);\n',
        ),
      ],
    },
    {
      say: 'Wrote db/migrations/005_processed_events.sql (event_id as primary key, so a concurrent duplicate fails the insert). Apply it on billing-staging; the release pipeline takes it to production.',
    },
  ],
  [P.reviewFollowup]: [
    { tools: [read('src/refunds.ts')] },
    {
      tools: [
        write(
          'src/errors.ts',
          "/** HTTP status for an error thrown by the billing code: a RangeError is the caller's mistake. */\nexport function statusOf(err: unknown): number {\n  if (err instanceof RangeError) return 422;\n  return 500;\n}\n",
        ),
      ],
    },
    { tools: [bash('node -e "console.log(new RangeError(\'x\') instanceof RangeError)"', 'Sanity-check the error class')] },
    { say: 'Added src/errors.ts with statusOf(): RangeError maps to 422, anything else to 500. The refund handler can call it in its catch.' },
  ],
  [P.flakyCi]: [
    { tools: [read('README.md'), read('package.json')] },
    {
      tools: [
        edit(
          'README.md',
          'Tests: `node --test test/`',
          'Tests: `node --test test/` (CI runs `npm test` with `NODE_OPTIONS=--max-old-space-size=512`; set the same to reproduce an out-of-memory kill).',
        ),
      ],
    },
    { say: "README now says how CI runs the suite, including the memory cap that explains last night's kill." },
  ],
  [P.dunningTest]: [
    { tools: [read('src/dunning.ts')] },
    {
      tools: [
        write(
          'test/dunning.test.mjs',
          "import { test } from 'node:test';\nimport assert from 'node:assert';\n\nconst DAYS = [1, 4, 10];\nconst next = (d) => DAYS.find((x) => x > d) ?? null;\n\ntest('next reminder', () => {\n  assert.equal(next(0), 1);\n  assert.equal(next(4), 10);\n  assert.equal(next(11), null);\n});\n",
        ),
      ],
    },
    { tools: [bash('node --test test/dunning.test.mjs 2>&1 | grep -E "^# (pass|fail)"', 'Run the dunning test')] },
    { say: 'test/dunning.test.mjs covers day 0 (first reminder on day 1), day 4 (next on day 10) and day 11 (none left); it passes.' },
  ],
  [P.vatTest]: [
    { tools: [read('src/tax.ts')] },
    { tools: [bash('node -e "const VAT={DE:0.19,FR:0.2,NL:0.21};console.log(VAT.DE, VAT.XX===undefined)"', 'Check the rates table')] },
    { say: 'DE is 0.19, and an unknown code (XX) has no entry, so vatRate throws `no VAT rate for XX`. Both behave as intended.' },
  ],
  [P.loadScript]: [
    { tools: [read('docs/loadtest.md')] },
    {
      tools: [
        write(
          'scripts/ramp.mjs',
          '// Prints the load test ramp: 20 -> 180 rps over 15 minutes, then a 10 minute hold.\nfor (let m = 0; m <= 25; m++) {\n  const rps = m < 15 ? Math.round(20 + (160 * m) / 15) : 180;\n  console.log(`minute ${m}: ${rps} rps`);\n}\n',
        ),
      ],
    },
    { tools: [bash('node scripts/ramp.mjs | head -n 5', 'Print the first minutes of the ramp')] },
    { say: 'scripts/ramp.mjs prints the schedule (20 rps at minute 0 up to 180 at minute 15, held to minute 25), under the 200 rps cap.' },
  ],
  [P.releaseVersion]: [
    { tools: [read('package.json')] },
    { tools: [edit('package.json', '"version": "2.2.0"', '"version": "2.2.1"')] },
    { tools: [grep('2\\.2\\.0', '.')] },
    { say: 'package.json is at 2.2.1 and nothing else names 2.2.0.' },
  ],
  [P.postmortemOwners]: [
    { tools: [read('docs/postmortem-double-charges.md')] },
    {
      tools: [
        edit(
          'docs/postmortem-double-charges.md',
          '- Refunds for the duplicates (counted on billing-staging).',
          '- Refunds for the duplicates (counted on billing-staging). Owner: Priya, due Monday.',
        ),
      ],
    },
    {
      tools: [
        edit(
          'docs/postmortem-double-charges.md',
          '- Webhook dedupe persisted across restarts.',
          '- Webhook dedupe persisted across restarts (migration 005). Owner: Marco, due Wednesday.',
        ),
      ],
    },
    { say: 'Owners and due dates added: refunds (Priya, Monday), webhook dedupe (Marco, Wednesday); the regression test is already merged.' },
  ],
  [P.invoiceDocs]: [
    { tools: [read('README.md')] },
    {
      tools: [
        edit(
          'README.md',
          '- `src/invoice.ts`: invoice totals and rounding',
          '- `src/invoice.ts`: invoice totals and rounding (tax is rounded once per rate, not per line: see BILL-311)',
        ),
      ],
    },
    { say: 'The README now points at BILL-311 next to src/invoice.ts, so the reason for per-rate rounding is one click away.' },
  ],
  [P.handoff]: [
    { tools: [read('CHANGELOG.md'), read('docs/loadtest.md')] },
    {
      say: '- Double-charge fix ships in 2.2.1; refunds for Tuesday are counted on billing-staging, issue them Monday.\n- Migration 004 (refunds) is on staging; production via the release pipeline.\n- Webhook dedupe needs its processed_events table.\n- PR #142 (currency conversion) has review comments open.\n- Load test on billing-staging Thursday, capped at 200 rps.',
    },
  ],
};

export const DEMO_SESSIONS: DemoSession[] = [
  {
    title: 'Fix double charges',
    prompts: [P.doubleCharge, P.runTests, '/compact', P.afterCompact, P.stagingCheck],
    compactSummary:
      "Summary of the session so far: Tuesday's double charges came from chargeCard building the idempotency key with the attempt number (`checkout-<id>-<attempt>`), so every retry looked new to the provider. Fixed in src/charge.ts: one key per checkout for all attempts. Sub-agents audited the other retry paths (webhooks dedupe by event id, in memory only) and added test/retry.test.mjs. Tests pass. Constraint from the user: never touch the production database; every query goes to billing-staging. Open: count duplicates on billing-staging for refunds, release note.",
  },
  { title: 'Partial refunds', prompts: [P.partialRefunds, P.refundsMigration] },
  { title: 'Invoice rounding (BILL-311)', prompts: [P.invoiceRounding, P.invoiceTest, P.invoiceDocs] },
  { title: 'Webhook dedupe across restarts', prompts: [P.webhookRestart, P.webhookMigration] },
  { title: 'Review PR #142', prompts: [P.reviewPr, P.reviewFollowup] },
  { title: 'Flaky charge test', prompts: [P.flakyTest, P.flakyCi] },
  { title: 'Dunning emails', prompts: [P.dunning, P.dunningTest] },
  { title: 'EU VAT rates', prompts: [P.vatRates, P.vatTest] },
  { title: 'Load test plan', prompts: [P.loadTest, P.loadScript] },
  { title: 'Release notes 2.2.1', prompts: [P.releaseNotes, P.releaseVersion] },
  { title: 'Postmortem', prompts: [P.postmortem, P.postmortemOwners] },
  { title: 'On-call handoff', prompts: [P.handoff, P.handoffRefunds] },
];

// ---------------------------------------------------------------------------------------------
// The scripted model.

/** What the scripted model reads of a Messages API request. */
interface RequestBody {
  system?: string | Array<{ text?: string }>;
  messages?: Array<{ role?: string; content?: unknown }>;
}

const PROMPTS = Object.keys(SCRIPTS);
const COMPACT_SUMMARIES = DEMO_SESSIONS.filter((s) => s.compactSummary).map((s) => ({ first: s.prompts[0], summary: s.compactSummary! }));

let toolIds = 0;
const toolId = () => `toolu_demo${(++toolIds).toString().padStart(4, '0')}${Math.random().toString(36).slice(2, 8)}`;

/** The project folder Claude Code runs in, from its system prompt's environment notes. */
function projectRoot(body: RequestBody): string {
  const system = Array.isArray(body?.system) ? body.system.map((b) => b?.text ?? '').join('\n') : String(body?.system ?? '');
  const all = `${system}\n${(body?.messages ?? []).map((m) => contentText(m?.content)).join('\n')}`;
  const m = /Primary working directory: (\S+)/.exec(all) ?? /Working directory: (\S+)/.exec(all);
  return m ? m[1] : process.cwd();
}

function reply(step: Step | undefined, root: string): ScriptedReply {
  if (!step) return { blocks: [{ type: 'text', text: 'Done.' }], stopReason: 'end_turn' };
  const blocks: ScriptedBlock[] = [];
  if (step.say) blocks.push({ type: 'text', text: step.say });
  for (const tool of step.tools ?? []) blocks.push({ type: 'tool_use', id: toolId(), name: tool.name, input: withProject(tool.input, PROJECT_ROOT, root) });
  return { blocks, stopReason: step.tools?.length ? 'tool_use' : 'end_turn' };
}

export function respondFor(request: unknown, _headers: http.IncomingHttpHeaders): ScriptedReply | undefined {
  const body = (request ?? {}) as RequestBody;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  const lastText = last?.role === 'user' ? contentText(last.content) : '';
  // A compaction: Claude Code asks for a summary of the conversation.
  if (/summary of the conversation/i.test(lastText) && !PROMPTS.some((p) => lastText.includes(p))) {
    const all = messages.map((m) => contentText(m?.content)).join('\n');
    const known = COMPACT_SUMMARIES.find((c) => all.includes(c.first));
    return { blocks: [{ type: 'text', text: known?.summary ?? 'Summary: nothing of note.' }], stopReason: 'end_turn' };
  }
  const at = storyStep(messages, PROMPTS, (m) => contentText(m?.content));
  return at && reply(SCRIPTS[at.prompt][at.step], projectRoot(body));
}
