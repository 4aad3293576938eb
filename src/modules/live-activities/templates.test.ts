import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, type Harness } from '../../test-support/harness';
import { activitiesPath, connect, count } from '../../test-support/live-activity-fixtures';
import { LIVE_ACTIVITY_TEMPLATES, TEMPLATE_SLUGS } from './templates';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('templates', (database) => {
  let h: Harness<AppContext>;
  beforeAll(async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await connect(h, 'a1', 'u1');
  });
  afterAll(() => h.close());

  const startWith = (body: unknown) => h.service('a1', 'POST', activitiesPath('a1'), body);

  /** Each template's own sample with one part overridden. */
  const sample = (slug: string) => LIVE_ACTIVITY_TEMPLATES.find((t) => t.slug === slug)!.sample;
  const withState = (slug: string, contentState: Record<string, unknown>) => ({ templateSlug: slug, attributes: sample(slug).attributes, contentState });
  const withAttributes = (slug: string, attributes: unknown) => ({ templateSlug: slug, attributes, contentState: sample(slug).contentState });

  describe('template definitions', () => {
    test('there are exactly the eight templates of the spec, each with a title, a description and described fields', () => {
      expect(LIVE_ACTIVITY_TEMPLATES.map((t) => t.slug)).toEqual([...TEMPLATE_SLUGS]);
      expect(TEMPLATE_SLUGS).toEqual(['status-tracker', 'metric-live', 'countdown', 'progress-bar', 'two-column', 'key-value-list', 'image-banner', 'mini-table']);
      for (const t of LIVE_ACTIVITY_TEMPLATES) {
        expect(t.title.length).toBeGreaterThan(0);
        expect(t.description.length).toBeGreaterThan(0);
        for (const f of [...t.attributes, ...t.contentState]) expect(f.description.length).toBeGreaterThan(0);
      }
    });

    test('the definitions and their validation import nothing of the server, so the console can use them', () => {
      for (const file of ['templates.ts', 'template-validation.ts']) {
        const source = readFileSync(join(import.meta.dir, file), 'utf8');
        const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
        expect(imports.filter((p) => p !== './templates')).toEqual([]);
      }
    });

    test('the OpenAPI document offers one start example per template (and one with options; none scheduled: a fixed startAt goes stale)', async () => {
      const doc = await h.request('GET', '/swagger/json');
      const start = doc.body.paths['/api/apps/{appId}/live-activities'].post;
      const examples = start.requestBody.content['application/json'].examples;
      expect(Object.values<{ value: { templateSlug: string } }>(examples).map((e) => e.value.templateSlug)).toEqual([...TEMPLATE_SLUGS, 'progress-bar']);
      expect(start.tags).toEqual(['Live Activities']);
    });
  });

  describe('every template accepts its sample', () => {
    for (const template of LIVE_ACTIVITY_TEMPLATES) {
      test(template.slug, async () => {
        const res = await startWith({ templateSlug: template.slug, ...template.sample });
        expect(res.status).toBe(200);
        expect(res.body.activityCount).toBe(1);
        expect(res.body.activities[0].templateSlug).toBe(template.slug);
      });
    }

    test('image-banner may omit attributes, since it has none', async () => {
      const res = await startWith({ templateSlug: 'image-banner', contentState: { title: 'Table ready' } });
      expect(res.status).toBe(200);
    });

    test('other valid forms: countdown with only remaining or an offset, progress at the bounds and with decimals, values with colons', async () => {
      const valid = [
        withState('countdown', { remaining: '5 min' }),
        withState('countdown', { targetDate: '2026-01-15T20:00:00+02:00' }),
        withState('countdown', { targetDate: '2026-01-15T20:00:00.123Z', remaining: '5 min' }),
        withState('progress-bar', { progress: '0' }),
        withState('progress-bar', { progress: '100' }),
        withState('progress-bar', { progress: '42.5' }),
        withState('status-tracker', { currentStep: '0', status: 'Ordered' }),
        withState('status-tracker', { currentStep: '3', status: 'Delivered' }),
        withState('key-value-list', { items: 'Boarding:09:40' }),
        withState('mini-table', { rows: 'Pace:5:40,Empty:' }),
        withState('metric-live', { value: '3', trend: 'neutral' }),
      ];
      for (const body of valid) expect({ body, status: (await startWith(body)).status }).toEqual({ body, status: 200 });
    });
  });

  describe('invalid data is refused with 400 naming the field, and nothing is created', () => {
    const cases: [string, unknown, string][] = [
      // status-tracker
      ['missing title', withAttributes('status-tracker', { steps: 'a,b' }), 'attributes.title is required'],
      ['missing steps', withAttributes('status-tracker', { title: 'Order' }), 'attributes.steps is required'],
      ['an empty step name', withAttributes('status-tracker', { title: 'Order', steps: 'a,,b' }), 'attributes.steps must be comma-separated names, none empty'],
      ['currentStep past the last step', withState('status-tracker', { currentStep: '4', status: 'x' }), 'contentState.currentStep must be an index of attributes.steps'],
      ['currentStep not a number', withState('status-tracker', { currentStep: 'two', status: 'x' }), 'contentState.currentStep must be a zero-based index as a number string'],
      ['currentStep negative', withState('status-tracker', { currentStep: '-1', status: 'x' }), 'contentState.currentStep must be a zero-based index as a number string'],
      ['missing status', withState('status-tracker', { currentStep: '1' }), 'contentState.status is required'],
      ['missing currentStep', withState('status-tracker', { status: 'x' }), 'contentState.currentStep is required'],
      // metric-live
      ['missing label', withAttributes('metric-live', {}), 'attributes.label is required'],
      ['missing value', withState('metric-live', { change: '+1' }), 'contentState.value is required'],
      ['an unknown trend', withState('metric-live', { value: '1', trend: 'sideways' }), 'contentState.trend must be one of up, down, neutral'],
      ['a number value', withState('metric-live', { value: 5 }), 'contentState.value must be a string'],
      // countdown
      ['neither targetDate nor remaining', withState('countdown', {}), 'contentState.targetDate or contentState.remaining is required'],
      ['a targetDate in words', withState('countdown', { targetDate: 'tomorrow' }), 'contentState.targetDate must be an ISO 8601 timestamp'],
      ['a targetDate that does not exist', withState('countdown', { targetDate: '2026-02-30T10:00:00Z' }), 'contentState.targetDate must be an ISO 8601 timestamp'],
      ['a targetDate without an offset', withState('countdown', { targetDate: '2026-01-15T10:00:00' }), 'contentState.targetDate must be an ISO 8601 timestamp'],
      ['a targetDate without a time', withState('countdown', { targetDate: '2026-01-15' }), 'contentState.targetDate must be an ISO 8601 timestamp'],
      ['missing countdown label', withAttributes('countdown', { subtitle: 'x' }), 'attributes.label is required'],
      // progress-bar
      ['progress above 100', withState('progress-bar', { progress: '101' }), 'contentState.progress must be a number string from 0 to 100'],
      ['progress below 0', withState('progress-bar', { progress: '-1' }), 'contentState.progress must be a number string from 0 to 100'],
      ['progress with a unit', withState('progress-bar', { progress: '50%' }), 'contentState.progress must be a number string from 0 to 100'],
      ['progress as a number', withState('progress-bar', { progress: 50 }), 'contentState.progress must be a string'],
      ['missing progress', withState('progress-bar', { detail: 'x' }), 'contentState.progress is required'],
      ['an unknown progress-bar field', withState('progress-bar', { progress: '5', foo: 'x' }), 'contentState.foo is not a field of template progress-bar'],
      // two-column
      ['missing two-column title', withAttributes('two-column', {}), 'attributes.title is required'],
      ['missing rightLabel', withState('two-column', { leftValue: '1', leftLabel: 'a', rightValue: '2' }), 'contentState.rightLabel is required'],
      ['missing leftValue', withState('two-column', { leftLabel: 'a', rightValue: '2', rightLabel: 'b' }), 'contentState.leftValue is required'],
      // key-value-list
      ['items without a colon', withState('key-value-list', { items: 'Gate B12' }), 'contentState.items must be comma-separated key:value pairs'],
      ['items with an empty key', withState('key-value-list', { items: 'Gate:B12,:14C' }), 'contentState.items must be comma-separated key:value pairs'],
      ['missing items', withState('key-value-list', { primaryValue: 'B12' }), 'contentState.items is required'],
      // image-banner
      ['an attribute on image-banner', withAttributes('image-banner', { title: 'x' }), 'attributes.title is not a field of template image-banner'],
      ['missing banner title', withState('image-banner', { status: 'Ready' }), 'contentState.title is required'],
      // mini-table
      ['rows without a colon', withState('mini-table', { rows: 'Distance' }), 'contentState.rows must be comma-separated label:value pairs'],
      ['missing rows', withState('mini-table', {}), 'contentState.rows is required'],
      ['an unknown attribute', withAttributes('mini-table', { title: 'x', color: 'red' }), 'attributes.color is not a field of template mini-table'],
      // any template
      ['an unknown slug', { templateSlug: 'gauge', contentState: {} }, 'invalid template slug'],
      ['a number attribute', withAttributes('progress-bar', { label: 7 }), 'attributes.label must be a string'],
      ['attributes not an object', withAttributes('progress-bar', 'Upload'), 'attributes must be an object'],
      ['contentState missing', { templateSlug: 'progress-bar', attributes: { label: 'x' } }, 'contentState is required'],
      ['contentState an array', withState('progress-bar', ['50'] as never), 'contentState must be an object'],
      ['templateSlug missing', { contentState: {} }, 'templateSlug is required'],
      ['an unknown body field', { ...withState('progress-bar', { progress: '5' }), color: 'red' }, 'color is not a known field'],
    ];

    for (const [name, body, detail] of cases) {
      test(`${name}: ${detail}`, async () => {
        const before = (await count(h, 'activities'));
        const res = await startWith(body);
        expect({ ...res.body, templateSlug: undefined, validSlugs: undefined }).toEqual({ title: 'Bad Request', status: 400, detail });
        expect(res.status).toBe(400);
        expect((await count(h, 'activities'))).toBe(before);
      });
    }
  });
});
