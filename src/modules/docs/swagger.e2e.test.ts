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
});

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
});
