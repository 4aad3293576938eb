import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from '../../../web/e2e/browser';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

// Swagger UI in a real Chromium against a real server: what a developer does first.
const KEY = 'sk_swagger_e2e_key';
const SLOW = 120_000;
let dir: string;
let server: SpawnedServer;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-swagger-'));
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n[[apps]]\nid = "docs"\napp_secret = "${KEY}"\n`,
  );
  browser = await launchChromium();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('Swagger UI', () => {
  test('shows the operations, authorizes with a service key, and "Try it out" lists activities with 200, offline', async () => {
    const recorder: Recorder = { requests: [], errors: [] };
    const context = await newRecordedContext(browser, 'desktop', recorder);
    const page = await context.newPage();
    await page.goto(`${server.url}/swagger`);
    const listOp = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/api/apps/{appId}/live-activities"]') });
    await listOp.first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await screenshot(page, 'swagger-desktop');

    await page.locator('button.authorize').first().click();
    const scheme = page.locator('.auth-container').filter({ hasText: 'X-Service-Key' });
    await scheme.locator('input').fill(KEY);
    await scheme.locator('button[type="submit"]').click();
    await scheme.getByText('Authorized').waitFor();
    await page.locator('.modal-ux button.btn-done').first().click();

    const op = listOp.first();
    await op.locator('.opblock-summary').click();
    const tryOut = op.getByRole('button', { name: 'Try it out' });
    if (await tryOut.isVisible()) await tryOut.click();
    await op.locator('tr[data-param-name="appId"] input').fill('docs');
    await op.getByRole('button', { name: 'Execute' }).click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await op.locator('.live-responses-table .microlight').first().textContent()).toContain('"total": 0');

    expect(foreignRequests(recorder, new URL(server.url).host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
    await context.close();
  }, SLOW);

  test('on a demo instance, "Try it out" of the start example answers 200 with an activity, the demo app id filled in as shipped', async () => {
    const created = await fetch(`${server.url}/api/admin/demo`, { method: 'POST', headers: { authorization: 'Bearer t' } });
    expect(created.status).toBe(201);
    const { appSecret } = (await created.json()) as { appSecret: string };
    const recorder: Recorder = { requests: [], errors: [] };
    const context = await newRecordedContext(browser, 'desktop', recorder);
    const page = await context.newPage();
    await page.goto(`${server.url}/swagger`);
    await page.locator('button.authorize').first().click();
    const scheme = page.locator('.auth-container').filter({ hasText: 'X-Service-Key' });
    await scheme.locator('input').fill(appSecret);
    await scheme.locator('button[type="submit"]').click();
    await scheme.getByText('Authorized').waitFor();
    await page.locator('.modal-ux button.btn-done').first().click();

    const op = page.locator('.opblock-post').filter({ has: page.locator('[data-path="/api/apps/{appId}/live-activities"]') }).first();
    await op.locator('.opblock-summary').click();
    // Try it out is on from the start (tryItOutEnabled). Nothing to type: the app id and the body are the documented examples, made for the demo.
    await op.locator('tr[data-param-name="appId"] input').waitFor();
    expect(await op.locator('tr[data-param-name="appId"] input').inputValue()).toBe('demo');
    expect(await op.locator('textarea.body-param__text').inputValue()).toContain('"targetUsers": [\n    "demo-user"');
    await op.getByRole('button', { name: 'Execute' }).click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await op.locator('.live-responses-table .microlight').first().textContent()).toContain('"activityCount": 1');
    await screenshot(page, 'swagger-try-start-demo');
    expect(foreignRequests(recorder, new URL(server.url).host)).toEqual([]);
    expect(recorder.errors).toEqual([]);
    await context.close();
  }, SLOW);

  test("the start's error answers show their own examples, and the page's icon loads", async () => {
    const recorder: Recorder = { requests: [], errors: [] };
    const context = await newRecordedContext(browser, 'desktop', recorder);
    const page = await context.newPage();
    const icons: number[] = [];
    page.on('response', (res) => void (res.url().includes('favicon') && icons.push(res.status())));
    await page.goto(`${server.url}/swagger`);
    const op = page.locator('.opblock-post').filter({ has: page.locator('[data-path="/api/apps/{appId}/live-activities"]') }).first();
    await op.locator('.opblock-summary').click();
    const example = (code: string) => op.locator(`tr.response[data-code="${code}"] .microlight`).first().textContent();
    await op.locator('tr.response[data-code="401"]').waitFor();
    expect(await example('400')).toContain('"detail": "invalid template slug"');
    expect(await example('400')).toContain('"validSlugs"');
    expect(await example('401')).toContain('"status": 401');
    expect(await example('401')).toContain('X-Service-Key header is required');
    expect(await example('403')).toContain('live activities are not available on your current plan');
    expect(await example('413')).toContain('request body exceeds 64 KiB');
    expect(await example('429')).toContain('"status": 429');
    for (const code of ['401', '403', '409', '413', '415', '422', '429', '507']) expect(await example(code)).not.toContain('contentState.progress is required');
    await screenshot(page, 'swagger-start-errors');
    expect(icons.length).toBeGreaterThan(0);
    expect(icons.every((status) => status === 200)).toBe(true);
    expect(recorder.errors).toEqual([]);
    await context.close();
  }, SLOW);
});
