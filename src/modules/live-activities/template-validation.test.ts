import { describe, expect, test } from 'bun:test';
import { activityDataError, activityDataProblems, contentStateProblems } from './template-validation';
import { findTemplate, LIVE_ACTIVITY_TEMPLATES } from './templates';

describe('every problem at once (what the console shows at each field)', () => {
  test('lists each wrong field once, in the order the API reports the first', () => {
    const bar = findTemplate('progress-bar')!;
    const problems = activityDataProblems(bar, { extra: 'x' }, { progress: '120', detail: 5 });
    expect(problems).toEqual([
      'attributes.extra is not a field of template progress-bar',
      'attributes.label is required',
      'contentState.detail must be a string',
      'contentState.progress must be a number string from 0 to 100',
    ]);
    expect(activityDataError(bar, { extra: 'x' }, { progress: '120', detail: 5 })).toBe(problems[0]);
  });

  test('a step index is checked against valid attributes only, and one-of groups are named', () => {
    const tracker = LIVE_ACTIVITY_TEMPLATES.find((t) => t.contentState.some((f) => f.rule === 'step-index'))!;
    const index = tracker.contentState.find((f) => f.rule === 'step-index')!.name;
    const valid = { ...tracker.sample.attributes, steps: 'A,B' };
    expect(activityDataProblems(tracker, valid, { ...tracker.sample.contentState, [index]: '5' })).toContain(`contentState.${index} must be an index of attributes.steps`);
    const grouped = LIVE_ACTIVITY_TEMPLATES.find((t) => t.contentStateOneOf)!;
    expect(contentStateProblems(grouped, {})).toContain('contentState.targetDate or contentState.remaining is required');
  });

  test('every sample has no problem', () => {
    for (const t of LIVE_ACTIVITY_TEMPLATES) expect({ slug: t.slug, problems: activityDataProblems(t, t.sample.attributes, t.sample.contentState) }).toEqual({ slug: t.slug, problems: [] });
  });
});
