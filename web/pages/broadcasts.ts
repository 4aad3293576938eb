import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { Alert, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';

const PAGE = 50;

/** A broadcast as the admin API lists it (src/modules/broadcasts/broadcasts.view.ts). */
interface Broadcast {
  id: string;
  templateSlug: string;
  state: 'Active' | 'Ended';
  channel: { id?: string; environment: string; state: string; reason?: string };
  topic: string;
  updatesSent: number;
  subscribersStarted: number;
  endReason?: string;
  startedAt: string;
}

/** Broadcast Live Activities of an app: one update for a whole audience through an APNs channel and an FCM topic. */
export function BroadcastsPage(props: { appId: string }) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () => admin<{ broadcasts: Broadcast[]; total: number }>('GET', `/apps/${encodeURIComponent(props.appId)}/broadcasts${query({ limit: PAGE, offset })}`),
    [props.appId, offset],
    10000,
  );
  const rows = list.data?.broadcasts ?? [];
  return html`<div class="page">
    <${PageHeader} title="Broadcasts" subtitle="One Live Activity for a whole audience: each update is one request to an APNs channel (iOS 18+) and one FCM topic message." />
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && rows.length === 0
      ? html`<div class="card"><${Empty} title="No broadcasts yet">Create one with <code>POST /api/apps/${props.appId}/broadcasts</code>.<//></div>`
      : ''}
    ${rows.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table broadcasts-table stacked">
          <caption class="sr-only">Broadcasts, newest first</caption>
          <thead><tr><th scope="col">Broadcast</th><th scope="col">State</th><th scope="col">APNs channel</th><th scope="col">FCM topic</th><th scope="col">Subscribers started</th><th scope="col">Updates sent</th><th scope="col">Started</th></tr></thead>
          <tbody>
            ${rows.map(
              (b) => html`<tr data-id=${b.id}>
                <td data-label="Broadcast"><div class="mono small">${b.id}</div><div class="muted small">${b.templateSlug}</div></td>
                <td data-label="State" class="small">${b.state}${b.endReason ? html`<div class="muted">${b.endReason}</div>` : ''}</td>
                <td data-label="APNs channel" class="small"><div class="mono break">${b.channel.id ?? '—'}</div><div class="muted">${b.channel.environment} · ${b.channel.state}</div>${b.channel.reason ? html`<div class="warn">${b.channel.reason}</div>` : ''}</td>
                <td data-label="FCM topic" class="mono small break">${b.topic}</td>
                <td data-label="Subscribers" class="num">${b.subscribersStarted}</td>
                <td data-label="Updates" class="num">${b.updatesSent}</td>
                <td data-label="Started" class="nowrap small" title=${formatDateTime(b.startedAt)}>${relativeTime(b.startedAt)}</td>
              </tr>`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  </div>`;
}
