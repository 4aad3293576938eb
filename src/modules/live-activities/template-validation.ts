/**
 * Checks attributes and contentState against a template definition. Pure functions without server
 * imports, so the console can run the same checks before sending. Each returns the first problem
 * as a sentence naming the field (`contentState.progress is required`), or undefined when valid.
 */
import type { TemplateDefinition, TemplateField } from './templates';

type Part = 'attributes' | 'contentState';

/**
 * The first problem of a whole activity (attributes, then contentState), or undefined.
 * `attributes` may be undefined: it then counts as `{}` (image-banner has none).
 * @example activityDataError(findTemplate('progress-bar')!, { label: 'Upload' }, { progress: '120' })
 * // 'contentState.progress must be a number string from 0 to 100'
 */
export function activityDataError(template: TemplateDefinition, attributes: unknown, contentState: unknown): string | undefined {
  return activityDataProblems(template, attributes, contentState)[0];
}

/**
 * Every problem of a whole activity, in the order the API reports the first: the console shows
 * each at its field before sending (the API answers one problem per request).
 * @example activityDataProblems(findTemplate('progress-bar')!, {}, { progress: '120' })
 * // ['attributes.label is required', 'contentState.progress must be a number string from 0 to 100']
 */
export function activityDataProblems(template: TemplateDefinition, attributes: unknown, contentState: unknown): string[] {
  const attributeProblems = partProblems(template, 'attributes', attributes ?? {});
  // A step index is checked against the attributes only once they are valid.
  return [...attributeProblems, ...contentStateProblems(template, contentState, attributeProblems.length === 0 ? ((attributes ?? {}) as Record<string, string>) : undefined)];
}

/**
 * The first problem of a contentState, given the activity's (already valid) attributes, which a
 * step index is checked against.
 */
export function contentStateError(template: TemplateDefinition, contentState: unknown, attributes: Record<string, string> = {}): string | undefined {
  return contentStateProblems(template, contentState, attributes)[0];
}

/** Every problem of a contentState; without `attributes` a step index is not checked against them. */
export function contentStateProblems(template: TemplateDefinition, contentState: unknown, attributes?: Record<string, string>): string[] {
  const shape = partProblems(template, 'contentState', contentState);
  if (typeof contentState !== 'object' || contentState === null || Array.isArray(contentState)) return shape;
  const problems = [...shape];
  const state = contentState as Record<string, string>;
  for (const group of template.contentStateOneOf ?? []) {
    if (!group.some((name) => state[name] !== undefined)) problems.push(`${group.map((n) => `contentState.${n}`).join(' or ')} is required`);
  }
  const stepIndex = template.contentState.find((f) => f.rule === 'step-index');
  const indexValid = stepIndex && !shape.some((p) => p.startsWith(`contentState.${stepIndex.name} `));
  if (attributes && indexValid && state[stepIndex.name] !== undefined) {
    const steps = (attributes.steps ?? '').split(',').length;
    if (Number(state[stepIndex.name]) >= steps) problems.push(`contentState.${stepIndex.name} must be an index of attributes.steps`);
  }
  return problems;
}

/** Shape, unknown keys, types, required fields and each value's rule, in that order; at most one problem per field. */
function partProblems(template: TemplateDefinition, part: Part, value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${part} must be an object`];
  const fields = template[part];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  const wrongType = new Set<string>();
  for (const [key, v] of Object.entries(record)) {
    if (!fields.some((f) => f.name === key)) problems.push(`${part}.${key} is not a field of template ${template.slug}`);
    else if (typeof v !== 'string') (problems.push(`${part}.${key} must be a string`), wrongType.add(key));
  }
  for (const field of fields) {
    if (field.required && record[field.name] === undefined) problems.push(`${part}.${field.name} is required`);
  }
  for (const field of fields) {
    const v = record[field.name];
    if (v === undefined || wrongType.has(field.name)) continue;
    const problem = ruleError(field, v as string);
    if (problem) problems.push(`${part}.${field.name} ${problem}`);
  }
  return problems;
}

const PERCENT = /^\d{1,3}(\.\d+)?$/;
const INDEX = /^\d{1,6}$/;
// A time and an offset are required: a countdown target without a time zone is ambiguous.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/;

/** What is wrong with one value under its field's rule, as the end of a sentence. */
function ruleError(field: TemplateField, value: string): string | undefined {
  switch (field.rule) {
    case 'text':
      return undefined;
    case 'percent':
      return PERCENT.test(value) && Number(value) <= 100 ? undefined : 'must be a number string from 0 to 100';
    case 'step-index':
      return INDEX.test(value) ? undefined : 'must be a zero-based index as a number string';
    case 'timestamp':
      return isIsoTimestamp(value) ? undefined : 'must be an ISO 8601 timestamp';
    case 'one-of':
      return field.options?.includes(value) ? undefined : `must be one of ${field.options?.join(', ')}`;
    case 'names':
      return value.split(',').every((name) => name.trim() !== '') ? undefined : 'must be comma-separated names, none empty';
    case 'pairs':
      return value.split(',').every(isPair) ? undefined : `must be comma-separated ${field.pairKey ?? 'key'}:value pairs`;
  }
}

/** `key:value` with a non-empty key; the value may itself hold colons (`Boarding:09:40`). */
const isPair = (pair: string): boolean => {
  const colon = pair.indexOf(':');
  return colon > 0 && pair.slice(0, colon).trim() !== '';
};

/** A real calendar moment: `Date.parse` alone would roll 2026-02-30 over into March. */
export function isIsoTimestamp(value: string): boolean {
  const m = TIMESTAMP.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[7] === 'Z' || (Number(m[8]) <= 23 && Number(m[9]) <= 59);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk;
}
