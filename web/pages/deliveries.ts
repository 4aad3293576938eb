import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { DeliveryStatus, PayloadDetails } from '../components/deliveries';
import { Alert, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { kindLabel } from '../lib/payloads';
import { Link } from '../lib/router';
import type { Delivery } from '../lib/types';

const PAGE = 50;
const STATUSES = ['pending', 'held', 'sending', 'delivered', 'failed', 'dropped', 'superseded'];

/** Every push of the app, newest first, refreshed while the page is open. */
export function DeliveriesPage(props: { appId: string }) {
  const id = encodeURIComponent(props.appId);
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<number | null>(null);
  const list = useLoad(
    () => admin<{ deliveries: Delivery[]; total: number }>('GET', `/apps/${id}/deliveries${query({ status, limit: PAGE, offset })}`),
    [props.appId, status, offset],
    5000,
  );
  const rows = list.data?.deliveries ?? [];
  return html`<div class="page">
    <${PageHeader} title="Deliveries" subtitle="One row per device and message: what was queued, what the provider or simulator answered, and why." />
    <div class="filters" role="search" aria-label="Filter deliveries">
      <label>Status
        <select value=${status} onChange=${(e: TargetedEvent<HTMLSelectElement>) => (setStatus(e.currentTarget.value), setOffset(0))}>
          <option value="">All</option>
          ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
        </select>
      </label>
      <span class="muted small refresh-note">${list.loading ? 'Refreshing…' : 'Refreshes every 5 s'}</span>
    </div>
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && rows.length === 0
      ? html`<div class="card"><${Empty} title=${status ? `No ${status} deliveries` : 'No deliveries yet'}>Start a Live Activity or send a notification; each device it goes to gets a row here.<//></div>`
      : ''}
    ${rows.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table deliveries-table">
          <caption class="sr-only">Deliveries, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Via</th><th scope="col">Device</th><th scope="col"><span class="sr-only">Payload</span></th></tr></thead>
          <tbody>
            ${rows.map(
              (d) => html`<tr data-kind=${d.kind} data-status=${d.status}>
                  <td class="nowrap" title=${formatDateTime(d.createdAt)}>${relativeTime(d.createdAt)}</td>
                  <td>${d.activityId ? html`<${Link} href=${`/apps/${id}/activities/${encodeURIComponent(d.activityId)}`}>${kindLabel(d.kind)}<//>` : kindLabel(d.kind)}</td>
                  <td><${DeliveryStatus} status=${d.status} /></td>
                  <td class="reason-cell">${d.reason ?? html`<span class="muted">—</span>`}</td>
                  <td>${d.provider ?? '—'}${d.attempts > 1 ? html` <span class="muted small">×${d.attempts}</span>` : ''}</td>
                  <td class="nowrap">${d.platform ? html`<span class="platform-tag">${d.platform === 'ios' ? 'iOS' : 'Android'}</span> ` : ''}<span class="mono small">${d.deviceId}</span></td>
                  <td>${d.sentPayload
                    ? html`<button type="button" class="btn btn-sm btn-ghost" aria-expanded=${open === d.id} onClick=${() => setOpen(open === d.id ? null : d.id)}>${open === d.id ? 'Hide' : 'Payload'}</button>`
                    : ''}</td>
                </tr>
                ${open === d.id ? html`<tr class="payload-row"><td colspan="7"><${PayloadDetails} delivery=${d} open /></td></tr>` : ''}`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  </div>`;
}
