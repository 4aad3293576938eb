import { html } from 'htm/preact';
import type { ComponentChildren, TargetedEvent } from 'preact';
import { useId, useState } from 'preact/hooks';
import { toast } from './feedback';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export function Button(props: {
  variant?: Variant;
  type?: 'button' | 'submit';
  busy?: boolean;
  disabled?: boolean;
  small?: boolean;
  onClick?: (e: MouseEvent) => void;
  children?: ComponentChildren;
  label?: string;
  title?: string;
  /** The id of the text that says why the button is disabled. */
  describedBy?: string;
}) {
  const cls = `btn btn-${props.variant ?? 'secondary'}${props.small ? ' btn-sm' : ''}${props.busy ? ' is-busy' : ''}`;
  return html`<button
    type=${props.type ?? 'button'}
    class=${cls}
    disabled=${props.disabled || props.busy}
    aria-busy=${props.busy ? 'true' : undefined}
    aria-label=${props.label}
    aria-describedby=${props.describedBy}
    title=${props.title}
    onClick=${props.onClick}
  >
    ${props.children}
  </button>`;
}

/**
 * A labelled form control: `render` gets the id to put on the control, so the label, hint and
 * error are tied to it for screen readers.
 */
export function Field(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  required?: boolean;
  render: (a: { id: string; describedBy: string | undefined; invalid: boolean }) => ComponentChildren;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return html`<div class="field">
    <label for=${id}>${props.label}${props.required ? html`<span class="req" aria-hidden="true"> *</span>` : ''}</label>
    ${props.render({ id, describedBy, invalid: Boolean(props.error) })}
    ${props.hint ? html`<p class="hint" id=${hintId}>${props.hint}</p>` : ''}
    ${props.error ? html`<p class="field-error" id=${errorId}>${props.error}</p>` : ''}
  </div>`;
}

/** A text input inside a Field. */
export function TextField(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  hint?: ComponentChildren;
  error?: string;
  required?: boolean;
  placeholder?: string;
  type?: string;
  name?: string;
  autoComplete?: string;
  multiline?: boolean;
  mono?: boolean;
  pattern?: string;
}) {
  return html`<${Field}
    label=${props.label}
    hint=${props.hint}
    error=${props.error}
    required=${props.required}
    render=${({ id, describedBy, invalid }: { id: string; describedBy?: string; invalid: boolean }) => {
      const common = {
        id,
        name: props.name,
        value: props.value,
        required: props.required,
        placeholder: props.placeholder,
        class: props.mono ? 'mono' : undefined,
        'aria-describedby': describedBy,
        'aria-invalid': invalid ? 'true' : undefined,
        onInput: (e: TargetedEvent<HTMLInputElement | HTMLTextAreaElement>) => props.onInput(e.currentTarget.value),
      };
      return props.multiline
        ? html`<textarea rows="4" ...${common}></textarea>`
        : html`<input type=${props.type ?? 'text'} autocomplete=${props.autoComplete ?? 'off'} pattern=${props.pattern} ...${common} />`;
    }}
  />`;
}

export function SelectField(props: {
  label: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: (value: string) => void;
  hint?: ComponentChildren;
  required?: boolean;
}) {
  return html`<${Field}
    label=${props.label}
    hint=${props.hint}
    required=${props.required}
    render=${({ id, describedBy }: { id: string; describedBy?: string }) =>
      html`<select id=${id} value=${props.value} aria-describedby=${describedBy} onChange=${(e: TargetedEvent<HTMLSelectElement>) => props.onChange(e.currentTarget.value)}>
        ${props.options.map((o) => html`<option value=${o.value}>${o.label}</option>`)}
      </select>`}
  />`;
}

export function Checkbox(props: { label: string; checked: boolean; onChange: (checked: boolean) => void; hint?: string }) {
  const id = useId();
  return html`<div class="check">
    <input type="checkbox" id=${id} checked=${props.checked} onChange=${(e: TargetedEvent<HTMLInputElement>) => props.onChange(e.currentTarget.checked)} />
    <label for=${id}>${props.label}${props.hint ? html`<span class="hint"> ${props.hint}</span>` : ''}</label>
  </div>`;
}

