import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { DeliveryStatus } from '../components/deliveries';
import { LiveIndicator } from '../components/live-indicator';
import { Alert, Button, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { useLive } from '../lib/live';
import { kindLabel } from '../lib/payloads';
import { Link, navigate } from '../lib/router';
import type { Delivery } from '../lib/types';
import { platformName } from '../lib/platforms';

const PAGE = 50;
const STATUSES = ['queued', 'held', 'sending', 'sent', 'failed', 'dropped', 'superseded'];
const KINDS = ['notification', 'la_start', 'la_update', 'la_end'];
/** The filters, as named in the URL and in the API's query. */
const KEYS = ['endUserId', 'deviceId', 'templateSlug', 'activityId', 'messageId', 'kind', 'status', 'reason', 'since', 'until'] as const;
type Filters = Partial<Record<(typeof KEYS)[number], string>>;

/** `datetime-local` is local time without a zone; the API wants an instant. */
const toIso = (local: string | undefined) => (local ? new Date(local).toISOString() : undefined);

function filtersOf(params: URLSearchParams): Filters {
  return Object.fromEntries(KEYS.map((k) => [k, params.get(k) ?? '']).filter(([, v]) => v !== ''));
}

/** Every push of the app, newest first, searchable, following new sends and outcomes as they happen. */
export function DeliveriesPage(props: { appId: string; params: URLSearchParams }) {
  const id = encodeURIComponent(props.appId);
  const applied = filtersOf(props.params);
  const offset = Number(props.params.get('offset') ?? 0) || 0;
  const [draft, setDraft] = useState<Filters>(applied);
  const key = JSON.stringify([applied, offset]);
  // A link to filtered deliveries (from a delivery's page) fills the form too.
  useEffect(() => setDraft(applied), [JSON.stringify(applied)]);
  const list = useLoad(
    () =>
      admin<{ deliveries: Delivery[]; total: number }>(
        'GET',
        `/apps/${id}/deliveries${query({ ...applied, since: toIso(applied.since), until: toIso(applied.until), limit: PAGE, offset })}`,
      ),
    [props.appId, key],
  );
  useLive(list.reload);
  const go = (filters: Filters, at = 0) => navigate(`/apps/${id}/deliveries${query({ ...filters, offset: at || undefined })}`, { replace: true });
  const set = (k: keyof Filters, value: string) => setDraft({ ...draft, [k]: value });
  const setNow = (k: keyof Filters, value: string) => {
    const next = { ...draft, [k]: value };
    setDraft(next);
    go(next);
  };
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    go(draft);
  };
  const filtered = Object.keys(applied).length > 0;
  const rows = list.data?.deliveries ?? [];
  const text = (k: keyof Filters, label: string, placeholder: string) =>
    html`<label>${label}<input type="search" name=${k} class="mono" value=${draft[k] ?? ''} placeholder=${placeholder} onInput=${(e: TargetedEvent<HTMLInputElement>) => set(k, e.currentTarget.value)} /></label>`;
  return html`<div class="page">
    <${PageHeader} title="Deliveries" subtitle="One row per device and message: what was queued, what the provider or simulator answered, and why." actions=${html`<${LiveIndicator} />`} />
    <form class="filters card" role="search" aria-label="Filter deliveries" onSubmit=${submit}>
      ${text('endUserId', 'End user', 'demo-user')}
      ${text('deviceId', 'Device', 'dev_…')}
      ${text('templateSlug', 'Template', 'order-shipped')}
      ${text('activityId', 'Activity', 'la_…')}
      ${text('messageId', 'Message', 'msg_…')}
      <label>Kind
        <select name="kind" value=${draft.kind ?? ''} onChange=${(e: TargetedEvent<HTMLSelectElement>) => setNow('kind', e.currentTarget.value)}>
          <option value="">All</option>
          ${KINDS.map((k) => html`<option value=${k}>${kindLabel(k)}</option>`)}
        </select>
      </label>
      <label>Status
        <select name="status" value=${draft.status ?? ''} onChange=${(e: TargetedEvent<HTMLSelectElement>) => setNow('status', e.currentTarget.value)}>
          <option value="">All</option>
          ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
        </select>
      </label>
      ${text('reason', 'Reason contains', 'BadDeviceToken')}
      <label>From<input type="datetime-local" name="since" value=${draft.since ?? ''} onInput=${(e: TargetedEvent<HTMLInputElement>) => set('since', e.currentTarget.value)} /></label>
      <label>Until<input type="datetime-local" name="until" value=${draft.until ?? ''} onInput=${(e: TargetedEvent<HTMLInputElement>) => set('until', e.currentTarget.value)} /></label>
      <div class="filter-actions">
        <${Button} type="submit" variant="primary">Apply filters<//>
        ${filtered ? html`<${Button} variant="ghost" onClick=${() => (setDraft({}), go({}))}>Clear<//>` : ''}
      </div>
    </form>
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && rows.length === 0
      ? html`<div class="card"><${Empty} title=${filtered ? 'No delivery matches these filters' : 'No deliveries yet'}>${filtered ? 'Widen the filters or clear them.' : 'Start a Live Activity or send a notification; each device it goes to gets a row here.'}<//></div>`
      : ''}
    ${rows.length > 0
      ? html`<p class="muted small" aria-live="polite">${list.data!.total} deliver${list.data!.total === 1 ? 'y' : 'ies'}${filtered ? ' match' : ''}</p>
        <div class="card card-flush"><table class="table deliveries-table stacked">
          <caption class="sr-only">Deliveries, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">End user</th><th scope="col">Device</th><th scope="col">Via</th></tr></thead>
          <tbody>
            ${rows.map(
              (d) => html`<tr data-kind=${d.kind} data-status=${d.status} data-delivery=${d.id}>
                <td data-label="When" class="nowrap" title=${formatDateTime(d.createdAt)}><${Link} href=${`/apps/${id}/deliveries/${d.id}`} title="Open this delivery">${relativeTime(d.createdAt)}<//></td>
                <td data-label="Event">${kindLabel(d.kind)}${d.templateSlug ? html` <span class="mono small muted">${d.templateSlug}</span>` : ''}
                  ${d.activityId ? html`<div class="small"><${Link} href=${`/apps/${id}/activities/${encodeURIComponent(d.activityId)}`}>activity<//></div>` : ''}</td>
                <td data-label="Status"><${DeliveryStatus} status=${d.status} /></td>
                <td data-label="Reason" class="reason-cell">${d.reason ?? html`<span class="muted">—</span>`}</td>
                <td data-label="End user" class="mono small break">${d.endUserId ?? html`<span class="muted">deleted device</span>`}</td>
                <td data-label="Device" class="small">${d.platform ? html`<span class="platform-tag">${platformName(d.platform)}</span> ` : ''}<span class="mono break">${d.deviceId ?? '—'}</span></td>
                <td data-label="Via">${d.provider ?? '—'}${d.attempts > 1 ? html` <span class="muted small">×${d.attempts}</span>` : ''}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${(at: number) => go(applied, at)} />
  </div>`;
}
