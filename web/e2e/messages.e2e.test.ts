import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The Messages page lists sent notifications with their counts and opens, and charts them per day, in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let appSecret: string;
let signingSecret: string;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const demo = await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: { authorization: `Bearer ${islet.adminToken}` } });
  ({ appSecret, signingSecret } = (await demo.json()) as { appSecret: string; signingSecret: string });
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-service-key': appSecret }) => {
  const res = await fetch(`${islet.url}/api/apps/demo${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

describe('console: messages', () => {
  test('lists the messages newest first with deliveries and opens, and a chart of sent, failed and opened per day', async () => {
    // demo-user's iPhone reports opening the notification the demo sent (msg_demo), signed as demo-user.
    const signature = createHmac('sha256', signingSecret).update('demo-user').digest('hex');
    const opened = await api('POST', '/notifications/msg_demo/opened', { endUserId: 'demo-user', deviceId: 'dev_demo_iphone' }, { 'x-end-user-signature': signature });
    expect(opened).toEqual({ status: 200, body: { success: true, counted: true } });
    const sent = await api('POST', '/notifications/send', { templateSlug: 'order-shipped', variables: { order: '#7', eta: 'soon' }, targetUsers: ['demo-user'] });
    expect(sent.body.messageCount).toBe(2);

    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo`);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor();

    const table = page.getByRole('table', { name: 'Messages, newest first' });
    const rows = table.locator('tbody tr');
    await rows.first().waitFor();
    const listed = await api('GET', '/notifications');
    // The page shows what the API lists, in its order: the new send first.
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')))).toEqual(listed.body.messages.map((m: { messageId: string }) => m.messageId));
    expect(listed.body.messages[0].messageId).toBe(sent.body.messageId);
    const demoRow = table.locator('tr[data-id="msg_demo"]');
    const demo = listed.body.messages.find((m: { messageId: string }) => m.messageId === 'msg_demo');
    expect(demo.opened).toBe(1);
    expect(await demoRow.locator('td[data-label="Opened"]').textContent()).toBe('1');
    expect(await demoRow.locator('td[data-label="Deliveries"]').textContent()).toBe(String(demo.deliveries.total));

    // The chart: an inline SVG with three series, named for screen readers, and its table.
    const chart = page.getByRole('img', { name: /^Sent, failed and opened per day/ });
    await chart.waitFor();
    const name = (await chart.getAttribute('aria-label'))!;
    expect(name).toContain('1 opened');
    expect(await chart.locator('rect.bar-opened').count()).toBe(1);
    await page.getByText('Show as a table').click();
    // Counted on the day the message was sent.
    const dayRow = page.locator('.chart-table tbody tr').filter({ hasText: demo.createdAt.slice(0, 10) });
    expect(await dayRow.locator('td').last().textContent()).toBe('1');
    await screenshot(page, 'desktop-messages');

    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);
});
