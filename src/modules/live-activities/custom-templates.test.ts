import { describe, expect, test } from 'bun:test';
import { apnsRequest, fcmMessage } from '../delivery/payloads';
import { customContentStateError, customDataError, definitionProblem, normalized, replacementProblem, type CustomTemplateDefinition } from './custom-templates';
import { activityContent, customContent } from './live-activities.content';

const ride: CustomTemplateDefinition = {
  slug: 'ride',
  attributesType: 'RideAttributes',
  attributes: { driver: { type: 'string', required: true } },
  contentState: { etaMinutes: { type: 'integer', required: true }, pickupAt: { type: 'date' }, stops: { type: 'date', list: true } },
};

describe('app-defined template definitions', () => {
  test('names: slug, Swift type, field names, reserved key, limits', () => {
    expect(definitionProblem(ride)).toBeUndefined();
    expect(definitionProblem({ ...ride, slug: 'Ride' })).toStartWith('slug must be');
    expect(definitionProblem({ ...ride, attributesType: '9Ride' })).toStartWith('attributesType must be a Swift type name');
    expect(definitionProblem({ ...ride, attributes: { 'first-name': { type: 'string' } } })).toBe(
      'attributes.first-name is not a valid field name: letters, digits and _, not starting with a digit',
    );
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, { type: 'string' as const }]));
    expect(definitionProblem({ ...ride, contentState: many })).toBe('contentState has more than 32 fields');
    expect(definitionProblem({ ...ride, contentState: {} })).toBe('contentState needs at least one field');
  });

  test('normalized: required and list only when true, so equal meanings compare equal', () => {
    expect(normalized({ ...ride, contentState: { a: { type: 'string', required: false, list: false } } }).contentState).toEqual({ a: { type: 'string' } });
  });

  test('a replacement of a template in use may only add optional fields', () => {
    expect(replacementProblem(ride, { ...ride, contentState: { ...ride.contentState, note: { type: 'string' } } })).toBeUndefined();
    expect(replacementProblem(ride, { ...ride, attributesType: 'Taxi' })).toBe('attributesType cannot change from RideAttributes while the template is in use');
    expect(replacementProblem(ride, { ...ride, contentState: { ...ride.contentState, stops: { type: 'date' } } })).toBe('contentState.stops cannot change while the template is in use');
    expect(replacementProblem(ride, { ...ride, attributes: { driver: { type: 'string' } } })).toBe('attributes.driver cannot change while the template is in use');
  });

  test('values: each type, lists, real calendar dates, null is not a value', () => {
    expect(customDataError(ride, { driver: 'Ana' }, { etaMinutes: 3, pickupAt: '2026-11-28T09:30:00+01:00', stops: ['2026-11-28T10:00Z'] })).toBeUndefined();
    expect(customDataError(ride, undefined, { etaMinutes: 3 })).toBe('attributes.driver is required');
    expect(customContentStateError(ride, { etaMinutes: 3, pickupAt: '2026-02-30T09:30:00Z' })).toBe('contentState.pickupAt must be a date (an ISO 8601 timestamp with an offset)');
    expect(customContentStateError(ride, { etaMinutes: 3, pickupAt: '2026-11-28T09:30:00' })).toStartWith('contentState.pickupAt must be a date');
    expect(customContentStateError(ride, { etaMinutes: null })).toBe('contentState.etaMinutes must be an integer');
    expect(customContentStateError(ride, { etaMinutes: 2 ** 53 })).toBe('contentState.etaMinutes must be an integer');
    expect(customContentStateError(ride, [])).toBe('contentState must be an object');
  });
});

describe('payloads of an app-defined template', () => {
  const start = activityContent(
    'start',
    { id: 'la_1', templateSlug: 'ride', attributes: { driver: 'Ana' }, contentState: { etaMinutes: 3, pickupAt: '2001-01-01T00:01:00Z', stops: ['2001-01-01T00:00:01.5Z'] } },
    { now: Date.UTC(2026, 0, 1), apnsTimestamp: 1767225600, custom: customContent(ride) },
  );

  test('APNs: the attributes type, the values at the top of attributes with isletActivityId, dates as seconds since 2001', () => {
    const { aps } = apnsRequest(start, 'com.example').body as { aps: Record<string, unknown> };
    expect(aps['attributes-type']).toBe('RideAttributes');
    expect(aps.attributes).toEqual({ driver: 'Ana', isletActivityId: 'la_1' });
    expect(aps['content-state']).toEqual({ etaMinutes: 3, pickupAt: 60, stops: [1.5] });
    expect(aps.alert).toEqual({ title: 'ride', body: 'Live Activity started' });
  });

  test('FCM: the slug, the type, and the typed values as JSON text, dates as given', () => {
    const data = (fcmMessage(start) as { data: Record<string, string> }).data;
    expect(data).toMatchObject({ templateSlug: 'ride', attributesType: 'RideAttributes', attributes: '{"driver":"Ana"}' });
    expect(JSON.parse(data.contentState!)).toEqual({ etaMinutes: 3, pickupAt: '2001-01-01T00:01:00Z', stops: ['2001-01-01T00:00:01.5Z'] });
  });

  test('a built-in template keeps IsletActivityAttributes and its values object', () => {
    const builtIn = activityContent('start', { id: 'la_2', templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' } }, { now: 0 });
    const { aps } = apnsRequest(builtIn, 'com.example').body as { aps: Record<string, unknown> };
    expect(aps['attributes-type']).toBe('IsletActivityAttributes');
    expect(aps.attributes).toEqual({ activityId: 'la_2', templateSlug: 'progress-bar', values: { label: 'x' } });
    expect((fcmMessage(builtIn) as { data: Record<string, string> }).data.attributesType).toBeUndefined();
  });
});
