// The VS Code agent mode (Copilot) part of the demo story, recorded by scripts/demo/record-demo-copilot.ts
// on the same project as the Claude Code sessions (scripts/demo/demoScript.ts): later in the week, in
// VS Code, a reviewer checks the double-charge fix, a webhook signature check is added, and the
// refunds for Tuesday are counted on billing-staging. Agent mode runs the tools itself (read, search,
// terminal, edits, runSubagent); the scripted model only decides which to call.
//
// The model is stateless, like the Claude Code one: a request is answered by finding the newest
// prompt of the story among its user messages (a chat's prompt, or a sub-agent's task) and counting
// the assistant messages after it: that count is the step of that prompt's script. A request that
// offers no tools is one of Copilot's side requests (the chat's title).

import type { RecordedRequest, ScriptedReply } from '../../test/shared/scriptedModel/extension';
import { withProject } from './demoModel';
import { DEMO_PROJECT_FILES } from './demoScript';

/** Tools of agent mode the story uses, by what they do; matched against the names a request offers. */
const TOOL_NAMES = {
  read: /^(read_file|copilot_readFile)$/,
  search: /^(grep_search|copilot_findTextInFiles)$/,
  findFiles: /^(file_search|copilot_findFiles)$/,
  terminal: /^run_in_terminal$/,
  replace: /^(replace_string_in_file|copilot_replaceString)$/,
  create: /^(create_file|copilot_createFile)$/,
  subagent: /^runSubagent$/,
} as const;
type ToolKind = keyof typeof TOOL_NAMES;

interface Tool {
  kind: ToolKind;
  input: Record<string, unknown>;
}
/** One model turn: some text, then tool calls (none on the last step of a script). */
interface Step {
  say?: string;
  tools?: Tool[];
}

/** Placeholder for the workspace folder's absolute path in tool inputs. */
const ROOT = '@WORKSPACE@';

const read = (file: string, endLine = 200): Tool => ({ kind: 'read', input: { filePath: `${ROOT}/${file}`, startLine: 1, endLine } });
const search = (query: string, includePattern?: string): Tool => ({
  kind: 'search',
  input: { query, isRegexp: true, ...(includePattern ? { includePattern } : {}) },
});
const findFiles = (query: string): Tool => ({ kind: 'findFiles', input: { query } });
const terminal = (command: string, explanation: string): Tool => ({ kind: 'terminal', input: { command, explanation, goal: explanation, mode: 'sync' } });
const replace = (file: string, oldString: string, newString: string): Tool => ({
  kind: 'replace',
  input: { filePath: `${ROOT}/${file}`, oldString, newString },
});
const create = (file: string, content: string): Tool => ({ kind: 'create', input: { filePath: `${ROOT}/${file}`, content } });
const subagent = (description: string, prompt: string): Tool => ({ kind: 'subagent', input: { description, prompt } });

// ---------------------------------------------------------------------------------------------
// The project as it stands when the VS Code chats happen: the double-charge fix of the Claude Code
// session is in (one idempotency key per checkout), with its regression test.

const UNFIXED_KEY = '  for (let attempt = 1; ; attempt++) {\n    const key = `checkout-${charge.checkoutId}-${attempt}`;';
const FIXED_KEY =
  '  // One key for every attempt: the provider drops a retry of a charge it already took.\n  const key = `checkout-${charge.checkoutId}`;\n  for (let attempt = 1; ; attempt++) {';

export function copilotProjectFiles(): Record<string, string> {
  const charge = DEMO_PROJECT_FILES['src/charge.ts'];
  if (!charge.includes(UNFIXED_KEY)) throw new Error('src/charge.ts of the demo project changed: update the fixed key in scripts/demo/demoScriptCopilot.ts');
  return {
    ...DEMO_PROJECT_FILES,
    'src/charge.ts': charge.replace(UNFIXED_KEY, FIXED_KEY),
    'test/retry.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert';\n\n// chargeCard must reuse one idempotency key across retries (Tuesday's double charges).\ntest('retries reuse the idempotency key', () => {\n  const keys = ['checkout-c1', 'checkout-c1', 'checkout-c1'];\n  assert.equal(new Set(keys).size, 1);\n});\n",
  };
}

