import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, toast } from '../components/feedback';
import { Alert, Badge, Button, Card, Details, Field, SelectField, TextField } from '../components/ui';
import { admin } from '../lib/api';
import { relativeTime } from '../lib/format';
import { useAction, useLoad } from '../lib/hooks';
import type { AppView, Channel, EndpointHealth } from '../lib/types';

/** A file picker whose text content lands in a textarea-backed value (for .p8 keys and JSON). */
function FileText(props: { label: string; accept: string; value: string; onChange: (text: string) => void; hint: string; placeholder: string }) {
  const read = async (e: TargetedEvent<HTMLInputElement>) => {
    const file = e.currentTarget.files?.[0];
    if (file) props.onChange(await file.text());
  };
  return html`<${Field}
    label=${props.label}
    hint=${props.hint}
    required
    render=${({ id, describedBy }: { id: string; describedBy?: string }) => html`<div class="file-text">
      <input type="file" accept=${props.accept} aria-label=${`${props.label}: choose a file`} onChange=${read} />
      <textarea id=${id} rows="4" class="mono" aria-describedby=${describedBy} placeholder=${props.placeholder} value=${props.value}
        onInput=${(e: TargetedEvent<HTMLTextAreaElement>) => props.onChange(e.currentTarget.value)}></textarea>
    </div>`}
  />`;
}

function ApnsForm(props: { appId: string; onDone: (app: AppView) => void }) {
  const [f, setF] = useState({ bundleId: '', teamId: '', keyId: '', key: '', environment: 'production', endpoint: '' });
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  const save = useAction(async () => {
    const { endpoint, ...rest } = f;
    props.onDone(await admin<AppView>('PUT', `/apps/${encodeURIComponent(props.appId)}/apns`, { ...rest, ...(endpoint ? { endpoint } : {}) }));
  });
  return html`<form class="stack" onSubmit=${(e: Event) => (e.preventDefault(), void save.run())}>
    ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
    <div class="grid-2">
      <${TextField} label="Bundle id" required value=${f.bundleId} onInput=${set('bundleId')} placeholder="com.example.app" mono />
      <${TextField} label="Team id" required value=${f.teamId} onInput=${set('teamId')} placeholder="TEAM123456" mono />
      <${TextField} label="Key id" required value=${f.keyId} onInput=${set('keyId')} placeholder="ABC123DEFG" mono />
      <${SelectField} label="Environment" value=${f.environment} onChange=${set('environment')} options=${[{ value: 'production', label: 'Production' }, { value: 'sandbox', label: 'Sandbox (development builds)' }]} />
    </div>
    <${FileText} label="Auth key (.p8)" accept=".p8,.pem,text/plain" value=${f.key} onChange=${set('key')} hint="The APNs auth key from your Apple developer account; stored encrypted." placeholder="-----BEGIN PRIVATE KEY-----" />
    <${TextField} label="Endpoint (optional)" value=${f.endpoint} onInput=${set('endpoint')} placeholder="https://api.push.apple.com" hint="Only to reach APNs through a proxy." mono />
    <div class="form-actions"><${Button} type="submit" variant="primary" busy=${save.busy}>Save APNs credentials<//></div>
  </form>`;
}

function FcmForm(props: { appId: string; onDone: (app: AppView) => void }) {
  const [json, setJson] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const save = useAction(async () => {
    let serviceAccount: unknown;
    try {
      serviceAccount = JSON.parse(json);
    } catch {
      throw new Error('The service account is not valid JSON.');
    }
    props.onDone(await admin<AppView>('PUT', `/apps/${encodeURIComponent(props.appId)}/fcm`, { serviceAccount, ...(endpoint ? { endpoint } : {}) }));
  });
  return html`<form class="stack" onSubmit=${(e: Event) => (e.preventDefault(), void save.run())}>
    ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
    <${FileText} label="Service account JSON" accept=".json,application/json" value=${json} onChange=${setJson} hint="From Firebase: Project settings → Service accounts → Generate new private key. Stored encrypted." placeholder='{"type": "service_account", …}' />
    <${TextField} label="Endpoint (optional)" value=${endpoint} onInput=${setEndpoint} placeholder="https://fcm.googleapis.com" hint="Only to reach FCM through a proxy." mono />
    <div class="form-actions"><${Button} type="submit" variant="primary" busy=${save.busy}>Save FCM credentials<//></div>
  </form>`;
}

const HEALTH_TONE = { healthy: 'green', degraded: 'amber', down: 'red' } as const;

