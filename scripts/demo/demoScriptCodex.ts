// The Codex part of the demo story (scripts/demo/record-demo-codex.ts records it): the same billing team
// and project as the Claude Code story (scripts/demo/demoScript.ts), now working on refunds with Codex.
// The scripted model is stateless, like the Claude Code one: a request is answered by finding the
// newest prompt of the story among its user messages (a session's prompt, or the task a
// spawn_agent call handed a sub-agent) and counting the output items the model gave after it; the
// steps' sizes say which step comes next. Codex runs the tools itself: exec_command (a shell, and
// apply_patch through it) and the multi_agent_v1 tools spawn_agent / wait_agent.

export interface CodexDemoSession {
  title: string;
  /** Run one after another in the same thread (`codex exec resume`). */
  prompts: string[];
}

type Item = Record<string, unknown>;
type Body = { input?: unknown; tools?: unknown };

/** One model turn: some text, then tool calls (none on the last step of a script). */
interface Step {
  say?: string;
  shell?: string[];
  /** Files changed with apply_patch (through the shell, as Codex intercepts it). */
  patch?: string;
  /** Sub-agent tasks, spawned in parallel. */
  spawn?: string[];
  /** Waits for every sub-agent spawned since the prompt. */
  wait?: boolean;
}

const P = {
  refundRounding:
    'Refunds for EUR orders come out one cent short when a refund is split across invoice lines. Find out why and fix it. Every query runs on billing-staging, never on production.',
  roundingAudit: 'Audit every place in src/ that rounds money (Math.round, toFixed, division by 100). Report file, line and whether it can lose a cent.',
  providerRounding: 'Check how the payment provider rounds partial refunds: does it round half up or half to even? Look at the notes in this project.',
  refundTest: 'Write test/refunds.test.mjs: a 10.00 EUR refund split across three lines must add up to exactly 1000 cents.',
  countShortRefunds: 'Count the refunds since Monday that came out one cent short, on billing-staging, so support can top them up.',
  refundLimit: 'Make refundable() refuse a refund larger than what is left on the charge, with a clear RangeError.',
  refundLimitDocs: 'Note the refund limit in the README, next to src/refunds.ts.',
  migrationsCheck: 'Which migrations exist, and which of them would still need to go to billing-staging? Do not run anything against production.',
};

const SPLIT_PATCH = `*** Begin Patch
*** Update File: src/refunds.ts
@@
 export function refundable(charge: Charge, refunded: number): number {
   return Math.max(0, charge.amountCents - refunded);
 }
+
+/**
+ * Splits a refund across invoice lines in proportion to their amounts. Every line but the last is
+ * rounded down; the last takes the remainder, so the parts always add up to the refund.
+ */
+export function splitRefund(amountCents: number, lineCents: number[]): number[] {
+  const total = lineCents.reduce((a, b) => a + b, 0);
+  const parts = lineCents.map((c) => Math.floor((amountCents * c) / total));
+  parts[parts.length - 1] += amountCents - parts.reduce((a, b) => a + b, 0);
+  return parts;
+}
*** End Patch`;

const TEST_PATCH = `*** Begin Patch
*** Add File: test/refunds.test.mjs
+import { test } from 'node:test';
+import assert from 'node:assert';
+
+// Same rule as splitRefund in src/refunds.ts: floor every part, the last takes the remainder.
+function splitRefund(amountCents, lineCents) {
+  const total = lineCents.reduce((a, b) => a + b, 0);
+  const parts = lineCents.map((c) => Math.floor((amountCents * c) / total));
+  parts[parts.length - 1] += amountCents - parts.reduce((a, b) => a + b, 0);
+  return parts;
+}
+
+test('a 10.00 EUR refund over three lines adds up to 1000 cents', () => {
+  const parts = splitRefund(1000, [333, 333, 334]);
+  assert.equal(parts.reduce((a, b) => a + b, 0), 1000);
+});
*** End Patch`;

const QUERY_PATCH = `*** Begin Patch
*** Add File: db/queries/short_refunds.sql
+-- Run on billing-staging only (BILLING_DB_URL in .env.example). Never on production.
+SELECT r.checkout_id, r.amount_cents, SUM(l.amount_cents) AS lines_cents
+FROM refunds r JOIN refund_lines l ON l.refund_id = r.id
+WHERE r.created_at >= date_trunc('week', now())
+GROUP BY r.id
+HAVING SUM(l.amount_cents) <> r.amount_cents;
*** End Patch`;

