// The OpenCode part of the demo story (scripts/demo/record-demo-opencode.ts records it): a teammate on
// the same project as the Claude Code story (acme-billing, scripts/demo/demoScript.ts) works on the
// invoice PDF export and on refunds in a currency without cents, with OpenCode. The scripted model
// is stateless, like the Claude Code one: a request is answered by finding the newest prompt of
// the story among its user messages (a session's prompt, or the task a `task` call handed a
// sub-agent) and counting the assistant messages after it: that count is the step of that prompt's
// script. OpenCode runs the tools itself (read, grep, write, edit, bash, task).

import { chatStoryModel, type StoryStep } from './demoModel';

type Tool = NonNullable<StoryStep['tools']>[number];
type Step = StoryStep;

export interface OpenCodeDemoSession {
  /** The title OpenCode's title request gets. */
  title: string;
  /** Run one after another in the same session (`opencode run --session`). */
  prompts: string[];
}

/** Placeholder for the project's absolute path in tool inputs; replaced per request with the real one. */
const ROOT = '@PROJECT@';

const read = (file: string): Tool => ({ name: 'read', input: { filePath: `${ROOT}/${file}` } });
const grep = (pattern: string, include?: string): Tool => ({ name: 'grep', input: { pattern, path: ROOT, ...(include ? { include } : {}) } });
const bash = (command: string, description: string): Tool => ({ name: 'bash', input: { command, description } });
const write = (file: string, content: string): Tool => ({ name: 'write', input: { filePath: `${ROOT}/${file}`, content } });
const edit = (file: string, oldString: string, newString: string): Tool => ({ name: 'edit', input: { filePath: `${ROOT}/${file}`, oldString, newString } });
const task = (description: string, prompt: string): Tool => ({ name: 'task', input: { description, prompt, subagent_type: 'general' } });

const P = {
  pdfExport:
    'EU customers want their invoices as PDF from the portal. Sketch an invoice PDF export: what invoiceTotal gives us today and what an EU invoice has to show. Any sample invoice comes from billing-staging, never the production database.',
  euFields:
    'List what an EU invoice PDF must show (seller and buyer VAT ids, one tax line per rate, the currency) and check which of these src/invoice.ts and db/migrations/003_invoices.sql have today. Read only: change no file.',
  pdfTest: 'Add a test for the PDF layout and run the test suite.',
  yenRefunds: 'Refunds for JPY orders reach the provider 100 times too large. Find where refund amounts assume two decimal places and fix it.',
  minorUnits:
    'Find every place in src/ that assumes an amount has two decimal places (cents). Report file, line and whether it breaks for zero-decimal currencies such as JPY or KRW.',
  yenStaging: 'How do I find the JPY refunds that were affected? Give me the query.',
  changelog: 'Add a CHANGELOG entry for the invoice PDF layout and the yen refunds fix.',
};

const INVOICE_PDF = `// Lays out an invoice for the PDF export as lines of text; the renderer draws them.
// EU invoices show the seller's and buyer's VAT ids and one tax line per rate, in the invoice's currency.

/** @param {{ number: string, currency: string, sellerVatId: string, buyerVatId?: string, lines: Array<{ description: string, unitCents: number, quantity: number, taxRate: number }> }} invoice */
export function invoicePdfLines(invoice) {
  const money = (cents) => (cents / 100).toFixed(2) + ' ' + invoice.currency;
  const out = ['Invoice ' + invoice.number, 'Seller VAT id: ' + invoice.sellerVatId];
  if (invoice.buyerVatId) out.push('Buyer VAT id: ' + invoice.buyerVatId);
  const net = new Map();
  for (const l of invoice.lines) {
    out.push(l.description + '  ' + l.quantity + ' x ' + money(l.unitCents));
    net.set(l.taxRate, (net.get(l.taxRate) ?? 0) + l.unitCents * l.quantity);
  }
  let total = 0;
  for (const [rate, cents] of net) {
    const tax = Math.round(cents * rate);
    out.push('VAT ' + Math.round(rate * 100) + '% on ' + money(cents) + ': ' + money(tax));
    total += cents + tax;
  }
  out.push('Total: ' + money(total));
  return out;
}
`;

