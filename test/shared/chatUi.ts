// Drives VS Code's Chat view (1.139) like a user, with Playwright: pick a model in the picker, type
// into the chat input (a Monaco editor with EditContext: no textarea, so clicks and key presses),
// send, and read the rendered reply. Selectors are the workbench's own class names.

import type { Locator, Page } from 'playwright-core';

const STEP_MS = 30_000;

/** The Chat view in the secondary side bar (a chat opened in an editor tab has the same classes). */
const VIEW = '.part.auxiliarybar';

export const sel = {
  input: `${VIEW} .interactive-input-editor`,
  modelPicker: '.model-picker-split',
  pickerRow: '.action-widget .monaco-list-row',
  latest: `${VIEW} .interactive-response.chat-most-recent-response`,
  newChat: `${VIEW} .action-label[aria-label^="New Chat"]`,
  suggest: '.suggest-widget.visible',
} as const;

/** Waits for the chat input, then clears what covers it (the BYOK notice, toasts). */
export async function prepareChat(page: Page): Promise<void> {
  const input = page.locator(sel.input).first();
  if (!(await input.isVisible().catch(() => false))) {
    // A fresh profile opens the chat view; otherwise open it (Ctrl+Alt+I would toggle it closed).
    await input.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => runCommand(page, 'Chat: Open Chat'));
  }
  await input.waitFor({ state: 'visible', timeout: STEP_MS });
  await page
    .locator('.chat-input-notification-dismiss')
    .first()
    .click({ timeout: 3_000 })
    .catch(() => undefined);
  await clearToasts(page);
}

export async function clearToasts(page: Page): Promise<void> {
  const clear = page.locator('.notifications-toasts .notification-toast .codicon-notifications-clear');
  for (let i = await clear.count(); i > 0; i--)
    await clear
      .first()
      .click({ timeout: 2_000 })
      .catch(() => undefined);
}

export async function runCommand(page: Page, command: string): Promise<void> {
  const box = page.locator('.quick-input-widget .quick-input-box input');
  // F1 goes where the focus is: after a webview took it (an opened transcript), the palette does
  // not show; then the focus goes back to the workbench (the chat view's title) and F1 again.
  for (let attempt = 0; ; attempt++) {
    await page.keyboard.press('F1');
    if (
      await box.waitFor({ state: 'visible', timeout: 3_000 }).then(
        () => true,
        () => false,
      )
    )
      break;
    if (attempt >= 2) throw new Error(`the command palette did not open for "${command}"`);
    await page.locator('.part.auxiliarybar .composite.title').first().click();
  }
  await box.fill(`>${command}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: command }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await box.press('Enter');
}

/** Starts a new conversation in the Chat view (its title bar's "New Chat"). */
export async function newChat(page: Page): Promise<void> {
  await page.locator(sel.newChat).first().click();
  await page.waitForFunction((s) => document.querySelectorAll(s).length === 0, sel.latest, { timeout: 10_000 });
}

/** Opens the model picker and chooses `name`; resolves with the picker's label afterwards. */
export async function pickModel(page: Page, name: string): Promise<string> {
  const picker = page.locator(`${VIEW} ${sel.modelPicker}`).first();
  // The model shows up once Copilot Chat and the model's extension are both active.
  await picker.waitFor({ state: 'visible', timeout: 60_000 });
  const row = page.locator(sel.pickerRow, { hasText: name }).first();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await picker.click();
    if (
      await row.waitFor({ state: 'visible', timeout: 5_000 }).then(
        () => true,
        () => false,
      )
    )
      break;
    await page.keyboard.press('Escape');
    if (Date.now() > deadline) throw new Error(`the model picker never offered "${name}"`);
    await page.waitForTimeout(1_000);
  }
  await row.click();
  await page.waitForFunction(([s, n]) => document.querySelector(s)?.textContent?.includes(n) ?? false, [sel.modelPicker, name] as const, {
    timeout: 10_000,
  });
  return (await picker.innerText()).trim();
}

/**
 * Types `text` into the chat input and sends it. After `@agent /command` a completion list is
 * open and Enter would only accept it: it is closed first. Resolves once VS Code shows the request.
 */
export async function send(page: Page, text: string): Promise<void> {
  const input = page.locator(sel.input).first();
  const typed = () =>
    input
      .locator('.view-lines')
      .innerText()
      .then((t) => t.replace(/\s+/g, ' ').trim());
  await input.click();
  await page.keyboard.type(text, { delay: 15 });
  await page.waitForTimeout(300);
  if (await page.locator(sel.suggest).count()) await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  // Sent = the input is empty again (the list of requests is virtualised: counting rows would not tell).
  const sent = async (ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if ((await typed().catch(() => 'x')) === '') return true;
      await page.waitForTimeout(100);
    }
    return false;
  };
  if (await sent(5_000)) return;
  // The first Enter was taken by a completion that opened late: once more.
  await page.keyboard.press('Enter');
  if (!(await sent(5_000))) throw new Error(`the chat input still holds ${JSON.stringify(await typed())} after Enter`);
}

/**
 * The latest reply, once it contains `expected` and has stopped changing: its text and locator.
 * Fails with what the reply said instead.
 */
export async function latestReply(page: Page, expected: string | RegExp, ms = 60_000): Promise<{ text: string; reply: Locator }> {
  const reply = page.locator(sel.latest).last();
  const deadline = Date.now() + ms;
  let stableSince = 0;
  let previous = '';
  for (;;) {
    // Code blocks are Monaco editors: their spaces come out as no-break spaces.
    const text = (await reply.innerText().catch(() => '')).replace(/\u00a0/g, ' ').trim();
    const matches = typeof expected === 'string' ? text.includes(expected) : expected.test(text);
    const loading = await reply.evaluate((el) => el.classList.contains('chat-response-loading')).catch(() => true);
    if (matches && !loading && text === previous) {
      if (!stableSince) stableSince = Date.now();
      if (Date.now() - stableSince >= 1_000) return { text, reply };
    } else {
      stableSince = 0;
    }
    previous = text;
    if (Date.now() > deadline) throw new Error(`the reply never showed ${String(expected)}; it reads: ${JSON.stringify(text.slice(0, 1_000))}`);
    await page.waitForTimeout(250);
  }
}

/** Links in a reply: their text and target (command links keep theirs in data-href or href). */
export async function linksIn(reply: Locator): Promise<Array<{ text: string; href: string }>> {
  return reply
    .locator('a')
    .evaluateAll((as) =>
      as.map((a) => ({ text: (a.textContent ?? '').trim(), href: a.getAttribute('data-href') ?? a.getAttribute('href') ?? a.getAttribute('title') ?? '' })),
    );
}