const LIMIT_PATCH = `*** Begin Patch
*** Update File: src/refunds.ts
@@
 export function refundable(charge: Charge, refunded: number): number {
   return Math.max(0, charge.amountCents - refunded);
 }
+
+/** Throws when a refund asks for more than is left on the charge. */
+export function assertRefundable(charge: Charge, refunded: number, amountCents: number): void {
+  const left = refundable(charge, refunded);
+  if (amountCents > left) throw new RangeError(\`refund of \${amountCents} cents exceeds the \${left} cents left on checkout \${charge.checkoutId}\`);
+}
*** End Patch`;

const README_PATCH = `*** Begin Patch
*** Update File: README.md
@@
-- \`src/refunds.ts\`: partial and full refunds
+- \`src/refunds.ts\`: partial and full refunds (never more than is left on the charge: assertRefundable throws a RangeError)
*** End Patch`;

const SCRIPTS: Record<string, Step[]> = {
  [P.refundRounding]: [
    {
      say: 'Looking at how refunds are computed and split first.',
      shell: ['cat src/refunds.ts src/invoice.ts', 'grep -rn "Math.round\\|toFixed\\|/ 100" src'],
    },
    {
      say: 'Two things to check in parallel: every rounding site, and a regression test for the split.',
      spawn: [P.roundingAudit, P.refundTest],
    },
    { wait: true },
    { say: 'The audit confirms it: each line is rounded on its own. Splitting with a remainder on the last line fixes it.', patch: SPLIT_PATCH },
    { shell: ['node --test test/'] },
    {
      say: 'Fixed: `splitRefund` in src/refunds.ts floors every part and gives the last line the remainder, so a split refund always adds up to what was asked (10.00 EUR over 333/333/334 is now exactly 1000 cents). test/refunds.test.mjs covers it and the suite passes. Nothing ran against billing data; any counting goes to billing-staging.',
    },
  ],
  [P.roundingAudit]: [
    { shell: ['grep -rn "Math.round\\|Math.floor\\|toFixed" src', 'cat README.md'] },
    { say: 'The provider side decides whether a lost cent is ours; asking a helper to check its rounding rule.', spawn: [P.providerRounding] },
    { wait: true },
    {
      say: 'src/invoice.ts:10 rounds tax per line with Math.round: each line can gain or lose half a cent, and summed per-line refunds drift by a cent on three or more lines. src/refunds.ts has no rounding yet: a split refund inherits the invoice rounding. src/charge.ts handles whole cents only (safe). The provider rounds half up on its side, so the cent is lost in our split, not theirs.',
    },
  ],
  [P.providerRounding]: [
    { shell: ['grep -rni "round\\|refund" README.md .env.example db/ || true'] },
    {
      say: 'The project notes say nothing about the provider rounding; its API takes refunds in whole cents, so it cannot round them. Any lost cent comes from how we split the amount before sending it.',
    },
  ],
  [P.refundTest]: [
    { patch: TEST_PATCH },
    { shell: ['node --test test/refunds.test.mjs'] },
    { say: 'Added test/refunds.test.mjs: 1000 cents over 333/333/334 must split into parts that add up to 1000. It passes with the remainder rule.' },
  ],
  [P.countShortRefunds]: [
    { say: 'billing-staging only, as agreed.', shell: ['grep BILLING_DB_URL .env.example'] },
    { patch: QUERY_PATCH },
    {
      say: 'The query is in db/queries/short_refunds.sql: it lists this week\'s refunds whose lines do not add up to the refund. Run it with `psql "$BILLING_DB_URL" -f db/queries/short_refunds.sql`; BILLING_DB_URL points at billing-staging.internal. Each row is one customer to top up by a cent.',
    },
  ],
  [P.refundLimit]: [
    { shell: ['cat src/refunds.ts'] },
    { patch: LIMIT_PATCH },
    { shell: ['node --test test/'] },
    {
      say: 'Added assertRefundable(charge, refunded, amountCents): it throws a RangeError naming the checkout and the cents left when a refund asks for more. refundable() is unchanged, so callers that only read the limit keep working.',
    },
  ],
  [P.refundLimitDocs]: [{ patch: README_PATCH }, { say: 'The README now says refunds never exceed what is left on the charge, next to src/refunds.ts.' }],
  [P.migrationsCheck]: [
    { shell: ['ls db/migrations', 'cat db/migrations/*.sql'] },
    {
      say: 'Only db/migrations/003_invoices.sql is in this checkout. Nothing here says which ones billing-staging has; `psql "$BILLING_DB_URL" -c "select * from schema_migrations"` on billing-staging would tell. I ran nothing anywhere, production least of all.',
    },
  ],
};