const INVOICE_PDF_TEST = `import { test } from 'node:test';
import assert from 'node:assert';
import { invoicePdfLines } from '../src/invoicePdf.mjs';

test('an EU invoice shows both VAT ids and one tax line per rate', () => {
  const lines = invoicePdfLines({
    number: 'INV-2026-0042',
    currency: 'EUR',
    sellerVatId: 'DE123456789',
    buyerVatId: 'FR12345678901',
    lines: [
      { description: 'Plan Pro', unitCents: 1999, quantity: 3, taxRate: 0.19 },
      { description: 'Setup', unitCents: 5000, quantity: 1, taxRate: 0.19 },
      { description: 'Handbook', unitCents: 1200, quantity: 1, taxRate: 0.07 },
    ],
  });
  assert.ok(lines.includes('Buyer VAT id: FR12345678901'));
  assert.deepEqual(
    lines.filter((l) => l.startsWith('VAT ')),
    ['VAT 19% on 109.97 EUR: 20.89 EUR', 'VAT 7% on 12.00 EUR: 0.84 EUR'],
  );
  assert.equal(lines.at(-1), 'Total: 143.70 EUR');
});
`;

const REFUNDABLE = 'export function refundable(charge: Charge, refunded: number): number {';
const MINOR_UNITS = `/** Decimal places of a currency's minor unit (ISO 4217) where it is not 2: JPY and KRW have none. */
const MINOR_UNIT_DIGITS: Record<string, number> = { JPY: 0, KRW: 0, BHD: 3 };

/** An amount in the provider's unit: the currency's minor unit (cents for EUR, yen for JPY). */
export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(amount * 10 ** (MINOR_UNIT_DIGITS[currency.toUpperCase()] ?? 2));
}

${REFUNDABLE}`;

const CHANGELOG = `# Changelog

## Unreleased

- Invoice PDF export: \`invoicePdfLines\` lays out an invoice with the seller's and buyer's VAT ids and one tax line per rate (src/invoicePdf.mjs).
- Refunds in zero-decimal currencies (JPY, KRW) are sent in the currency's minor unit: \`toMinorUnits\` in src/refunds.ts. They were 100 times too large.
`;

