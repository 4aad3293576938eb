import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { startWebhookReceiver, type WebhookReceiver } from '../../src/test-support/webhook-receiver';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The console's Webhooks page in a real Chromium against the real server and a real receiver. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let receiver: WebhookReceiver;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  receiver = await startWebhookReceiver();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const created = await fetch(`${islet.url}/api/admin/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${islet.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'hooked', name: 'Hooked' }),
  });
  expect(created.status).toBe(201);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await islet?.stop();
});

describe('console: webhooks', () => {
  test('adds an endpoint (its secret shown once), sends a test event, and shows the attempt', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/hooked/webhooks`);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhook endpoints').waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByLabel('Description').fill('order service');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('dialog', { name: 'Endpoint added' });
    const secret = (await shown.getByLabel('Signing secret', { exact: true }).textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    receiver.secret = secret;
    await shown.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Send test' }).click();
    // The dispatcher posts within a second; the attempts refresh every 5 s.
    await page.locator('.attempts-table tr[data-ok="true"]').waitFor();
    expect(await page.locator('.attempts-table tbody tr').first().textContent()).toContain('webhook.test');
    expect(receiver.events.map((e) => e.type)).toEqual(['webhook.test']);
    expect(receiver.rejected).toEqual([]);
    await screenshot(page, 'desktop-webhooks');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('disabled', { exact: true }).waitFor();
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
  }, SLOW);
});