export const CODEX_DEMO_SESSIONS: CodexDemoSession[] = [
  { title: 'Refund rounding (Codex)', prompts: [P.refundRounding, P.countShortRefunds] },
  { title: 'Refund limit (Codex)', prompts: [P.refundLimit, P.refundLimitDocs] },
  { title: 'Migrations on staging (Codex)', prompts: [P.migrationsCheck] },
];

// ---------------------------------------------------------------------------------------------
// The scripted model.

const PROMPTS = Object.keys(SCRIPTS);
let ids = 0;
const nextId = (what: string) => `${what}_demo${(++ids).toString().padStart(4, '0')}`;

const inputOf = (body: Body): Item[] => (Array.isArray(body?.input) ? (body.input as Item[]) : []);

function text(item: Item): string {
  const c = item.content;
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.map((p) => (typeof (p as Item)?.text === 'string' ? ((p as Item).text as string) : '')).join('\n') : '';
}

const isOutput = (i: Item) => i.type === 'function_call' || i.type === 'custom_tool_call' || (i.type === 'message' && i.role === 'assistant');

const message = (say: string): Item => ({
  type: 'message',
  role: 'assistant',
  id: nextId('msg'),
  status: 'completed',
  content: [{ type: 'output_text', text: say, annotations: [] }],
});
const call = (name: string, args: object, namespace?: string): Item => ({
  type: 'function_call',
  id: nextId('fc'),
  call_id: nextId('call'),
  ...(namespace ? { namespace } : {}),
  name,
  arguments: JSON.stringify(args),
  status: 'completed',
});

/** The agent ids spawn_agent returned after the prompt (its outputs are JSON with agent_id). */
function spawned(after: Item[]): string[] {
  const spawnCalls = new Set(after.filter((i) => i.type === 'function_call' && i.name === 'spawn_agent').map((i) => i.call_id));
  const out: string[] = [];
  for (const i of after) {
    if (i.type !== 'function_call_output' || !spawnCalls.has(i.call_id)) continue;
    try {
      const id = (JSON.parse(String(i.output)) as { agent_id?: string }).agent_id;
      if (id) out.push(id);
    } catch {
      // not JSON: no id to wait for
    }
  }
  return out;
}

function itemsOf(step: Step, after: Item[]): Item[] {
  const items: Item[] = [];
  if (step.say) items.push(message(step.say));
  for (const cmd of step.shell ?? []) items.push(call('exec_command', { cmd }));
  if (step.patch) items.push(call('exec_command', { cmd: `apply_patch <<'PATCH'\n${step.patch}\nPATCH\n` }));
  for (const task of step.spawn ?? []) items.push(call('spawn_agent', { message: task }, 'multi_agent_v1'));
  if (step.wait) items.push(call('wait_agent', { targets: spawned(after), timeout_ms: 120_000 }, 'multi_agent_v1'));
  return items;
}

/** How many output items a step gives (its text counts as one). */
const sizeOf = (step: Step) => (step.say ? 1 : 0) + (step.shell?.length ?? 0) + (step.patch ? 1 : 0) + (step.spawn?.length ?? 0) + (step.wait ? 1 : 0);

/** The output items of the reply to a Responses API request; undefined when no story prompt is in it. */
export function respondForCodex(body: Body): Item[] | undefined {
  const input = inputOf(body);
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item?.type !== 'message' || item.role !== 'user') continue;
    const prompt = PROMPTS.find((p) => text(item).includes(p));
    if (!prompt) continue;
    const after = input.slice(i + 1);
    let given = after.filter(isOutput).length;
    for (const step of SCRIPTS[prompt]) {
      const size = sizeOf(step);
      if (given < size) return itemsOf(step, after);
      given -= size;
    }
    return [message('Done.')];
  }
  return undefined;
}
