import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The console's template editor with a notification's optional fields (issue 36), in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

const adminCall = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${islet.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${islet.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  islet = await startIslet();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  expect((await adminCall('POST', '/apps', { id: 'rich', name: 'Rich' })).status).toBe(201);
  const release = { version: 1, templates: [{ slug: 'order', title: 'Order {{order}}', body: 'Shipped', badge: 2, data: { url: 'shop://orders/{{order}}' } }] };
  expect((await adminCall('POST', '/apps/rich/releases', release)).status).toBe(201);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: notification template options', () => {
  test('edits a template keeping its options, adds a subtitle, and makes another silent', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/rich/releases/1`);
    const card = page.locator('[data-slug="order"]');
    await card.getByText('badge: 2').waitFor();

    await card.getByRole('button', { name: 'Edit' }).click();
    // The options the template has are in the form, open.
    expect(await card.getByLabel('Badge').inputValue()).toBe('2');
    expect(await card.getByRole('textbox', { name: 'Data' }).inputValue()).toBe('url=shop://orders/{{order}}');
    await card.getByLabel('Subtitle').fill('From {{shop}}');
    await card.getByRole('group', { name: 'Notification preview' }).getByText('badge 2').first().waitFor();
    await card.getByRole('button', { name: 'Save template' }).click();
    await card.getByText('subtitle: From {{shop}}').waitFor();
    await screenshot(page, 'desktop-notification-options');
    const [saved] = (await adminCall('GET', '/apps/rich/releases/1')).body.templates;
    expect(saved).toEqual({
      slug: 'order',
      title: 'Order {{order}}',
      body: 'Shipped',
      placeholders: ['order', 'shop'],
      subtitle: 'From {{shop}}',
      badge: 2,
      data: { url: 'shop://orders/{{order}}' },
    });

    // A silent template: no title needed, the preview says nothing is shown.
    const add = page.locator('form.template-editor').last();
    await add.getByLabel('Slug').fill('sync');
    await add.locator('summary', { hasText: 'Data, sound' }).click();
    await add.getByLabel('Silent (background push)').check();
    await add.getByRole('textbox', { name: 'Data' }).fill('sync=inbox');
    await add.getByText('Silent: nothing is shown').waitFor();
    await add.getByRole('button', { name: 'Add template' }).click();
    await page.locator('[data-slug="sync"]').getByText('silent: true').waitFor();
    const sync = (await adminCall('GET', '/apps/rich/releases/1')).body.templates.find((t: { slug: string }) => t.slug === 'sync');
    expect(sync).toEqual({ slug: 'sync', title: '', body: '', placeholders: [], silent: true, data: { sync: 'inbox' } });
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, new URL(islet.url).host)).toEqual([]);
  }, SLOW);
});