// ---------------------------------------------------------------------------------------------
// The chats. Every prompt (and every sub-agent task) is unique: it names its script.

const P = {
  review:
    'Review the double-charge fix before it ships in 2.2.1: is one idempotency key per checkout in src/charge.ts enough, and can anything else still charge a customer twice? Any query goes to billing-staging, never to production.',
  reviewWebhooks:
    'Check src/webhooks.ts: can a replayed charge.succeeded event be applied twice, for instance after a restart? Report the lines and how likely it is.',
  reviewTests: 'Run the test suite in the terminal and report which tests cover the idempotency key of chargeCard.',
  reviewNote: 'Write the review as docs/review-2.2.1.md: verdict, what was checked, and the follow-ups.',
  signature: 'Add a signature check to the webhook handler: reject provider events whose HMAC-SHA256 signature does not match PROVIDER_WEBHOOK_SECRET.',
  signatureEnv: 'Add PROVIDER_WEBHOOK_SECRET to .env.example, next to the billing-staging settings.',
  signatureTest: 'Test the signature check with a correctly signed payload and a tampered one, and run it.',
  refunds:
    "How many of Tuesday's duplicate charges still need a refund? Write the query for billing-staging, never production, and check it against the schema.",
  refundsSchema: 'Find the tables that hold charges and refunds in db/migrations and list their columns.',
  refundsScript: 'Save the query as db/queries/tuesday-refunds.sql with a header comment saying it runs on billing-staging only.',
};

export interface CopilotChat {
  /** What the scripted model answers when Copilot asks for the chat's title. */
  title: string;
  prompts: string[];
}

export const COPILOT_CHATS: CopilotChat[] = [
  { title: 'Review the double-charge fix', prompts: [P.review, P.reviewNote] },
  { title: 'Webhook signature check', prompts: [P.signature, P.signatureEnv, P.signatureTest] },
  { title: "Refunds for Tuesday's duplicates", prompts: [P.refunds, P.refundsScript] },
];

const VERIFY = `import { createHmac, timingSafeEqual } from 'node:crypto';

/** True when \`signature\` (hex) is the HMAC-SHA256 of the raw body under the webhook secret. */
export function verifySignature(rawBody: string, signature: string, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

`;

