import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Dialog, toast } from '../components/feedback';
import { appsChanged } from '../components/shell';
import { StartActivityAction } from '../components/start-action';
import { Alert, Badge, Button, Card, PageHeader, SelectField, Spinner, TextField } from '../components/ui';
import { admin } from '../lib/api';
import { formatNumber } from '../lib/format';
import { useAction, useDialogState, useLoad } from '../lib/hooks';
import { plural } from '../lib/audience';
import { useLive } from '../lib/live';
import { LiveIndicator } from '../components/live-indicator';
import { Link, navigate } from '../lib/router';
import type { AppView, Usage } from '../lib/types';
import { ChannelsCard } from './app-channels';
import { WebPushCard } from '../components/web-push-card';
import { DeliveryLimitsCard } from '../components/delivery-limits-card';
import { CredentialsCard } from './app-credentials';
import { planLabel, usePlans } from './apps';

/** Counts at a glance; each one is optional, so a missing endpoint only hides its tile. */
function Stats(props: { appId: string }) {
  const id = encodeURIComponent(props.appId);
  const stats = useLoad(async () => {
    const settle = <T>(p: Promise<T>) => p.then((v) => v, () => undefined);
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const count = (q: string) => settle(admin<{ total: number }>('GET', `/apps/${id}/deliveries?limit=1&since=${since}${q}`));
    const [users, usage, sent, failed] = await Promise.all([
      settle(admin<{ total: number }>('GET', `/apps/${id}/end-users?limit=1`)),
      settle(admin<Usage>('GET', `/apps/${id}/usage`)),
      count(''),
      count('&status=failed'),
    ]);
    return { users: users?.total, active: usage?.activeActivities, usage, sent: sent?.total, failed: failed?.total };
  }, [props.appId]);
  useLive(stats.reload);
  const tile = (label: string, value: string | undefined, href: string) =>
    value === undefined ? '' : html`<${Link} href=${href} class="stat"><span class="stat-value">${value}</span><span class="stat-label">${label}</span><//>`;
  const s = stats.data;
  return html`<div class="stats" aria-label="At a glance">
    ${tile('End users', s?.users === undefined ? undefined : formatNumber(s.users), `/apps/${id}/devices`)}
    ${tile('Active Live Activities', s?.active === undefined ? undefined : formatNumber(s.active), `/apps/${id}/activities?state=Active`)}
    ${tile(
      s?.usage?.liveActivities === false ? 'Minutes this month · no Live Activities on this plan' : 'Minutes this month',
      s?.usage ? `${formatNumber(s.usage.minutesUsed)}${s.usage.quota === null ? '' : ` / ${formatNumber(s.usage.quota)}`}` : undefined,
      `/apps/${id}/usage`,
    )}
    ${tile('Deliveries, last 24 h', s?.sent === undefined ? undefined : formatNumber(s.sent), `/apps/${id}/deliveries`)}
    ${tile('Failed, last 24 h', s?.failed === undefined ? undefined : formatNumber(s.failed), `/apps/${id}/deliveries?status=failed`)}
  </div>`;
}

