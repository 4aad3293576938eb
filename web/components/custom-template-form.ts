import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import type { CustomField, CustomFields, CustomTemplateDefinition } from '../../src/modules/live-activities/custom-templates';
import type { Texts } from '../lib/custom-values';
import { fieldOfProblem } from './template-form';
import { Button, Field } from './ui';

type Part = 'attributes' | 'contentState';

const TYPE_HINTS: Record<CustomField['type'], string> = {
  string: 'Text.',
  integer: 'A whole number.',
  number: 'A number (a Double).',
  boolean: 'true or false.',
  date: 'An ISO 8601 timestamp with an offset; the iPhone gets a Swift Date.',
};

const inMinutes = (minutes: number) => new Date(Math.ceil((Date.now() + minutes * 60_000) / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');

function Control(props: { field: CustomField; name: string; value: string; onInput: (v: string) => void; id: string; describedBy?: string; invalid: boolean }) {
  const { field, value } = props;
  const common = { id: props.id, name: props.name, 'aria-describedby': props.describedBy, 'aria-invalid': props.invalid ? 'true' : undefined };
  const onInput = (e: TargetedEvent<HTMLInputElement | HTMLSelectElement>) => props.onInput(e.currentTarget.value);
  if (field.type === 'boolean' && !field.list)
    return html`<select ...${common} value=${value} onChange=${onInput}>
      <option value="">${field.required ? 'Choose…' : '(none)'}</option>
      <option value="true">true</option>
      <option value="false">false</option>
    </select>`;
  if (field.type === 'date' && !field.list)
    return html`<div class="input-with-actions">
      <input type="text" class="mono" placeholder="2026-01-15T18:00:00Z" ...${common} value=${value} onInput=${onInput} />
      <${Button} small variant="ghost" onClick=${() => props.onInput(inMinutes(15))}>+15 min<//>
      <${Button} small variant="ghost" onClick=${() => props.onInput(inMinutes(60))}>+1 h<//>
    </div>`;
  const numeric = !field.list && (field.type === 'integer' || field.type === 'number');
  return html`<input type="text" inputmode=${numeric ? (field.type === 'integer' ? 'numeric' : 'decimal') : undefined} class=${numeric || field.list ? 'mono' : undefined} ...${common} value=${value} onInput=${onInput} />`;
}

/**
 * Inputs built from an app-defined template's typed fields: one per field, its type as the hint,
 * a list as comma-separated values. Without `onAttributes` (an update) only the content state.
 */
export function CustomTemplateFields(props: {
  def: CustomTemplateDefinition;
  attributes: Texts;
  state: Texts;
  onAttributes?: (texts: Texts) => void;
  onState: (texts: Texts) => void;
  problems?: string[];
}) {
  const problemAt = (path: string) => props.problems?.find((p) => fieldOfProblem(p) === path);
  const group = (part: Part, fields: CustomFields, texts: Texts, onChange: (t: Texts) => void) =>
    Object.entries(fields).map(
      ([name, field]) => html`<${Field}
        label=${name}
        required=${field.required}
        hint=${html`<span class="mono">${field.list ? `[${field.type}]` : field.type}</span> · ${field.list ? `Comma-separated; each: ${TYPE_HINTS[field.type].toLowerCase()}` : TYPE_HINTS[field.type]}`}
        error=${problemAt(`${part}.${name}`)}
        render=${({ id, describedBy, invalid }: { id: string; describedBy?: string; invalid: boolean }) =>
          html`<${Control} field=${field} name=${`${part}.${name}`} value=${texts[name] ?? ''} id=${id} describedBy=${describedBy} invalid=${invalid}
            onInput=${(v: string) => onChange({ ...texts, [name]: v })} />`}
      />`,
    );
  return html`<div class="template-fields">
    ${props.onAttributes && Object.keys(props.def.attributes).length > 0
      ? html`<fieldset>
          <legend>Attributes <span class="muted small">static, set once at start</span></legend>
          ${group('attributes', props.def.attributes, props.attributes, props.onAttributes)}
        </fieldset>`
      : ''}
    <fieldset>
      <legend>Content state <span class="muted small">${props.onAttributes ? 'dynamic, replaced by each update' : 'replaces the current state entirely'}</span></legend>
      ${group('contentState', props.def.contentState, props.state, props.onState)}
    </fieldset>
  </div>`;
}
