import { describe, expect, test } from 'bun:test';
import { compact, fieldOfProblem } from './template-form';

describe('template form', () => {
  test('a server or client problem points at the field it names', () => {
    expect(fieldOfProblem('contentState.progress must be a number string from 0 to 100')).toBe('contentState.progress');
    expect(fieldOfProblem('attributes.title is required')).toBe('attributes.title');
    expect(fieldOfProblem('contentState.targetDate or contentState.remaining is required')).toBe('contentState.targetDate');
    expect(fieldOfProblem(undefined)).toBeUndefined();
  });

  test('empty optional fields are left out of the request', () => {
    expect(compact({ progress: '40', detail: ' ', label: 'x' })).toEqual({ progress: '40', label: 'x' });
  });
});
