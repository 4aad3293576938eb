import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Screenshots go here (ignored by git) for people to look at. */
export const SCREENSHOTS = join(import.meta.dir, '..', '..', 'screenshots');

export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 860 } },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
} as const;

/** Debian's Chromium, with everything that would phone home turned off (see FACTS.md). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Every URL the pages of a context asked for, and every script error they raised. */
export interface Recorder {
  requests: string[];
  errors: string[];
}

export async function newRecordedContext(browser: Browser, kind: keyof typeof VIEWPORTS, recorder: Recorder): Promise<BrowserContext> {
  const context = await browser.newContext({ ...VIEWPORTS[kind], reducedMotion: 'reduce', permissions: ['clipboard-read', 'clipboard-write'] });
  context.on('request', (request) => void recorder.requests.push(request.url()));
  context.on('page', (page) => watchErrors(page, recorder));
  context.setDefaultTimeout(30_000);
  return context;
}

function watchErrors(page: Page, recorder: Recorder) {
  page.on('pageerror', (error) => void recorder.errors.push(`pageerror at ${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    // 401s while signed out and 4xx problems the pages show are expected; script errors are not.
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) recorder.errors.push(`console: ${message.text()}`);
  });
}

/** Hosts other than the server's that any page contacted (data: URLs contact nobody). */
export function foreignRequests(recorder: Recorder, serverHost: string): string[] {
  return recorder.requests.filter((url) => !url.startsWith('data:') && new URL(url).host !== serverHost);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let transitions and fonts settle: the next frame after the network is quiet. Live pages keep
  // one event stream open, so the network is never quiet there: a short wait bounds it.
  await page.waitForLoadState('networkidle', { timeout: 1500 }).catch(() => undefined);
  // From the top, so sticky parts (sidebar, preview) sit where a visitor first sees them.
  await page.evaluate(() => window.scrollTo(0, 0));
  // Toasts are left out: they cover parts of the page and say nothing about its layout. (Through
  // the CSSOM: the page's CSP refuses the style element Playwright's own option would inject.)
  await page.evaluate(() => document.querySelector<HTMLElement>('.toasts')?.style.setProperty('display', 'none'));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  await page.evaluate(() => document.querySelector<HTMLElement>('.toasts')?.style.removeProperty('display'));
}
