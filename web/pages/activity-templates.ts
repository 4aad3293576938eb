import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { ConfirmDialog, Dialog, toast } from '../components/feedback';
import { Alert, Badge, Button, Card, Empty, Field, PageHeader, Spinner } from '../components/ui';
import { admin } from '../lib/api';
import { formatDateTime } from '../lib/format';
import { useAction, useDialogState, useLoad } from '../lib/hooks';
import { Link } from '../lib/router';

interface TemplateField {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  required?: boolean;
  list?: boolean;
}

interface ActivityTemplate {
  slug: string;
  attributesType: string;
  attributes: Record<string, TemplateField>;
  contentState: Record<string, TemplateField>;
  source: 'api' | 'config';
  createdAt: string;
  updatedAt: string;
}

/** What the create form starts from: a whole valid definition, so the shape is seen by editing it. */
const EXAMPLE = {
  slug: 'match',
  attributesType: 'MatchAttributes',
  attributes: { home: { type: 'string', required: true }, away: { type: 'string', required: true } },
  contentState: {
    homeScore: { type: 'integer', required: true },
    awayScore: { type: 'integer', required: true },
    kickoff: { type: 'date' },
    scorers: { type: 'string', list: true },
  },
};

/** The app's own Live Activity templates (issue 39): list, define one from JSON, delete one. */
export function ActivityTemplatesPage(props: { appId: string }) {
  const base = `/apps/${encodeURIComponent(props.appId)}/live-activity-templates`;
  const list = useLoad(() => admin<{ templates: ActivityTemplate[] }>('GET', base), [props.appId]);
  const adding = useDialogState();
  const [deleting, setDeleting] = useState<ActivityTemplate | null>(null);
  const remove = useAction(async (t: ActivityTemplate) => {
    await admin('DELETE', `${base}/${encodeURIComponent(t.slug)}`);
    toast(`Template ${t.slug} deleted`);
    setDeleting(null);
    void list.reload();
  });

  if (!list.data) return list.error ? html`<div class="page"><${Alert}>${list.error}<//></div>` : html`<${Spinner} />`;
  const templates = list.data.templates;
  return html`<div class="page">
    <${PageHeader}
      title="Activity templates"
      subtitle="The app’s own ActivityAttributes types with typed fields. Starts, updates and ends accept their slug beside the eight built-in templates."
      actions=${html`<${Button} variant="primary" onClick=${adding.show}>New template<//>`}
    />
    ${templates.length === 0
      ? html`<div class="card"><${Empty} title="No templates of your own yet" action=${html`<${Button} variant="primary" onClick=${adding.show}>New template<//>`}>
          Define one to match a Swift ActivityAttributes struct of your app: its fields, their types, which are required.
        <//></div>`
      : html`<div class="stack-lg">
          ${templates.map(
            (t) => html`<${Card}
              key=${t.slug}
              title=${html`<span class="mono">${t.slug}</span>`}
              description=${html`<span class="mono">${t.attributesType}</span> · updated ${formatDateTime(t.updatedAt)}`}
              actions=${html`<div class="row-actions">
                <${Link} class="btn btn-secondary btn-sm" href=${`/apps/${encodeURIComponent(props.appId)}/activities/new?template=${encodeURIComponent(t.slug)}`}>Start<//>
                ${t.source === 'config'
                  ? html` <${Badge} tone="blue" title="Declared in the TOML configuration: change it there">from config<//>`
                  : html` <${Button} small variant="danger" label=${`Delete ${t.slug}`} onClick=${() => (remove.setError(undefined), setDeleting(t))}>Delete<//>`}
              </div>`}
            >
              <${Fields} part="attributes" fields=${t.attributes} />
              <${Fields} part="contentState" fields=${t.contentState} />
            <//>`,
          )}
        </div>`}
    <${NewTemplate} key=${adding.round} open=${adding.open} base=${base} onClose=${adding.close} onCreated=${() => (adding.close(), void list.reload())} />
    <${ConfirmDialog}
      open=${deleting !== null}
      title=${`Delete ${deleting?.slug ?? ''}?`}
      confirmLabel="Delete template"
      danger
      busy=${remove.busy}
      error=${remove.error}
      onClose=${() => setDeleting(null)}
      onConfirm=${() => deleting && void remove.run(deleting)}
    >
      <p>Starts of <span class="mono">${deleting?.slug}</span> are refused once it is gone. It cannot be deleted while Active activities or broadcasts use it.</p>
    <//>
  </div>`;
}

function Fields(props: { part: string; fields: Record<string, TemplateField> }) {
  const entries = Object.entries(props.fields);
  return html`<h3 class="small muted template-part">${props.part}</h3>
    ${entries.length === 0
      ? html`<p class="muted small">No fields.</p>`
      : html`<div class="table-wrap"><table class="table template-field-table">
          <caption class="sr-only">${props.part} fields</caption>
          <thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th></tr></thead>
          <tbody>
            ${entries.map(
              ([name, f]) => html`<tr>
                <td class="mono">${name}</td>
                <td class="mono">${f.list ? `[${f.type}]` : f.type}</td>
                <td>${f.required ? 'required' : html`<span class="muted">optional</span>`}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`}`;
}

/** The definition as JSON, checked by the server: its 400 or 409 says what is wrong. */
function NewTemplate(props: { open: boolean; base: string; onClose: () => void; onCreated: () => void }) {
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const save = useAction(async () => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new Error(`The definition is not valid JSON: ${(e as Error).message}`);
    }
    const created = await admin<ActivityTemplate>('POST', props.base, body);
    toast(`Template ${created.slug} defined`);
    props.onCreated();
  });
  return html`<${Dialog} open=${props.open} title="New activity template" onClose=${props.onClose} wide>
    <form onSubmit=${(e: TargetedEvent<HTMLFormElement>) => (e.preventDefault(), void save.run())}>
      <${Field}
        label="Definition (JSON)"
        hint=${html`<code>slug</code>, <code>attributesType</code> (your Swift struct), <code>attributes</code> and <code>contentState</code>: each field <code>{"type": "string" | "integer" | "number" | "boolean" | "date", "required"?: true, "list"?: true}</code>.`}
        render=${({ id, describedBy }: { id: string; describedBy?: string }) =>
          html`<textarea id=${id} class="mono" rows="16" spellcheck=${false} aria-describedby=${describedBy} value=${text} onInput=${(e: TargetedEvent<HTMLTextAreaElement>) => setText(e.currentTarget.value)}></textarea>`}
      />
      ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${save.busy}>Create template<//>
      </div>
    </form>
  <//>`;
}
