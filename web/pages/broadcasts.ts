import { html } from 'htm/preact';
import { useId, useState } from 'preact/hooks';
import { CreateBroadcastDialog, EndBroadcastDialog, UpdateBroadcastDialog, type Broadcast } from '../components/broadcast-forms';
import { usePlanAllowsActivities } from '../components/start-action';
import { Alert, Button, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useDialogState, useLoad } from '../lib/hooks';

const PAGE = 50;

/** "Create a broadcast", or on a plan without Live Activities the disabled button and why. */
function CreateAction(props: { appId: string; onClick: () => void }) {
  const { allowed, plan } = usePlanAllowsActivities(props.appId);
  const reasonId = useId();
  if (allowed !== false) return html`<${Button} variant="primary" onClick=${props.onClick}>Create a broadcast<//>`;
  return html`<span class="disabled-action">
    <${Button} variant="primary" disabled describedBy=${reasonId}>Create a broadcast<//>
    <span class="muted small" id=${reasonId}>No Live Activities on the ${plan} plan</span>
  </span>`;
}

/** Broadcast Live Activities of an app: one update for a whole audience through an APNs channel and an FCM topic. */
export function BroadcastsPage(props: { appId: string }) {
  const [offset, setOffset] = useState(0);
  const creating = useDialogState();
  const [acting, setActing] = useState<{ kind: 'update' | 'end'; broadcast: Broadcast; round: number } | undefined>();
  const list = useLoad(
    () => admin<{ broadcasts: Broadcast[]; total: number }>('GET', `/apps/${encodeURIComponent(props.appId)}/broadcasts${query({ limit: PAGE, offset })}`),
    [props.appId, offset],
    10000,
  );
  const rows = list.data?.broadcasts ?? [];
  const act = (kind: 'update' | 'end', broadcast: Broadcast) => setActing({ kind, broadcast, round: (acting?.round ?? 0) + 1 });
  const dialog = { appId: props.appId, open: true, onClose: () => setActing(undefined), onDone: () => void list.reload() };
  return html`<div class="page">
    <${PageHeader}
      title="Broadcasts"
      subtitle="One Live Activity for a whole audience: each update is one request to an APNs channel (iOS 18+) and one FCM topic message."
      actions=${html`<${CreateAction} appId=${props.appId} onClick=${creating.show} />`}
    />
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && rows.length === 0
      ? html`<div class="card"><${Empty} title="No broadcasts yet">Create one here or with <code>POST /api/apps/${props.appId}/broadcasts</code>.<//></div>`
      : ''}
    ${rows.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table broadcasts-table stacked">
          <caption class="sr-only">Broadcasts, newest first</caption>
          <thead><tr><th scope="col">Broadcast</th><th scope="col">State</th><th scope="col">APNs channel</th><th scope="col">FCM topic</th><th scope="col">Subscribers started</th><th scope="col">Updates sent</th><th scope="col">Started</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${rows.map(
              (b) => html`<tr data-id=${b.id}>
                <td data-label="Broadcast"><div class="mono small break">${b.id}</div><div class="muted small">${b.templateSlug}</div></td>
                <td data-label="State" class="small">${b.state}${b.endReason ? html`<div class="muted">${b.endReason}</div>` : ''}</td>
                <td data-label="APNs channel" class="small"><div class="mono break">${b.channel.id ?? '—'}</div><div class="muted">${b.channel.environment} · ${b.channel.state}</div>${b.channel.reason ? html`<div class="warn">${b.channel.reason}</div>` : ''}</td>
                <td data-label="FCM topic" class="mono small break">${b.topic}</td>
                <td data-label="Subscribers" class="num">${b.subscribersStarted}</td>
                <td data-label="Updates" class="num">${b.updatesSent}</td>
                <td data-label="Started" class="nowrap small" title=${formatDateTime(b.startedAt)}>${relativeTime(b.startedAt)}</td>
                <td data-label="" class="row-actions">${b.state === 'Active'
                  ? html`<${Button} small label=${`Update ${b.id}`} onClick=${() => act('update', b)}>Update<//> <${Button} small variant="ghost" label=${`End ${b.id}`} onClick=${() => act('end', b)}>End<//>`
                  : ''}</td>
              </tr>`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
    <${CreateBroadcastDialog} key=${creating.round} appId=${props.appId} open=${creating.open} onClose=${creating.close} onDone=${() => void list.reload()} />
    ${acting?.kind === 'update' ? html`<${UpdateBroadcastDialog} key=${acting.round} broadcast=${acting.broadcast} ...${dialog} />` : ''}
    ${acting?.kind === 'end' ? html`<${EndBroadcastDialog} key=${acting.round} broadcast=${acting.broadcast} ...${dialog} />` : ''}
  </div>`;
}
