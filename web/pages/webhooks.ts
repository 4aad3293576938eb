import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from '../../src/modules/webhooks/webhooks.events';
import { Dialog, toast } from '../components/feedback';
import { Alert, Badge, Button, Card, Checkbox, CopyButton, Empty, PageHeader, Pager, Spinner, TextField } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useAction, useLoad } from '../lib/hooks';

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
}

interface Attempt {
  id: number;
  eventId: string;
  eventType: string;
  attempt: number;
  at: string;
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

const PAGE = 50;

/** The app's webhook endpoints: add one (its secret shown once), test, enable, rotate, delete, and see every attempt. */
export function WebhooksPage(props: { appId: string }) {
  const base = `/apps/${encodeURIComponent(props.appId)}/webhooks`;
  const [selected, setSelected] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const list = useLoad(() => admin<{ webhooks: Endpoint[] }>('GET', base), [props.appId], 10000);
  const endpoints = list.data?.webhooks ?? [];
  const current = endpoints.find((e) => e.id === selected) ?? endpoints[0];

  const act = useAction(async (what: 'test' | 'toggle' | 'rotate' | 'delete', e: Endpoint) => {
    const at = `${base}/${encodeURIComponent(e.id)}`;
    if (what === 'test') {
      await admin('POST', `${at}/test`);
      toast('Test event queued: its attempt appears below');
    } else if (what === 'toggle') {
      await admin('PATCH', at, { enabled: !e.enabled });
      toast(e.enabled ? 'Endpoint disabled' : 'Endpoint enabled');
    } else if (what === 'rotate') {
      const res = await admin<{ secret: string }>('POST', `${at}/secret`);
      setSecret({ title: 'New signing secret', value: res.secret });
    } else {
      await admin('DELETE', at);
      toast('Endpoint deleted');
    }
    list.reload();
  });

  return html`<div class="page">
    <${PageHeader}
      title="Webhooks"
      subtitle="Islet posts what happens (activities started and ended, failed deliveries, refused tokens, quota) to your endpoints, signed as Standard Webhooks."
      actions=${html`<${Button} variant="primary" onClick=${() => setAdding(true)}>Add endpoint<//>`}
    />
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${act.error ? html`<${Alert}>${act.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && endpoints.length === 0
      ? html`<div class="card"><${Empty} title="No webhook endpoints" action=${html`<${Button} variant="primary" onClick=${() => setAdding(true)}>Add endpoint<//>`}>
          Add the URL of your backend; each event arrives as <code>{type, timestamp, data}</code> with <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers.
        <//></div>`
      : ''}
    ${endpoints.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table webhooks-table">
          <caption class="sr-only">Webhook endpoints</caption>
          <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${endpoints.map(
              (e) => html`<tr data-endpoint=${e.id} aria-selected=${current?.id === e.id ? 'true' : 'false'}>
                <td class="break"><button type="button" class="linklike mono small" onClick=${() => setSelected(e.id)}>${e.url}</button>${e.description ? html`<div class="muted small">${e.description}</div>` : ''}</td>
                <td class="small">${e.events ? e.events.join(', ') : 'all events'}</td>
                <td>${e.enabled
                  ? e.failingSince
                    ? html`<${Badge} tone="amber" title=${`Every attempt failed since ${formatDateTime(e.failingSince)}`}>failing<//>`
                    : html`<${Badge} tone="green">enabled<//>`
                  : html`<${Badge} tone="red" title=${e.disabledReason ?? 'Disabled by hand'}>disabled<//>${e.disabledReason ? html`<div class="muted small">${e.disabledReason}</div>` : ''}`}</td>
                <td class="nowrap">
                  <${Button} small variant="ghost" disabled=${!e.enabled} onClick=${() => act.run('test', e)}>Send test<//>
                  <${Button} small variant="ghost" onClick=${() => act.run('toggle', e)}>${e.enabled ? 'Disable' : 'Enable'}<//>
                  <${Button} small variant="ghost" onClick=${() => act.run('rotate', e)} label=${`Rotate the secret of ${e.url}`}>Rotate secret<//>
                  <${Button} small variant="danger" onClick=${() => confirm(`Delete the endpoint ${e.url} and its queued events?`) && act.run('delete', e)}>Delete<//>
                </td>
              </tr>`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
    ${current ? html`<${Attempts} key=${current.id} base=${`${base}/${encodeURIComponent(current.id)}`} url=${current.url} />` : ''}
    <${AddEndpoint} open=${adding} base=${base} onClose=${() => setAdding(false)} onCreated=${(value: string) => (setAdding(false), setSecret({ title: 'Endpoint added', value }), list.reload())} />
    <${Dialog} open=${secret !== null} title=${secret?.title ?? ''} onClose=${() => setSecret(null)}>
      <p>The signing secret, shown this once: verify each request with it (for example <code>new Webhook(secret).verify(body, headers)</code> from the <code>standardwebhooks</code> package).${secret?.title === 'New signing secret' ? ' The previous secret keeps signing too for 24 hours.' : ''}</p>
      <div class="secret-value"><code class="mono secret" aria-label="Signing secret">${secret?.value}</code>${secret ? html`<${CopyButton} text=${secret.value} label="Copy the signing secret" />` : ''}</div>
      <div class="form-actions"><${Button} variant="primary" onClick=${() => setSecret(null)}>Done<//></div>
    <//>
  </div>`;
}

/** The posts to one endpoint, newest first, refreshed while the page is open. */
function Attempts(props: { base: string; url: string }) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => admin<{ attempts: Attempt[]; total: number }>('GET', `${props.base}/attempts${query({ limit: PAGE, offset })}`), [props.base, offset], 5000);
  const rows = list.data?.attempts ?? [];
  return html`<${Card} title="Attempts" description=${html`Every post to <span class="mono">${props.url}</span>; failures are retried 5 s, 5 min, 30 min, 2 h, 5 h and 10 h later.`}>
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${list.data && rows.length === 0 ? html`<${Empty} title="No attempts yet">Send a test event, or wait for the next event.<//>` : ''}
    ${rows.length > 0
      ? html`<div class="table-wrap"><table class="table attempts-table">
          <caption class="sr-only">Attempts, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Result</th><th scope="col">Time</th></tr></thead>
          <tbody>
            ${rows.map(
              (a) => html`<tr data-ok=${a.ok ? 'true' : 'false'}>
                <td class="nowrap" title=${formatDateTime(a.at)}>${relativeTime(a.at)}</td>
                <td><span class="mono small">${a.eventType}</span> <span class="muted small mono">${a.eventId}</span></td>
                <td>${a.attempt}</td>
                <td>${a.ok ? html`<${Badge} tone="green">${String(a.responseStatus)}<//>` : html`<${Badge} tone="red">failed<//> <span class="small">${a.error}</span>`}</td>
                <td class="small">${a.durationMs} ms</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  <//>`;
}

function AddEndpoint(props: { open: boolean; base: string; onClose: () => void; onCreated: (secret: string) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const save = useAction(async () => {
    const res = await admin<{ secret: string }>('POST', props.base, { url, ...(description ? { description } : {}), ...(events.length ? { events } : {}) });
    setUrl('');
    setDescription('');
    setEvents([]);
    props.onCreated(res.secret);
  });
  const toggle = (type: string, on: boolean) => setEvents(on ? [...events, type] : events.filter((e) => e !== type));
  return html`<${Dialog} open=${props.open} title="Add a webhook endpoint" onClose=${props.onClose} wide>
    <form onSubmit=${(e: TargetedEvent<HTMLFormElement>) => (e.preventDefault(), save.run())}>
      <${TextField} label="URL" value=${url} onInput=${setUrl} required mono placeholder="https://backend.example.com/islet-events" hint="https, on a public address." />
      <${TextField} label="Description" value=${description} onInput=${setDescription} />
      <fieldset><legend>Events (none ticked: all)</legend>
        ${WEBHOOK_EVENT_TYPES.map((type) => html`<${Checkbox} label=${type} hint=${WEBHOOK_EVENTS[type]} checked=${events.includes(type)} onChange=${(on: boolean) => toggle(type, on)} />`)}
      </fieldset>
      ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${save.busy}>Add endpoint<//>
      </div>
    </form>
  <//>`;
}
