import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The console's page of app-defined Live Activity templates (issue 39), in a real Chromium against the real server. */

let islet: IsletProcess;
let browser: Browser;
let page: Page;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

const adminCall = async (method: string, path: string) => {
  const res = await fetch(`${islet.url}/api/admin${path}`, { method, headers: { authorization: `Bearer ${islet.adminToken}` } });
  return { status: res.status, body: (await res.json()) as any };
};

const signIn = async (p: Page) => {
  await p.goto(`${islet.url}/console`);
  await p.getByLabel('Admin token').fill(islet.adminToken);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
};

beforeAll(async () => {
  // An app declared in the TOML with a template of its own: shown, not deletable from the console.
  islet = await startIslet(
    '[[apps]]\nid = "declared"\nname = "Declared"\nplan = "pro"\n' +
      '[[apps.live_activity_templates]]\nslug = "parcel"\nattributes_type = "ParcelAttributes"\n' +
      '[apps.live_activity_templates.content_state]\nstage = { type = "string", required = true }\n',
  );
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  // The demo defines `ride`; an Active activity of it makes its delete a 409.
  const demo = await adminCall('POST', '/demo');
  const start = await fetch(`${islet.url}/api/apps/demo/live-activities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-key': demo.body.appSecret },
    body: JSON.stringify({ templateSlug: 'ride', attributes: { driver: 'Ana' }, contentState: { etaMinutes: 7 }, targetUsers: ['demo-friend'] }),
  });
  expect(start.status).toBe(200);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: activity templates', () => {
  test('lists the app’s templates, creates one from JSON (showing the server’s 409), and deletes one', async () => {
    await signIn(page);
    // Reached from the app's navigation.
    await page.goto(`${islet.url}/console/apps/demo`);
    await page.getByRole('link', { name: 'Activity templates' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Activity templates' }).waitFor();
    const ride = page.getByRole('region', { name: 'ride' });
    await ride.getByText('RideAttributes').waitFor();
    await ride.getByRole('row', { name: /etaMinutes/ }).getByText('integer').waitFor();

    // A built-in slug: the server's 409 detail is shown in the dialog, which stays open.
    await page.getByRole('button', { name: 'New template' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New activity template' });
    const json = dialog.getByLabel('Definition (JSON)');
    await json.fill((await json.inputValue()).replace('"match"', '"countdown"'));
    await dialog.getByRole('button', { name: 'Create template' }).click();
    await dialog.getByText('countdown is a built-in template and cannot be replaced').waitFor();
    await json.fill((await json.inputValue()).replace('"countdown"', '"match"'));
    await dialog.getByRole('button', { name: 'Create template' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const match = page.getByRole('region', { name: 'match' });
    await match.getByRole('row', { name: /scorers/ }).getByText('[string]').waitFor();
    expect((await adminCall('GET', '/apps/demo/live-activity-templates/match')).body.contentState.homeScore).toEqual({ type: 'integer', required: true });
    await screenshot(page, 'desktop-activity-templates');

    // In use: the 409 detail; not in use: gone from the page and from the server.
    await ride.getByRole('button', { name: 'Delete ride' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete ride?' });
    await confirm.getByRole('button', { name: 'Delete template' }).click();
    await confirm.getByText('live activity template ride is in use by 1 active activity').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await match.getByRole('button', { name: 'Delete match' }).click();
    await page.getByRole('dialog', { name: 'Delete match?' }).getByRole('button', { name: 'Delete template' }).click();
    await match.waitFor({ state: 'detached' });
    expect((await adminCall('GET', '/apps/demo/live-activity-templates/match')).status).toBe(404);
    expect((await adminCall('GET', '/apps/demo/live-activity-templates/ride')).status).toBe(200);
    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);

  test('a template declared in the TOML is marked from config, without a Delete button', async () => {
    await page.goto(`${islet.url}/console/apps/declared/activity-templates`);
    const parcel = page.getByRole('region', { name: 'parcel' });
    await parcel.getByText('from config').waitFor();
    await parcel.getByRole('row', { name: /stage/ }).getByText('required').waitFor();
    expect(await parcel.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    expect(recorder.errors).toEqual([]);
  }, SLOW);

  test('at phone width the page does not overflow sideways', async () => {
    const phoneRecorder: Recorder = { requests: [], errors: [] };
    const phone = await (await newRecordedContext(browser, 'phone', phoneRecorder)).newPage();
    await signIn(phone);
    await phone.goto(`${islet.url}/console/apps/demo/activity-templates`);
    await phone.getByRole('region', { name: 'ride' }).getByText('RideAttributes').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    await screenshot(phone, 'phone-activity-templates');
    expect(phoneRecorder.errors).toEqual([]);
  }, SLOW);
});
