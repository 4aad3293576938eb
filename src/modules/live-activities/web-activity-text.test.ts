import { describe, expect, test } from 'bun:test';
import { LIVE_ACTIVITY_TEMPLATES } from './templates';
import { webActivityText } from './web-activity-text';

const text = (templateSlug: string, attributes: Record<string, unknown>, contentState: Record<string, unknown>) =>
  webActivityText({ templateSlug, attributes, contentState });

describe('what a web device shows for a Live Activity', () => {
  test("each built-in template's sample: its heading as the title, its current state as one line", () => {
    const shown = Object.fromEntries(LIVE_ACTIVITY_TEMPLATES.map((t) => [t.slug, text(t.slug, t.sample.attributes, t.sample.contentState)]));
    expect(shown).toEqual({
      'status-tracker': { title: 'Order #1042', body: 'On its way · Shipped (3/4) · ETA 14:30' },
      'metric-live': { title: 'Active users', body: '1,284 · +12% ↑' },
      countdown: { title: 'Doors open', body: 'Main hall · until 2026-01-15 18:00 UTC' },
      'progress-bar': { title: 'Uploading photos', body: '42% · 21 of 50' },
      'two-column': { title: 'Final', body: 'Home 2 · Away 1' },
      'key-value-list': { title: 'Flight LX 318', body: 'Gate: B12 · Seat: 14C · Boarding: 09:40' },
      'image-banner': { title: 'Table ready', body: 'Please come to the front desk · Ready' },
      'mini-table': { title: 'Morning run', body: 'Distance: 5.2 km · Pace: 5:40 · Time: 29:32' },
    });
  });

  test('optional fields left out leave no separators; a countdown without a date shows what remains', () => {
    expect(text('progress-bar', { label: 'Upload' }, { progress: '7' })).toEqual({ title: 'Upload', body: '7%' });
    expect(text('countdown', { label: 'Launch' }, { remaining: '5 min' })).toEqual({ title: 'Launch', body: '5 min left' });
    expect(text('countdown', { label: 'Launch' }, { targetDate: '2026-01-15T20:00+0200' }).body).toBe('until 2026-01-15 18:00 UTC');
    expect(text('status-tracker', { title: 'T', steps: 'Ordered,Packed' }, { currentStep: '1', status: 'packed' }).body).toBe('packed · 2/2');
    expect(text('metric-live', { label: 'Score' }, { value: '3', trend: 'down' }).body).toBe('3 · ↓');
  });

  test("an app-defined template: the title, label or name attribute, and each contentState field as name: value", () => {
    expect(text('delivery-eta', { orderNumber: 'A-7', Label: 'Pizza' }, { minutes: 12, late: false, stops: ['Main St', 'Oak Ave'], meta: { x: 1 } })).toEqual({
      title: 'Pizza',
      body: 'minutes: 12 · late: false · stops: Main St, Oak Ave',
    });
    expect(text('delivery-eta', { orderNumber: 'A-7' }, {}).title).toBe('A-7');
    expect(text('delivery-eta', { count: 3 }, {}).title).toBe('delivery-eta');
  });

  test('long text is cut to what a notification shows', () => {
    const shown = text('progress-bar', { label: 'L'.repeat(500) }, { progress: '1', detail: 'd'.repeat(500) });
    expect(shown.title.length).toBe(100);
    expect(shown.body.length).toBe(240);
    expect(shown.body.endsWith('…')).toBe(true);
  });
});
