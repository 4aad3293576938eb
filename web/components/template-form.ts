import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import type { TemplateDefinition, TemplateField } from '../../src/modules/live-activities/templates';
import { parseSteps, type Values } from '../previews/preview-model';
import { Button, Field, withCode } from './ui';

type Part = 'attributes' | 'contentState';

/** The field a validation sentence (`contentState.progress is required`) is about. */
export function fieldOfProblem(problem: string | undefined): string | undefined {
  return problem ? /^((?:attributes|contentState)\.[\w]+)/.exec(problem)?.[1] : undefined;
}

/** The values to send: empty optional fields are left out rather than sent as "". */
export function compact(values: Values): Values {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
}

const inMinutes = (minutes: number) => new Date(Math.ceil((Date.now() + minutes * 60_000) / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');

function Control(props: { field: TemplateField; part: Part; value: string; attributes: Values; onInput: (v: string) => void; id: string; describedBy?: string; invalid: boolean }) {
  const { field, value, id } = props;
  const common = {
    id,
    name: `${props.part}.${field.name}`,
    'aria-describedby': props.describedBy,
    'aria-invalid': props.invalid ? 'true' : undefined,
  };
  const onInput = (e: TargetedEvent<HTMLInputElement | HTMLSelectElement>) => props.onInput(e.currentTarget.value);
  switch (field.rule) {
    case 'one-of':
      return html`<select ...${common} value=${value} onChange=${onInput}>
        <option value="">${field.required ? 'Choose…' : '(none)'}</option>
        ${field.options?.map((o) => html`<option value=${o}>${o}</option>`)}
      </select>`;
    case 'step-index': {
      const steps = parseSteps(props.attributes.steps);
      return html`<select ...${common} value=${value} onChange=${onInput}>
        ${steps.length === 0 ? html`<option value="">Fill in the steps first</option>` : ''}
        ${steps.map((s, i) => html`<option value=${String(i)}>${i} — ${s}</option>`)}
      </select>`;
    }
    case 'percent':
      return html`<div class="range-row">
        <input type="range" min="0" max="100" step="1" value=${Number(value) || 0} aria-label=${`${field.name} slider`} onInput=${onInput} />
        <input type="text" inputmode="decimal" class="mono narrow" ...${common} value=${value} onInput=${onInput} />
      </div>`;
    case 'timestamp':
      return html`<div class="input-with-actions">
        <input type="text" class="mono" placeholder="2026-01-15T18:00:00Z" ...${common} value=${value} onInput=${onInput} />
        <${Button} small variant="ghost" onClick=${() => props.onInput(inMinutes(15))}>+15 min<//>
        <${Button} small variant="ghost" onClick=${() => props.onInput(inMinutes(60))}>+1 h<//>
      </div>`;
    default:
      return html`<input type="text" ...${common} class=${field.rule === 'pairs' || field.rule === 'names' ? 'mono' : undefined} value=${value} onInput=${onInput} />`;
  }
}

/**
 * Inputs generated from a template definition: one per field, with its description as the hint,
 * required marks, and the control its rule calls for. `attributes` are read-only on updates.
 */
export function TemplateFields(props: {
  def: TemplateDefinition;
  attributes: Values;
  state: Values;
  onAttributes?: (values: Values) => void;
  onState: (values: Values) => void;
  /** Problems to show, each at the field it names (`contentState.progress is required`). */
  problems?: string[];
}) {
  const problemAt = (path: string) => props.problems?.find((p) => fieldOfProblem(p) === path);
  const group = (part: Part, fields: readonly TemplateField[], values: Values, onChange: (v: Values) => void) =>
    fields.map(
      (field) => html`<${Field}
        label=${field.name}
        required=${field.required}
        hint=${withCode(field.description)}
        error=${problemAt(`${part}.${field.name}`)}
        render=${({ id, describedBy, invalid }: { id: string; describedBy?: string; invalid: boolean }) =>
          html`<${Control} field=${field} part=${part} value=${values[field.name] ?? ''} attributes=${props.attributes} id=${id} describedBy=${describedBy} invalid=${invalid}
            onInput=${(v: string) => onChange({ ...values, [field.name]: v })} />`}
      />`,
    );
  return html`<div class="template-fields">
    ${props.onAttributes && props.def.attributes.length > 0
      ? html`<fieldset>
          <legend>Attributes <span class="muted small">static, set once at start</span></legend>
          ${group('attributes', props.def.attributes, props.attributes, props.onAttributes)}
        </fieldset>`
      : ''}
    <fieldset>
      <legend>Content state <span class="muted small">${props.onAttributes ? 'dynamic, replaced by each update' : 'replaces the current state entirely'}</span></legend>
      ${props.def.contentStateOneOf?.map((g) => html`<p class="hint">Give at least one of ${g.map((n, i) => html`${i > 0 ? ' or ' : ''}<code>${n}</code>`)}.</p>`)}
      ${group('contentState', props.def.contentState, props.state, props.onState)}
    </fieldset>
  </div>`;
}
