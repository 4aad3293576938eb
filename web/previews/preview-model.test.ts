import { describe, expect, test } from 'bun:test';
import { findTemplate, LIVE_ACTIVITY_TEMPLATES } from '../../src/modules/live-activities/templates';
import { compactValue, countdownText, freshSample, headline, parsePairs, percent, stepIndex } from './preview-model';

const NOW = Date.parse('2026-01-15T17:58:30Z');
const template = (slug: string) => findTemplate(slug)!;

describe('preview model', () => {
  test('compact views use primaryValue where the template has it', () => {
    expect(compactValue(template('key-value-list'), { items: 'Gate:B12,Seat:14C', primaryValue: 'Seat 14C' }, NOW)).toBe('Seat 14C');
    expect(compactValue(template('mini-table'), { rows: 'Distance:5.2 km', primaryValue: '5.2 km' }, NOW)).toBe('5.2 km');
  });

  test('without primaryValue they fall back to the most prominent value', () => {
    expect(compactValue(template('key-value-list'), { items: 'Gate:B12,Seat:14C' }, NOW)).toBe('B12');
    expect(compactValue(template('mini-table'), { rows: 'Pace:5:40' }, NOW)).toBe('5:40');
    expect(compactValue(template('progress-bar'), { progress: '42.4' }, NOW)).toBe('42%');
    expect(compactValue(template('metric-live'), { value: '1,284' }, NOW)).toBe('1,284');
    expect(compactValue(template('status-tracker'), { currentStep: '1', status: 'Packed' }, NOW)).toBe('Packed');
  });

  test('a countdown shows the time left, or its remaining text without a target', () => {
    expect(compactValue(template('countdown'), { targetDate: '2026-01-15T18:00:00Z' }, NOW)).toBe('1:30');
    expect(compactValue(template('countdown'), { remaining: '3 days' }, NOW)).toBe('3 days');
    expect(countdownText('2026-01-15T20:05:09Z', NOW)).toBe('2:06:39');
    expect(countdownText('2026-01-15T17:00:00Z', NOW)).toBe('0:00');
    expect(countdownText('soon', NOW)).toBeUndefined();
  });

  test('every template has a compact value and a headline from its sample', () => {
    for (const t of LIVE_ACTIVITY_TEMPLATES) {
      const sample = freshSample(t, NOW);
      expect({ slug: t.slug, compact: compactValue(t, sample.contentState, NOW) !== '—' }).toEqual({ slug: t.slug, compact: true });
      expect(headline(t, sample.attributes, sample.contentState, NOW).title.length).toBeGreaterThan(0);
    }
  });

  test('fresh samples move timestamps half an hour ahead so countdowns count', () => {
    const sample = freshSample(template('countdown'), NOW);
    expect(sample.contentState.targetDate).toBe('2026-01-15T18:29:00Z');
    expect(freshSample(template('progress-bar'), NOW).contentState).toEqual(template('progress-bar').sample.contentState);
  });

  test('pairs, steps and percentages tolerate what is being typed', () => {
    expect(parsePairs('Gate:B12, Boarding:09:40,,:x')).toEqual([
      ['Gate', 'B12'],
      ['Boarding', '09:40'],
    ]);
    expect(stepIndex('2', 4)).toBe(2);
    expect(stepIndex('4', 4)).toBe(-1);
    expect(stepIndex('', 4)).toBe(-1);
    expect(percent('150')).toBe(100);
    expect(percent('abc')).toBe(0);
  });
});