function SettingsCard(props: { app: AppView; onChange: (app: AppView) => void }) {
  const plans = usePlans();
  const [name, setName] = useState(props.app.name);
  const [plan, setPlan] = useState(props.app.plan);
  const [zone, setZone] = useState(props.app.defaultTimeZone);
  const budget = props.app.liveActivityBudget;
  const [perHour, setPerHour] = useState(String(budget.priority10PerHour));
  const [frequent, setFrequent] = useState(String(budget.frequentPriority10PerHour));
  useEffect(() => {
    setName(props.app.name);
    setPlan(props.app.plan);
    setZone(props.app.defaultTimeZone);
    setPerHour(String(budget.priority10PerHour));
    setFrequent(String(budget.frequentPriority10PerHour));
  }, [props.app.name, props.app.plan, props.app.defaultTimeZone, budget.priority10PerHour, budget.frequentPriority10PerHour]);
  const budgetDirty = perHour.trim() !== String(budget.priority10PerHour) || frequent.trim() !== String(budget.frequentPriority10PerHour);
  const dirty = name.trim() !== props.app.name || plan !== props.app.plan || zone.trim() !== props.app.defaultTimeZone || budgetDirty;
  const save = useAction(async () => {
    // Sent as typed: the server answers 400 naming the field for a value that is not a whole number from 0 to 600.
    const liveActivityBudget = budgetDirty ? { priority10PerHour: Number(perHour.trim()), frequentPriority10PerHour: Number(frequent.trim()) } : undefined;
    const app = await admin<AppView>('PATCH', `/apps/${encodeURIComponent(props.app.id)}`, { name: name.trim(), plan, defaultTimeZone: zone.trim(), liveActivityBudget });
    props.onChange(app);
    appsChanged();
    toast('Settings saved');
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (dirty && name.trim()) void save.run();
  };
  return html`<${Card} title="Settings">
    <form class="stack" onSubmit=${submit}>
      ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
      ${props.app.source === 'config' ? html`<${Alert} tone="info">This app is declared in the config file: changes made here are overwritten at the next start.<//>` : ''}
      <div class="grid-2">
        <${TextField} label="Name" required value=${name} onInput=${setName} />
        <${SelectField} label="Plan" value=${plan} onChange=${setPlan} options=${(plans.data ?? []).map((p) => ({ value: p.name, label: planLabel(p) }))} />
        <${TextField} label="Default time zone" mono value=${zone} onInput=${setZone} hint="IANA name (Europe/Vienna): a send at a local time reaches devices that reported no zone at that time here." />
        <${TextField} label="Priority-10 updates per hour" type="number" value=${perHour} onInput=${setPerHour} hint='Per Live Activity per iPhone, for priority "auto": past it, updates go at priority 5 so iOS does not drop them.' />
        <${TextField} label="…with frequent updates allowed" type="number" value=${frequent} onInput=${setFrequent} hint="The same on an iPhone whose app reported frequentPushesEnabled." />
      </div>
      <div class="form-actions"><${Button} type="submit" variant="primary" disabled=${!dirty} busy=${save.busy}>Save changes<//></div>
    </form>
  <//>`;
}

/** What deleting the app takes with it, counted by the server when the dialog opens. */
function DeletionConsequence(props: { appId: string }) {
  const id = encodeURIComponent(props.appId);
  const counts = useLoad(async () => {
    const [users, devices, usage] = await Promise.all([
      admin<{ total: number }>('GET', `/apps/${id}/end-users?limit=1`),
      admin<{ total: number }>('GET', `/apps/${id}/devices?limit=1`),
      admin<Usage>('GET', `/apps/${id}/usage`).catch(() => undefined),
    ]);
    return { users: users.total, devices: devices.total, active: usage?.activeActivities ?? 0 };
  }, [props.appId]);
  if (counts.error) return html`<${Alert}>${counts.error}<//>`;
  if (!counts.data) return html`<${Spinner} label="Counting what is deleted…" />`;
  const c = counts.data;
  const active = c.active > 0 ? html`<strong>${plural(c.active, 'active Live Activity', 'active Live Activities')}</strong> (no longer updated), ` : '';
  return html`<p>This deletes <strong>${plural(c.users, 'end user')}</strong> with <strong>${plural(c.devices, 'device')}</strong>, ${active}every release and the delivery history. The App Secret stops working at once. This cannot be undone.</p>`;
}

function DangerCard(props: { app: AppView }) {
  const dialog = useDialogState();
  const [typed, setTyped] = useState('');
  const remove = useAction(async () => {
    await admin('DELETE', `/apps/${encodeURIComponent(props.app.id)}`);
    appsChanged();
    toast(`App “${props.app.name}” deleted`);
    navigate('/');
  });
  const open = () => (setTyped(''), remove.setError(undefined), dialog.show());
  return html`<${Card} title="Delete this app" class="danger-card" description="Deletes its secrets, credentials, end users, devices, activities, releases and delivery history. This cannot be undone.">
    <div class="form-actions"><${Button} variant="danger" onClick=${open}>Delete app…<//></div>
    <${Dialog} open=${dialog.open} title=${`Delete ${props.app.name}?`} onClose=${dialog.close}>
      <form class="stack" onSubmit=${(e: Event) => (e.preventDefault(), typed === props.app.id && void remove.run())}>
        ${remove.error ? html`<${Alert}>${remove.error}<//>` : ''}
        <${DeletionConsequence} key=${dialog.round} appId=${props.app.id} />
        <${TextField} label=${`Type the app id “${props.app.id}” to confirm`} value=${typed} onInput=${setTyped} mono />
        <div class="form-actions">
          <${Button} onClick=${dialog.close}>Cancel<//>
          <${Button} type="submit" variant="danger" disabled=${typed !== props.app.id} busy=${remove.busy}>Delete forever<//>
        </div>
      </form>
    <//>
  <//>`;
}

export function AppOverviewPage(props: { appId: string }) {
  const app = useLoad(() => admin<AppView>('GET', `/apps/${encodeURIComponent(props.appId)}`), [props.appId]);
  const [current, setCurrent] = useState<AppView | undefined>();
  useEffect(() => setCurrent(app.data), [app.data]);
  if (app.error && !current) return html`<div class="page"><${Alert}>${app.error}<//></div>`;
  if (!current) return html`<${Spinner} />`;
  const id = encodeURIComponent(current.id);
  return html`<div class="page">
    <${PageHeader}
      title=${current.name}
      subtitle=${html`<span class="mono">${current.id}</span> · <${Badge} tone="blue">${current.plan}<//>`}
      actions=${html`<${LiveIndicator} /><${Link} href=${`/apps/${id}/devices`} class="btn btn-secondary">Add a device<//>
        <${StartActivityAction} key=${current.plan} appId=${current.id} />`}
    />
    <${Stats} appId=${current.id} />
    <div class="columns">
      <div class="stack-lg">
        <${SettingsCard} app=${current} onChange=${setCurrent} />
        <${DeliveryLimitsCard} app=${current} onChange=${setCurrent} />
        <${CredentialsCard} appId=${current.id} />
      </div>
      <div class="stack-lg">
        <${ChannelsCard} app=${current} onChange=${setCurrent} />
        <${WebPushCard} appId=${current.id} />
        <${DangerCard} app=${current} />
      </div>
    </div>
  </div>`;
}