export function Card(props: { title?: ComponentChildren; description?: ComponentChildren; actions?: ComponentChildren; children?: ComponentChildren; class?: string; id?: string }) {
  const headingId = useId();
  return html`<section class=${`card ${props.class ?? ''}`} aria-labelledby=${props.title ? headingId : undefined} id=${props.id}>
    ${props.title || props.actions
      ? html`<header class="card-head">
          <div>
            ${props.title ? html`<h2 id=${headingId}>${props.title}</h2>` : ''}
            ${props.description ? html`<p class="muted">${props.description}</p>` : ''}
          </div>
          ${props.actions ? html`<div class="card-actions">${props.actions}</div>` : ''}
        </header>`
      : ''}
    ${props.children}
  </section>`;
}

export function PageHeader(props: { title: ComponentChildren; subtitle?: ComponentChildren; actions?: ComponentChildren; back?: ComponentChildren }) {
  return html`<header class="page-head">
    ${props.back ? html`<div class="back">${props.back}</div>` : ''}
    <div class="page-head-row">
      <div>
        <h1>${props.title}</h1>
        ${props.subtitle ? html`<p class="muted">${props.subtitle}</p>` : ''}
      </div>
      ${props.actions ? html`<div class="page-actions">${props.actions}</div>` : ''}
    </div>
  </header>`;
}

const TONES: Record<string, string> = {
  active: 'green',
  Active: 'green',
  Live: 'green',
  sent: 'green',
  delivered: 'green',
  Testing: 'amber',
  pending: 'blue',
  queued: 'blue',
  held: 'amber',
  retrying: 'amber',
  paused: 'red',
  failed: 'red',
  invalid: 'red',
  dropped: 'grey',
  superseded: 'grey',
  Ended: 'grey',
  Archived: 'grey',
  Draft: 'blue',
  simulator: 'violet',
};

/** A small coloured status label; the text is always there, colour only adds to it. */
export function Badge(props: { children: string; tone?: string; title?: string }) {
  const tone = props.tone ?? TONES[props.children] ?? 'grey';
  return html`<span class=${`badge badge-${tone}`} title=${props.title}>${props.children}</span>`;
}

export function Empty(props: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return html`<div class="empty">
    <div class="empty-art" aria-hidden="true"><span></span></div>
    <h3>${props.title}</h3>
    ${props.children ? html`<p class="muted">${props.children}</p>` : ''}
    ${props.action ?? ''}
  </div>`;
}

export function Alert(props: { tone?: 'error' | 'info' | 'warn' | 'success'; children: ComponentChildren }) {
  const tone = props.tone ?? 'error';
  return html`<div class=${`alert alert-${tone}`} role=${tone === 'error' ? 'alert' : 'status'}>${props.children}</div>`;
}

export function Spinner(props: { label?: string }) {
  return html`<div class="loading" role="status"><span class="spinner" aria-hidden="true"></span>${props.label ?? 'Loading…'}</div>`;
}

export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setCopied(true);
      toast('Copied to the clipboard');
      setTimeout(() => setCopied(false), 1500);
    } catch {
      toast('Copying is not allowed here; select the text instead', 'error');
    }
  };
  return html`<${Button} small variant="ghost" onClick=${copy} label=${props.label ?? 'Copy'}>${copied ? 'Copied' : 'Copy'}<//>`;
}

/** Previous / next over a list the server pages with limit and offset. */
export function Pager(props: { total: number; limit: number; offset: number; onChange: (offset: number) => void }) {
  if (props.total <= props.limit && props.offset === 0) return null;
  const from = props.total === 0 ? 0 : props.offset + 1;
  const to = Math.min(props.total, props.offset + props.limit);
  return html`<nav class="pager" aria-label="Pages">
    <span class="muted">${from}–${to} of ${props.total}</span>
    <${Button} small disabled=${props.offset === 0} onClick=${() => props.onChange(Math.max(0, props.offset - props.limit))}>Previous<//>
    <${Button} small disabled=${to >= props.total} onClick=${() => props.onChange(props.offset + props.limit)}>Next<//>
  </nav>`;
}

/**
 * Text with `backtick` spans rendered as code, for the template definitions' descriptions.
 * @example withCode('One of `up`, `down`') // ['One of ', <code>up</code>, ', ', <code>down</code>, '']
 */
export function withCode(text: string) {
  return text.split('`').map((piece, i) => (i % 2 === 1 ? html`<code>${piece}</code>` : piece));
}

/** A key–value list for details. */
export function Details(props: { items: [string, ComponentChildren][] }) {
  return html`<dl class="details">
    ${props.items.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}
  </dl>`;
}