const SCRIPTS: Record<string, Step[]> = {
  [P.review]: [
    { say: "I'll read the fix and look for every place an idempotency key is built.", tools: [read('src/charge.ts'), search('idempotency|checkout-')] },
    {
      say: 'The key is now built once, outside the retry loop. Two checks in parallel: the webhook path, and the tests.',
      tools: [subagent('Check webhook replays', P.reviewWebhooks), subagent('Run the tests', P.reviewTests)],
    },
    {
      say: 'Verdict: the fix is right. `checkout-<id>` is the same on every attempt, so the provider deduplicates a retry after a timeout (it keeps keys for 24 hours). Still able to charge twice: nothing in the charge path. The webhook handler dedupes by event id in memory only, so a restart could apply a replayed charge.succeeded again; that is the processed_events migration, not this fix. Any count of affected customers goes to billing-staging, never production.',
    },
  ],
  [P.reviewWebhooks]: [
    { tools: [read('src/webhooks.ts')] },
    { tools: [search('handleEvent|seen\\.', 'src/**')] },
    {
      say: "src/webhooks.ts:7 keeps seen event ids in a module-level Set, so handleEvent (line 10) applies an event once per process. After a restart the Set is empty: a replayed charge.succeeded is applied again. Likely only during an outage with provider retries, exactly Tuesday's case. It does not create a charge, but it could mark an order paid twice.",
    },
  ],
  [P.reviewTests]: [
    { tools: [terminal('node --test test/ 2>&1 | tail -n 8', 'Run the test suite')] },
    { tools: [search('idempotency', 'test/**')] },
    {
      say: 'The suite passes. test/retry.test.mjs is the one that covers the key: it expects a single distinct idempotency key across three attempts. test/charge.test.mjs is still a placeholder.',
    },
  ],
  [P.reviewNote]: [
    {
      tools: [
        create(
          'docs/review-2.2.1.md',
          "# Review: double-charge fix (2.2.1)\n\nVerdict: approve.\n\n## Checked\n- src/charge.ts builds one idempotency key per checkout, outside the retry loop.\n- test/retry.test.mjs asserts one key across retries; the suite passes.\n- No other path sends a charge twice.\n\n## Follow-ups\n- Webhook dedupe is in memory only: persist processed event ids (migration 005).\n- Count Tuesday's duplicates on billing-staging (never production) before issuing refunds.\n",
        ),
      ],
    },
    { say: 'Wrote docs/review-2.2.1.md: approve, with the webhook dedupe and the refund count on billing-staging as follow-ups.' },
  ],
  [P.signature]: [
    { say: 'Reading the handler and the provider settings first.', tools: [read('src/webhooks.ts'), read('.env.example')] },
    {
      say: 'Adding a constant-time HMAC check next to the handler.',
      tools: [replace('src/webhooks.ts', 'const seen = new Set<string>();', `${VERIFY}const seen = new Set<string>();`)],
    },
    {
      tools: [
        replace(
          'src/webhooks.ts',
          "import { createHmac, timingSafeEqual } from 'node:crypto';",
          "// Events are verified before handleEvent: the HTTP layer passes the raw body and the Provider-Signature header.\nimport { createHmac, timingSafeEqual } from 'node:crypto';",
        ),
      ],
    },
    {
      say: 'Added verifySignature(rawBody, signature, secret) to src/webhooks.ts: HMAC-SHA256 of the raw body under PROVIDER_WEBHOOK_SECRET, compared in constant time; a length mismatch is a rejection, not an exception. The HTTP layer should answer 401 before handleEvent when it returns false.',
    },
  ],
  [P.signatureEnv]: [
    {
      tools: [
        replace(
          '.env.example',
          'PROVIDER_KEY=sk_test_replace_me\n',
          'PROVIDER_KEY=sk_test_replace_me\n# The staging webhook secret; production gets its own from the release pipeline.\nPROVIDER_WEBHOOK_SECRET=whsec_staging_replace_me\n',
        ),
      ],
    },
    { say: '.env.example now names PROVIDER_WEBHOOK_SECRET with a staging placeholder, under the billing-staging database URL.' },
  ],
  [P.signatureTest]: [
    {
      tools: [
        create(
          'test/webhooks.test.mjs',
          "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { createHmac } from 'node:crypto';\n\n// The check of src/webhooks.ts, in plain JavaScript so node --test runs it without a TypeScript loader.\nconst sign = (body, secret) => createHmac('sha256', secret).update(body).digest('hex');\nconst verify = (body, signature, secret) => sign(body, secret) === signature;\n\ntest('a signed payload passes, a tampered one fails', () => {\n  const body = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded', checkoutId: 'c1' });\n  const signature = sign(body, 'whsec_test');\n  assert.ok(verify(body, signature, 'whsec_test'));\n  assert.ok(!verify(body.replace('c1', 'c2'), signature, 'whsec_test'));\n});\n",
        ),
      ],
    },
    { tools: [terminal('node --test test/webhooks.test.mjs 2>&1 | grep -E "^# (pass|fail)"', 'Run the webhook signature test')] },
    { say: 'test/webhooks.test.mjs signs a charge.succeeded payload, accepts it, and rejects the same signature on a tampered body. It passes.' },
  ],
  [P.refunds]: [
    {
      say: 'Billing-staging only, as the team agreed. First the schema, from a sub-agent.',
      tools: [findFiles('db/**/*.sql'), subagent('Find the charge and refund tables', P.refundsSchema)],
    },
    {
      say: 'Query for billing-staging (Tuesday = 2026-11-24):\n\n```sql\nSELECT c.checkout_id, count(*) - 1 AS duplicates\nFROM charges c\nLEFT JOIN refunds r ON r.checkout_id = c.checkout_id\nWHERE c.created_at::date = \'2026-11-24\' AND r.id IS NULL\nGROUP BY c.checkout_id\nHAVING count(*) > 1;\n```\n\nEach row is a checkout charged more than once with no refund yet; the sum of `duplicates` is the number of refunds to issue. Run it with `psql "$BILLING_DB_URL"`, which points at billing-staging.internal.',
    },
  ],
  [P.refundsSchema]: [
    { tools: [search('CREATE TABLE', 'db/**')] },
    { tools: [read('db/migrations/003_invoices.sql')] },
    {
      say: 'db/migrations holds only 003_invoices.sql here: invoices(id, checkout_id, total_cents, created_at). The charges table predates the migrations folder (checkout_id, amount_cents, created_at per the code); the refunds table (checkout_id, amount_cents, reason, created_at) is migration 004 from the partial-refunds work.',
    },
  ],
  [P.refundsScript]: [
    {
      tools: [
        create(
          'db/queries/tuesday-refunds.sql',
          "-- Runs on billing-staging only (never production): Tuesday's duplicate charges without a refund.\nSELECT c.checkout_id, count(*) - 1 AS duplicates\nFROM charges c\nLEFT JOIN refunds r ON r.checkout_id = c.checkout_id\nWHERE c.created_at::date = '2026-11-24' AND r.id IS NULL\nGROUP BY c.checkout_id\nHAVING count(*) > 1;\n",
        ),
      ],
    },
    { tools: [terminal('grep -n BILLING_DB_URL .env.example', 'Check which database the env points at')] },
    { say: 'Saved db/queries/tuesday-refunds.sql with the billing-staging header; BILLING_DB_URL in .env.example points at billing-staging.internal.' },
  ],
};

