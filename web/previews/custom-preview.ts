import { html } from 'htm/preact';
import { Card } from '../components/ui';

/** One value of an app-defined template's activity, as the preview lists it. */
export interface CustomRow {
  part: 'attributes' | 'contentState';
  name: string;
  value: string;
}

/**
 * The rows of the generic preview of an app-defined template (issue 39): Islet knows its fields,
 * not the app's design, so it lists each field with the value sent (strings as they are, numbers,
 * booleans, dates and lists as JSON), attributes first.
 * @example customRows({ driver: 'Ana' }, { etaMinutes: 7 }) // [{ part: 'attributes', name: 'driver', value: 'Ana' }, { part: 'contentState', name: 'etaMinutes', value: '7' }]
 */
export function customRows(attributes: Record<string, unknown>, state: Record<string, unknown>): CustomRow[] {
  const rows = (part: CustomRow['part'], values: Record<string, unknown>) =>
    Object.entries(values).map(([name, v]) => ({ part, name, value: typeof v === 'string' ? v : JSON.stringify(v) }));
  return [...rows('attributes', attributes), ...rows('contentState', state)];
}

/** The preview of an activity of an app-defined template: its fields and values. */
export function CustomPreview(props: { templateSlug: string; attributes: Record<string, unknown>; state: Record<string, unknown> }) {
  const rows = customRows(props.attributes, props.state);
  return html`<${Card} title="Fields and values" description=${`${props.templateSlug} is an app-defined template: the app's own widget renders it from these values.`}>
    <dl class="details">
      ${rows.map((r) => html`<div><dt><span class="muted small">${r.part}.</span>${r.name}</dt><dd class="mono break">${r.value}</dd></div>`)}
    </dl>
  <//>`;
}