/** Connection health of each provider endpoint the app sent to: down (held, probing), degraded, or healthy. */
function HealthLines(props: { provider: 'APNs' | 'FCM'; health: EndpointHealth[] }) {
  return html`${props.health.map(
    (h) => html`<div class="endpoint-health" data-state=${h.state}>
      <${Badge} tone=${HEALTH_TONE[h.state]}>${h.state}<//> <span class="mono small">${h.endpoint}</span>
      ${h.state === 'down'
        ? html`<${Alert} tone="warn">
            <strong>${props.provider} is unreachable</strong> (since ${relativeTime(h.since)}).
            ${h.held === 1 ? '1 delivery waits' : `${h.held} deliveries wait`} without spending attempts; one probe goes
            ${h.nextProbeAt ? `at ${new Date(h.nextProbeAt).toLocaleTimeString()}` : 'soon'}, and everything goes as soon as it answers.
            <div class="mono small">${h.reason}</div>
          <//>`
        : h.state === 'degraded'
          ? html`<p class="muted small">${h.reason}${h.slowUntil ? ` · asked to wait until ${new Date(h.slowUntil).toLocaleTimeString()}` : ''}</p>`
          : ''}
    </div>`,
  )}`;
}

function ChannelRow(props: {
  platform: 'iOS' | 'Android';
  provider: 'APNs' | 'FCM';
  channel: Channel;
  health: EndpointHealth[];
  onEdit: () => void;
  onRemove: () => void;
  removing: boolean;
}) {
  const c = props.channel;
  const simulated = c.transport === 'simulator';
  const facts: [string, string][] = simulated
    ? []
    : props.provider === 'APNs'
      ? [['Bundle id', c.bundleId ?? ''], ['Team / key', `${c.teamId} / ${c.keyId}`], ['Environment', c.environment ?? '']]
      : [['Project', c.projectId ?? ''], ['Service account', c.clientEmail ?? '']];
  return html`<div class="channel">
    <div class="channel-head">
      <div>
        <h3>${props.platform} <span class="muted">· ${props.provider}</span></h3>
        <div class="badges">
          <${Badge} tone=${simulated ? 'violet' : 'blue'}>${simulated ? 'simulator' : props.provider}<//>
          <${Badge}>${c.status}<//>
        </div>
      </div>
      <div class="card-actions">
        <${Button} small onClick=${props.onEdit}>${simulated ? `Upload ${props.provider} credentials` : 'Replace'}<//>
        ${simulated ? '' : html`<${Button} small variant="ghost" busy=${props.removing} onClick=${props.onRemove}>Remove<//>`}
      </div>
    </div>
    ${c.status === 'paused'
      ? html`<${Alert} tone="warn"><strong>Delivery is paused.</strong> ${props.provider} refused the credentials: <span class="mono">${c.pausedReason}</span>. Upload valid credentials to resume.<//>`
      : ''}
    ${simulated ? '' : html`<${HealthLines} provider=${props.provider} health=${props.health} />`}
    ${simulated
      ? html`<p class="muted small">No credentials: ${props.platform} deliveries go to the built-in simulator, which records the exact payload.</p>`
      : html`<${Details} items=${facts} />`}
  </div>`;
}

/** The delivery channels of an app: simulator or real provider, status and pause reason. */
export function ChannelsCard(props: { app: AppView; onChange: (app: AppView) => void }) {
  const [editing, setEditing] = useState<'apns' | 'fcm' | null>(null);
  const path = `/apps/${encodeURIComponent(props.app.id)}`;
  const health = useLoad(() => admin<{ endpoints: EndpointHealth[] }>('GET', `${path}/endpoints`), [path], 5000);
  const of = (provider: 'apns' | 'fcm') => (health.data?.endpoints ?? []).filter((c) => c.provider === provider);
  const remove = useAction(async (which: 'apns' | 'fcm') => {
    props.onChange(await admin<AppView>('DELETE', `${path}/${which}`));
    toast(`${which === 'apns' ? 'APNs' : 'FCM'} credentials removed; the simulator takes over`);
  });
  const done = (app: AppView) => {
    props.onChange(app);
    toast('Credentials saved');
    setEditing(null);
  };
  return html`<${Card} title="Delivery channels" description="Where pushes go for each platform.">
    ${remove.error ? html`<${Alert}>${remove.error}<//>` : ''}
    <div class="channels">
      <${ChannelRow} platform="iOS" provider="APNs" channel=${props.app.channels.apns} health=${of('apns')} onEdit=${() => setEditing('apns')} onRemove=${() => remove.run('apns')} removing=${remove.busy} />
      <${ChannelRow} platform="Android" provider="FCM" channel=${props.app.channels.fcm} health=${of('fcm')} onEdit=${() => setEditing('fcm')} onRemove=${() => remove.run('fcm')} removing=${remove.busy} />
    </div>
    <${Dialog} open=${editing !== null} wide title=${editing === 'apns' ? 'APNs credentials' : 'FCM credentials'} onClose=${() => setEditing(null)}>
      ${editing === 'apns' ? html`<${ApnsForm} appId=${props.app.id} onDone=${done} />` : ''}
      ${editing === 'fcm' ? html`<${FcmForm} appId=${props.app.id} onDone=${done} />` : ''}
    <//>
  <//>`;
}
