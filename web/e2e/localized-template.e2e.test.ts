import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/* The console's template editor with a template's languages (issue 37 part 2), in a real Chromium against the real server. */

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
  expect((await adminCall('POST', '/apps', { id: 'l10n', name: 'Languages' })).status).toBe(201);
  const release = { version: 1, templates: [{ slug: 'welcome', title: 'Hello {{name}}', body: 'Welcome back', localizations: { de: { title: 'Hallo {{name}}' } } }] };
  expect((await adminCall('POST', '/apps/l10n/releases', release)).status).toBe(201);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await islet?.stop();
});

describe('console: localized notification templates', () => {
  test('shows a template’s languages, adds one, previews each, and names a tag the server refuses', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.goto(`${islet.url}/console/apps/l10n/releases/1`);
    const card = page.locator('[data-slug="welcome"]');
    await card.getByText('Languages: de').waitFor();

    await card.getByRole('button', { name: 'Edit' }).click();
    const first = card.getByRole('group', { name: 'Localization 1' });
    expect(await first.getByLabel('Language tag').inputValue()).toBe('de');
    expect(await first.getByLabel('Localized title').inputValue()).toBe('Hallo {{name}}');
    await card.getByRole('button', { name: 'Add language' }).click();
    const second = card.getByRole('group', { name: 'Localization 2' });
    await second.getByLabel('Language tag').fill('de-AT');
    await second.getByLabel('Localized body').fill('Griaß di');

    // The preview in each language: de-AT keeps the template's title (it gives none), its own body.
    const preview = card.getByRole('group', { name: 'Notification preview' });
    await preview.getByText('Welcome back').first().waitFor();
    await card.getByLabel('Preview language').selectOption('de');
    await preview.getByText('Hallo').first().waitFor();
    await card.getByLabel('Preview language').selectOption('de-AT');
    await preview.getByText('Griaß di').first().waitFor();
    expect(await preview.locator('.notif-title').first().innerText()).toBe('Hello {{name}}');
    await screenshot(page, 'desktop-localized-template');

    await card.getByRole('button', { name: 'Save template' }).click();
    await card.getByText('Languages: de de-AT').waitFor();
    const [saved] = (await adminCall('GET', '/apps/l10n/releases/1')).body.templates;
    expect(saved.localizations).toEqual({ de: { title: 'Hallo {{name}}' }, 'de-AT': { body: 'Griaß di' } });

    // A tag that is not BCP 47 is named before anything is sent; one the server refuses is named by it.
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByRole('button', { name: 'Add language' }).click();
    const third = card.getByRole('group', { name: 'Localization 3' });
    await third.getByLabel('Language tag').fill('en_US');
    await third.getByLabel('Localized title').fill('Hi');
    await card.getByText('en_US is not a BCP 47 language tag').waitFor();
    await third.getByLabel('Language tag').fill('DE-at');
    await card.getByRole('button', { name: 'Save template' }).click();
    await card.getByText('localizations: DE-at and de-AT are the same tag de-AT').waitFor();
    expect((await adminCall('GET', '/apps/l10n/releases/1')).body.templates[0].localizations).toEqual(saved.localizations);

    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, new URL(islet.url).host)).toEqual([]);
  }, SLOW);
});