// ---------------------------------------------------------------------------------------------
// The scripted model.

const PROMPTS = Object.keys(SCRIPTS);

function textOf(message: RecordedRequest['messages'][number]): string {
  return message.parts.map((p) => (p.type === 'text' ? p.value : '')).join('');
}

/** The newest story prompt among the user messages and the index of its first message (tool results and reminders may repeat it). */
function currentPrompt(request: RecordedRequest): { prompt: string; at: number } | undefined {
  let prompt: string | undefined;
  let at = -1;
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== 'user') continue;
    const found = PROMPTS.find((p) => textOf(m).includes(p));
    if (!found) continue;
    if (prompt && found !== prompt) break;
    prompt = found;
    at = i;
  }
  return prompt ? { prompt, at } : undefined;
}

export interface CopilotModel {
  respond(request: RecordedRequest): ScriptedReply;
  /** What went wrong (a tool agent mode did not offer, a request no script knows); empty when all went well. */
  problems: string[];
}

/** The scripted model for one recording: `workspace` is the opened folder's absolute path. */
export function copilotModel(workspace: string): CopilotModel {
  let calls = 0;
  const problems: string[] = [];
  const withRoot = (value: unknown): unknown => withProject(value, ROOT, workspace);
  const respond = (request: RecordedRequest): ScriptedReply => {
    const all = request.messages.map(textOf).join('\n');
    if (request.tools.length === 0) {
      // A side request: the chat's title (named after the chat whose first prompt it quotes).
      const chat = COPILOT_CHATS.find((c) => all.includes(c.prompts[0]));
      return { parts: [{ text: chat?.title ?? 'Billing work' }] };
    }
    const current = currentPrompt(request);
    if (!current) {
      problems.push(`no story prompt in a request: ${all.slice(-300)}`);
      return { parts: [{ text: 'Done.' }] };
    }
    const step = request.messages.slice(current.at + 1).filter((m) => m.role === 'assistant').length;
    const script = SCRIPTS[current.prompt][step];
    if (!script) return { parts: [{ text: 'Done.' }] };
    const parts: ScriptedReply['parts'] = script.say ? [{ text: script.say }] : [];
    for (const tool of script.tools ?? []) {
      const name = request.tools.find((t) => TOOL_NAMES[tool.kind].test(t));
      if (!name) {
        problems.push(`agent mode offered no ${tool.kind} tool (${request.tools.join(', ')})`);
        continue;
      }
      parts.push({ toolCall: { callId: `call_demo${String(++calls).padStart(3, '0')}`, name, input: withRoot(tool.input) as object } });
    }
    return { parts: parts.length ? parts : [{ text: 'Done.' }] };
  };
  return { respond, problems };
}

/** The last thing the model says in a prompt's script: the driver waits for it in the chat view. */
export function finalAnswer(prompt: string): string {
  const steps = SCRIPTS[prompt];
  return steps[steps.length - 1].say ?? '';
}
