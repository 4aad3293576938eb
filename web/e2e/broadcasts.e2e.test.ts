import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';
import { eventually } from '../../src/test-support/eventually';

/* The console's Broadcasts page in a real Chromium against the real server (the demo's simulated broadcast). */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
let key = '';
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${islet.url}${path}`, {
    method,
    headers: { 'x-service-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const demo = await fetch(`${islet.url}/api/admin/demo`, { method: 'POST', headers: { authorization: `Bearer ${islet.adminToken}` } });
  expect(demo.status).toBe(201);
  key = ((await demo.json()) as { appSecret: string }).appSecret;
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: broadcasts', () => {
  test('lists the broadcasts with their channel id, topic, subscribers started and updates sent', async () => {
    expect((await api('POST', '/api/apps/demo/broadcasts/bc_demo/subscribers', {})).body.started).toBe(3);
    expect((await api('PATCH', '/api/apps/demo/broadcasts/bc_demo', { contentState: { value: '1 - 0' } })).status).toBe(200);
    const broadcast = await eventually(async () => {
      const body = (await api('GET', '/api/apps/demo/broadcasts/bc_demo')).body;
      expect(body.updatesSent).toBe(1);
      return body;
    }, { intervalMs: 50 });

    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/demo`);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Broadcasts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Broadcasts' }).waitFor();
    const row = page.locator('.broadcasts-table tr[data-id="bc_demo"]');
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[0]).toContain('metric-live');
    expect(cells[2]).toContain(broadcast.channel.id);
    expect(cells[2]).toContain('simulator · open');
    expect(cells[3]).toBe(broadcast.topic);
    expect(cells[4]).toBe('3');
    expect(cells[5]).toBe('1');
    await screenshot(page, 'desktop-broadcasts');
  }, SLOW);

  test('creates, updates and ends a broadcast from the page', async () => {
    // Create: a template, its fields (every problem at its field first), the storage policy.
    await page.getByRole('button', { name: 'Create a broadcast' }).click();
    const create = page.getByRole('dialog', { name: 'Create a broadcast' });
    await create.getByRole('combobox', { name: 'Template' }).selectOption('metric-live');
    await create.getByRole('textbox', { name: 'label', exact: true }).fill('');
    await create.getByRole('button', { name: 'Create broadcast' }).click();
    await create.locator('.field-error').filter({ hasText: 'attributes.label is required' }).waitFor();
    await create.getByRole('textbox', { name: 'label', exact: true }).fill('Lions v Bears');
    await create.getByRole('textbox', { name: 'value', exact: true }).fill('0 - 0');
    await create.getByRole('combobox', { name: 'Storage policy' }).selectOption('1');
    await screenshot(page, 'desktop-broadcast-create');
    await create.getByRole('button', { name: 'Create broadcast' }).click();
    await create.waitFor({ state: 'hidden' });
    const listed = async () => (await api('GET', '/api/apps/demo/broadcasts?state=Active')).body.broadcasts as any[];
    const made = (await listed()).find((b) => b.id !== 'bc_demo');
    expect({ templateSlug: made.templateSlug, storagePolicy: made.storagePolicy, state: made.state }).toEqual({ templateSlug: 'metric-live', storagePolicy: 1, state: 'Active' });
    const row = page.locator(`.broadcasts-table tr[data-id="${made.id}"]`);
    await row.waitFor();

    // Update: the form starts from what the broadcast shows now.
    await page.getByRole('button', { name: `Update ${made.id}` }).click();
    const update = page.getByRole('dialog', { name: `Update ${made.id}` });
    expect(await update.getByRole('textbox', { name: 'value', exact: true }).inputValue()).toBe('0 - 0');
    await update.getByRole('textbox', { name: 'value', exact: true }).fill('1 - 0');
    await update.getByRole('button', { name: 'Send update' }).click();
    await update.waitFor({ state: 'hidden' });
    const admin = async () =>
      ((await (await fetch(`${islet.url}/api/admin/apps/demo/broadcasts`, { headers: { authorization: `Bearer ${islet.adminToken}` } })).json()) as { broadcasts: any[] }).broadcasts.find((b) => b.id === made.id);
    expect((await admin()).contentState.value).toBe('1 - 0');
    expect((await admin()).attributes).toEqual({ label: 'Lions v Bears' });

    // End: asked first, then the broadcast is Ended and offers no more actions.
    await page.getByRole('button', { name: `End ${made.id}` }).click();
    const end = page.getByRole('dialog', { name: `End ${made.id}?` });
    await end.getByText('It is removed at once from every device following it').waitFor();
    await end.getByRole('button', { name: 'End broadcast' }).click();
    await end.waitFor({ state: 'hidden' });
    expect((await api('GET', `/api/apps/demo/broadcasts/${made.id}`)).body.state).toBe('Ended');
    await row.locator('td[data-label="State"]').filter({ hasText: 'Ended' }).waitFor();
    expect(await page.getByRole('button', { name: `Update ${made.id}` }).count()).toBe(0);
    // Long ids wrap: the table fits its card, with the actions in view.
    expect(await page.locator('.broadcasts-table').evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth)).toBe(0);
    await screenshot(page, 'desktop-broadcasts-after');
  }, SLOW);

  test('no page asked any host but the server, and no script failed', () => {
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
  });
});