const SCRIPTS: Record<string, Step[]> = {
  [P.pdfExport]: [
    {
      say: 'Starting with what the invoice code and the invoices table hold today.',
      tools: [read('src/invoice.ts'), read('db/migrations/003_invoices.sql'), grep('invoice', '*.ts')],
    },
    {
      say: 'A sub-agent checks the EU requirements against our data while I draft the layout.',
      tools: [task('EU invoice fields check', P.euFields)],
    },
    {
      say: 'Drafting the layout as a pure function (plain JS, so the PDF worker loads it without a build). Tax is summed per rate, like an EU invoice shows it:',
      tools: [write('src/invoicePdf.mjs', INVOICE_PDF)],
    },
    {
      say: 'Sketch in src/invoicePdf.mjs: `invoicePdfLines(invoice)` gives the lines the renderer draws: number, seller and buyer VAT ids, the items, one VAT line per rate and the total, in the invoice currency. invoiceTotal stays as it is; the invoices table lacks the VAT ids and the currency, so those need a migration (billing-staging first). Sample invoices for checking the layout come from billing-staging only, never the production database.',
    },
  ],
  [P.euFields]: [
    { tools: [read('src/invoice.ts'), read('db/migrations/003_invoices.sql')] },
    { tools: [grep('vat|currency|tax', '*.{ts,sql}')] },
    {
      say: 'What an EU invoice must show, and what we have:\n- Seller VAT id: missing (not in the code or the table).\n- Buyer VAT id (B2B, reverse charge): missing.\n- One tax line per rate: not yet; `invoiceTotal` in src/invoice.ts rounds the tax per line and returns only the total.\n- Currency: missing; `invoices` (db/migrations/003_invoices.sql) stores `total_cents` without a currency.\nNo file was changed.',
    },
  ],
  [P.pdfTest]: [
    { say: 'A test with a mixed-rate order (19% and 7%):', tools: [write('test/invoicePdf.test.mjs', INVOICE_PDF_TEST)] },
    { tools: [bash('node --test test/', 'Run the test suite')] },
    { say: 'Added test/invoicePdf.test.mjs; the suite passes (the charge test and the new layout test).' },
  ],
  [P.yenRefunds]: [
    { say: 'Looking for amounts handled as cents.', tools: [grep('Cents|/ 100|\\* 100', '*.ts'), read('src/refunds.ts')] },
    { say: 'Asking a sub-agent to go through every amount in src/ while I fix the refund path.', tools: [task('Find two-decimal assumptions', P.minorUnits)] },
    {
      say: 'The refund amount is taken as cents for every currency. Adding a conversion by the currency exponent:',
      tools: [edit('src/refunds.ts', REFUNDABLE, MINOR_UNITS)],
    },
    { tools: [bash('grep -rn "toMinorUnits\\|amountCents" src/ && node --test test/', 'Check the call sites and run the tests')] },
    {
      say: 'Fixed: src/refunds.ts gains `toMinorUnits(amount, currency)`, which uses 0 decimal places for JPY and KRW (and 3 for BHD) instead of always 2, so a 1500 yen refund is sent as 1500, not 150000. The sub-agent found the same assumption in src/invoice.ts (totals in cents); that only matters once invoices carry a currency. Tests pass.',
    },
  ],
  [P.minorUnits]: [
    { tools: [grep('Cents', '*.ts')] },
    { tools: [read('src/invoice.ts'), read('src/charge.ts')] },
    {
      say: 'Places that assume two decimal places:\n- src/refunds.ts: `Refund.amountCents` and `refundable()` treat every amount as cents: wrong for JPY/KRW refunds.\n- src/charge.ts: `Charge.amountCents`: the provider takes minor units, so it is right as long as callers convert per currency.\n- src/invoice.ts: `Line.unitCents` and `invoiceTotal()`: cents only; breaks for zero-decimal currencies once invoices carry one.',
    },
  ],
  [P.yenStaging]: [
    { say: 'Checking which database the project points at.', tools: [read('.env.example')] },
    {
      say: "Run it on billing-staging (BILLING_DB_URL in .env.example points there), never on the production database:\n\n```sql\nSELECT r.id, r.checkout_id, r.amount_cents\nFROM refunds r JOIN charges c ON c.checkout_id = r.checkout_id\nWHERE c.currency IN ('JPY', 'KRW') AND r.created_at >= now() - interval '30 days';\n```\n\nEvery row there was sent 100 times too large.",
    },
  ],
  [P.changelog]: [
    { tools: [bash('git status --short', 'List changed files')] },
    { tools: [write('CHANGELOG.md', CHANGELOG)] },
    { say: 'Added CHANGELOG.md with an Unreleased section: the invoice PDF layout and the yen refunds fix.' },
  ],
};

export const OPENCODE_DEMO_SESSIONS: OpenCodeDemoSession[] = [
  { title: 'Invoice PDF export', prompts: [P.pdfExport, P.pdfTest] },
  { title: 'JPY refunds 100x too large', prompts: [P.yenRefunds, P.yenStaging] },
  { title: 'Changelog for invoice PDF and yen refunds', prompts: [P.changelog] },
];

// ---------------------------------------------------------------------------------------------
// The scripted model (Chat Completions, as OpenCode's openai-compatible provider sends them).

// OpenCode's system prompt names the folder it runs in.
export const respondForOpenCode = chatStoryModel({ sessions: OPENCODE_DEMO_SESSIONS, scripts: SCRIPTS, placeholder: ROOT, workingDirectory: /Working directory: (\S+)/ });
