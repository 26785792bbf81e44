// The Chromium every browser test drives code-server with (the extension suite, the Chat view
// tests, the `npm start` test, the demo recording): Debian's chromium (scripts/dev/install-vscode-host.sh),
// headless, with the background traffic a test never needs turned off, one 1280×800 page.

import { chromium, type Browser, type Frame, type Page } from 'playwright-core';

export const chromiumBin = process.env.BATON_VSCODE_CHROMIUM || '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** A fresh browser and its one page, sized as the screenshots in docs/ are. */
export async function launchBrowserPage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: chromiumBin, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  return { browser, page: await context.newPage() };
}

/** The frame (of any webview: they are nested iframes) where `selector` matches, within `ms`. */
export async function frameWith(page: Page, selector: string, ms: number): Promise<Frame | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    for (const f of page.frames()) {
      if (
        await f
          .locator(selector)
          .count()
          .catch(() => 0)
      )
        return f;
    }
    if (Date.now() >= deadline) return undefined;
    await page.waitForTimeout(250);
  }
}
