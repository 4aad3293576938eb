import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, toast } from '../components/feedback';
import { appsChanged } from '../components/shell';
import { Alert, Badge, Button, Empty, PageHeader, SelectField, Spinner, TextField } from '../components/ui';
import { admin } from '../lib/api';
import { formatDateTime } from '../lib/format';
import { useAction, useDialogState, useLoad } from '../lib/hooks';
import { Link, navigate } from '../lib/router';
import type { AppView, Plan } from '../lib/types';

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Lower-case, dashes for anything else: a suggestion for the id while the name is typed. */
const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

export function usePlans() {
  return useLoad(() => admin<{ plans: Plan[] }>('GET', '/plans').then((r) => r.plans), []);
}

export const planLabel = (p: Plan) =>
  `${p.name} · ${p.liveActivities ? (p.minutes === null ? 'unlimited minutes' : `${p.minutes.toLocaleString()} min/month`) : 'notifications only'}`;

function CreateAppDialog(props: { open: boolean; onClose: () => void }) {
  const plans = usePlans();
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const [idEdited, setIdEdited] = useState(false);
  const [plan, setPlan] = useState('pro');
  const appId = idEdited ? id : slugify(name);
  const idError = appId && !ID_PATTERN.test(appId) ? 'Letters, digits, - and _; starting with a letter or digit.' : undefined;
  const create = useAction(async () => {
    const res = await admin<{ app: AppView }>('POST', '/apps', { name: name.trim(), ...(appId ? { id: appId } : {}), plan });
    appsChanged();
    toast(`App “${res.app.name}” created`);
    props.onClose();
    navigate(`/apps/${encodeURIComponent(res.app.id)}`);
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!idError && name.trim()) void create.run();
  };
  return html`<${Dialog} open=${props.open} title="New app" onClose=${props.onClose}>
    <form onSubmit=${submit} class="stack">
      ${create.error ? html`<${Alert}>${create.error}<//>` : ''}
      <${TextField} label="Name" required value=${name} onInput=${setName} placeholder="Acme Delivery" hint="Shown in the console only." />
      <${TextField}
        label="App id"
        value=${appId}
        mono
        onInput=${(v: string) => {
          setId(v);
          setIdEdited(true);
        }}
        error=${idError}
        hint="Used in API paths: /api/apps/{id}/…. Cannot be changed later."
      />
      <${SelectField}
        label="Plan"
        value=${plan}
        onChange=${setPlan}
        options=${(plans.data ?? [{ name: 'pro', liveActivities: true, minutes: 10000, overage: false }]).map((p) => ({ value: p.name, label: planLabel(p) }))}
      />
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${create.busy} disabled=${!name.trim() || Boolean(idError)}>Create app<//>
      </div>
    </form>
  <//>`;
}

function ChannelBadges(props: { app: AppView }) {
  const { apns, fcm } = props.app.channels;
  const label = (c: AppView['channels']['apns']) => (c.status === 'paused' ? 'paused' : c.transport === 'simulator' ? 'simulator' : 'active');
  return html`<span class="badges">
    <span class="platform-tag">iOS</span><${Badge} tone=${apns.status === 'paused' ? 'red' : apns.transport === 'simulator' ? 'violet' : 'green'}>${label(apns)}<//>
    <span class="platform-tag">Android</span><${Badge} tone=${fcm.status === 'paused' ? 'red' : fcm.transport === 'simulator' ? 'violet' : 'green'}>${label(fcm)}<//>
  </span>`;
}

/** POST /api/admin/demo: the demo app with its end users, devices, Live release and a running activity, then its overview. */
function useCreateDemo() {
  return useAction(async () => {
    await admin('POST', '/demo');
    appsChanged();
    toast('Demo app created: everything goes to the simulator');
    navigate('/apps/demo');
  });
}

function FirstSteps(props: { onCreate: () => void }) {
  const demo = useCreateDemo();
  return html`<div class="welcome card">
    <div>
      <p class="eyebrow">Welcome to Islet</p>
      <h2>Ship Live Activities from your own server</h2>
      <p class="muted">No Apple or Google account is needed to try it: without credentials, deliveries go to the built-in simulator, and the console shows the exact payloads.</p>
      <ol class="steps-list">
        <li><strong>Create an app</strong> — it gets an App Secret for your backend.</li>
        <li><strong>Add a simulated device</strong> for an end user.</li>
        <li><strong>Start a Live Activity</strong> from one of eight templates and watch it update.</li>
      </ol>
      <p class="muted">Or see it all at once: the demo app comes with end users, simulated phones, a Live release and a running Live Activity, and the API docs' examples work on it as shipped.</p>
      ${demo.error ? html`<${Alert}>${demo.error}<//>` : ''}
      <div class="form-actions start">
        <${Button} variant="primary" onClick=${props.onCreate}>Create your first app<//>
        <${Button} busy=${demo.busy} onClick=${() => demo.run()}>Create the demo app<//>
      </div>
    </div>
    <div class="welcome-art" aria-hidden="true">
      <div class="island-demo"><span></span><b>12 min</b></div>
    </div>
  </div>`;
}

export function AppsPage() {
  const apps = useLoad(() => admin<{ apps: AppView[] }>('GET', '/apps').then((r) => r.apps), []);
  const creating = useDialogState();
  const open = creating.show;
  const demo = useCreateDemo();
  const hasDemo = apps.data?.some((a) => a.id === 'demo') ?? true;
  return html`<div class="page">
    <${PageHeader} title="Apps" subtitle="Each app has its own secrets, push credentials, end users and templates." actions=${html`${hasDemo || apps.data?.length === 0 ? '' : html`<${Button} busy=${demo.busy} onClick=${() => demo.run()}>Create the demo app<//>`}<${Button} variant="primary" onClick=${open}>New app<//>`} />
    ${demo.error ? html`<${Alert}>${demo.error}<//>` : ''}
    ${apps.error ? html`<${Alert}>${apps.error}<//>` : ''}
    ${!apps.data && apps.loading ? html`<${Spinner} />` : ''}
    ${apps.data?.length === 0 ? html`<${FirstSteps} onCreate=${open} />` : ''}
    ${apps.data && apps.data.length > 0
      ? html`<ul class="app-grid" aria-label="Apps">
          ${apps.data.map(
            (a) => html`<li class="card app-card">
              <${Link} href=${`/apps/${encodeURIComponent(a.id)}`} class="app-card-link">
                <span class="app-avatar" aria-hidden="true">${a.name.slice(0, 1).toUpperCase()}</span>
                <span class="app-card-text"><strong>${a.name}</strong><span class="mono muted">${a.id}</span></span>
              <//>
              <div class="app-card-meta">
                <${Badge} tone="blue">${a.plan}<//>
                <${ChannelBadges} app=${a} />
              </div>
              <p class="muted small">Created ${formatDateTime(a.createdAt)}${a.source === 'config' ? ' · declared in the config file' : ''}</p>
            </li>`,
          )}
        </ul>`
      : ''}
    <${CreateAppDialog} key=${creating.round} open=${creating.open} onClose=${creating.close} />
  </div>`;
}
