import type { CustomField, CustomFields, CustomTemplateDefinition } from '../../src/modules/live-activities/custom-templates';

/** A form's values: the text of each input, by field name. */
export type Texts = Record<string, string>;

/**
 * One input's text as the value its field's type takes: a number for integer and number, a boolean
 * for boolean, a list (comma-separated text) for a list field. Text that is not of the type stays
 * text, so the template's own check names the field ("must be an integer").
 * @example typedValue({ type: 'integer' }, '7') // 7
 * @example typedValue({ type: 'string', list: true }, 'Main St, Station') // ['Main St', 'Station']
 */
export function typedValue(field: CustomField, text: string): unknown {
  const one = (t: string): unknown => {
    const s = t.trim();
    if (field.type === 'integer' || field.type === 'number') return s !== '' && Number.isFinite(Number(s)) ? Number(s) : s;
    if (field.type === 'boolean') return s === 'true' ? true : s === 'false' ? false : s;
    return field.type === 'date' ? s : t;
  };
  if (!field.list) return one(text);
  return text.trim() === '' ? [] : text.split(',').map((t) => one(field.type === 'string' ? t.trim() : t));
}

/** The values to send: every input not left empty, typed by its field. */
export function typedValues(fields: CustomFields, texts: Texts): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(texts)
      .filter(([name, text]) => fields[name] && text.trim() !== '')
      .map(([name, text]) => [name, typedValue(fields[name]!, text)]),
  );
}

/** The inputs' texts of values an activity holds (a list comma-joined), to edit its state. */
export function textsOf(values: Record<string, unknown>): Texts {
  return Object.fromEntries(Object.entries(values).map(([name, v]) => [name, Array.isArray(v) ? v.map(String).join(', ') : String(v)]));
}

/** A sample for each required field (optional ones left empty): a start form that can be sent as it is. */
export function sampleTexts(fields: CustomFields, now: number): Texts {
  const sample: Record<CustomField['type'], string> = {
    string: 'Sample',
    integer: '1',
    number: '0.5',
    boolean: 'true',
    date: new Date(Math.ceil((now + 15 * 60_000) / 60_000) * 60_000).toISOString().replace('.000Z', 'Z'),
  };
  return Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.required ? sample[f.type] : '']));
}

/** An app-defined template as the admin API lists it. */
export type AppTemplate = CustomTemplateDefinition & { source: 'api' | 'config'; createdAt: string; updatedAt: string };
