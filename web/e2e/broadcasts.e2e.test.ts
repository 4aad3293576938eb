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
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
  }, SLOW);
});
