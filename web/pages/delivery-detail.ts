import { html } from 'htm/preact';
import { DeliveryStatus, PayloadDetails } from '../components/deliveries';
import { LiveIndicator } from '../components/live-indicator';
import { Alert, Badge, Card, Details, PageHeader, Spinner } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { useLive } from '../lib/live';
import { kindLabel } from '../lib/payloads';
import { Link } from '../lib/router';
import type { DeliveryDetail } from '../lib/types';
import { platformName } from '../lib/platforms';

const TOKEN_KINDS: Record<string, string> = {
  apns_device: 'APNs device token',
  apns_push_to_start: 'APNs push-to-start token',
  apns_activity: "APNs token of this activity's instance",
  fcm_registration: 'FCM registration token',
};

/** One delivery in full: what was queued, each attempt, the exact request sent, and the token it went to. */
export function DeliveryDetailPage(props: { appId: string; deliveryId: string }) {
  const id = encodeURIComponent(props.appId);
  const delivery = useLoad(() => admin<DeliveryDetail>('GET', `/apps/${id}/deliveries/${encodeURIComponent(props.deliveryId)}`), [props.appId, props.deliveryId]);
  useLive(delivery.reload);
  const d = delivery.data;
  if (delivery.error && !d) return html`<div class="page"><${Alert}>${delivery.error}<//></div>`;
  if (!d) return html`<${Spinner} />`;
  const filter = (params: Record<string, string>) => `/apps/${id}/deliveries${query(params)}`;
  const attempts = [
    ...d.earlierAttempts.map((a) => ({ n: a.attempt, at: a.at, outcome: html`<${Badge} tone="amber">retried<//>`, reason: a.reason, providerId: a.providerId })),
    ...(d.attempts > 0 && d.provider ? [{ n: d.attempts, at: d.updatedAt, outcome: html`<${DeliveryStatus} status=${d.status} />`, reason: d.reason, providerId: d.providerId }] : []),
  ];
  return html`<div class="page">
    <${PageHeader}
      back=${html`<${Link} href=${`/apps/${id}/deliveries`}>← Deliveries<//>`}
      title=${html`${kindLabel(d.kind)} to ${d.endUserId ?? 'a deleted device'} <${DeliveryStatus} status=${d.status} />`}
      subtitle=${html`Delivery <span class="mono">${d.id}</span>${d.templateSlug ? html` · template <span class="mono">${d.templateSlug}</span>` : ''}`}
      actions=${html`<${LiveIndicator} />`}
    />
    <div class="columns">
      <div class="stack-lg">
        <${Card} title="Details">
          <${Details}
            items=${[
              ['Status', html`<${DeliveryStatus} status=${d.status} />${d.reason ? html`<div class="small reason">${d.reason}</div>` : ''}`],
              ['End user', d.endUserId ? html`<${Link} href=${filter({ endUserId: d.endUserId })} class="mono">${d.endUserId}<//>` : '—'],
              ['Device', html`${d.platform ? html`<span class="platform-tag">${platformName(d.platform)}</span> ` : ''}${d.deviceId ? html`<${Link} href=${filter({ deviceId: d.deviceId })} class="mono break">${d.deviceId}<//>` : '—'}`],
              ['Activity', d.activityId ? html`<${Link} href=${`/apps/${id}/activities/${encodeURIComponent(d.activityId)}`} class="mono break">${d.activityId}<//>` : '—'],
              ['Via', d.provider ?? 'not sent yet'],
              ['Provider id', d.providerId ? html`<span class="mono break">${d.providerId}</span>` : '—'],
              ['Queued', formatDateTime(d.createdAt)],
              ['Last change', formatDateTime(d.updatedAt)],
              ...(d.status === 'queued' ? [['Next attempt', formatDateTime(d.nextAttemptAt)] as [string, string]] : []),
            ]}
          />
        <//>
        <${Card} title="Attempts" description="Each time it was sent; a retried attempt is followed by the next one after a back-off.">
          ${attempts.length === 0
            ? html`<p class="muted">${d.status === 'held' ? 'Not sent yet: it is held (see the reason).' : 'Not sent.'}</p>`
            : html`<ol class="attempts">
                ${attempts.map(
                  (a) => html`<li><strong>Attempt ${a.n}</strong> ${a.outcome} <span class="muted small">${formatDateTime(a.at)}</span>
                    ${a.reason ? html`<div class="small reason">${a.reason}</div>` : ''}
                    ${a.providerId ? html`<div class="muted small">Provider id <span class="mono">${a.providerId}</span></div>` : ''}</li>`,
                )}
              </ol>`}
        <//>
        <${Card} title="Token" description="The token ledger entry this delivery went to: whether providers still take it, and since when.">
          ${d.token
            ? html`<${Details}
                items=${[
                  ['Kind', TOKEN_KINDS[d.token.kind] ?? d.token.kind],
                  ['State', html`<${Badge} tone=${d.token.state === 'active' ? 'green' : 'red'}>${d.token.state === 'active' ? 'valid' : 'invalid'}<//>${d.token.invalidReason ? html`<div class="small reason">${d.token.invalidReason}</div>` : ''}`],
                  ['Environment', d.token.environment ?? "the app's default"],
                  ['Reported', formatDateTime(d.token.reportedAt)],
                  ...(d.token.invalidatedAt ? [['Invalidated', formatDateTime(d.token.invalidatedAt)] as [string, string]] : []),
                  ['Ledger id', html`<span class="mono">${d.token.id}</span>`],
                ]}
              />`
            : html`<p class="muted">No token yet: an iPhone's update waits for the activity token that device reports.</p>`}
        <//>
      </div>
      <div class="stack-lg">
        <${Card} title="Request sent" description=${d.provider === 'simulator' ? 'What would have gone to Apple or Google; the simulator recorded it.' : 'Exactly as sent on the last attempt.'}>
          ${d.sentPayload ? html`<${PayloadDetails} delivery=${d} open />` : html`<p class="muted">Nothing sent yet.</p>`}
        <//>
        <${Card} title="What was queued" description="The event before it was shaped for a provider.">
          <pre class="code"><code>${JSON.stringify(d.content, null, 2)}</code></pre>
        <//>
      </div>
    </div>
  </div>`;
}
