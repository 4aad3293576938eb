import { html } from 'htm/preact';
import { formatDateTime, formatTime } from '../lib/format';
import { chronological, kindLabel, pushPriority, recordedRequest } from '../lib/payloads';
import type { Delivery } from '../lib/types';
import { Badge } from './ui';
import { platformName } from '../lib/platforms';

/** The exact request a delivery sent (the simulator records it), folded away until asked for. */
export function PayloadDetails(props: { delivery: Delivery; open?: boolean }) {
  const request = recordedRequest(props.delivery.sentPayload);
  if (!request) return null;
  const head = [request.method && request.url ? `${request.method} ${request.url}` : '', ...Object.entries(request.headers ?? {}).map(([k, v]) => `${k}: ${v}`)]
    .filter(Boolean)
    .join('\n');
  return html`<details class="payload" open=${props.open}>
    <summary>Payload${props.delivery.provider === 'simulator' ? ' (recorded by the simulator)' : ''}</summary>
    <pre class="code"><code>${head ? `${head}\n\n` : ''}${JSON.stringify(request.body, null, 2)}</code></pre>
  </details>`;
}

const STATUS_TEXT: Record<string, string> = {
  sent: 'Sent',
  queued: 'Queued',
  sending: 'Sending',
  held: 'Held',
  failed: 'Failed',
  dropped: 'Dropped',
  superseded: 'Superseded',
};

export function DeliveryStatus(props: { status: string }) {
  const tone = { sent: 'green', queued: 'blue', sending: 'blue', held: 'amber', failed: 'red', dropped: 'grey', superseded: 'grey' }[props.status];
  return html`<${Badge} tone=${tone}>${STATUS_TEXT[props.status] ?? props.status}<//>`;
}

/** An activity's deliveries as a timeline, oldest first: event, device, outcome, reason, payload. */
export function DeliveryTimeline(props: { deliveries: Delivery[] }) {
  return html`<ol class="timeline" aria-label="Delivery timeline">
    ${chronological(props.deliveries).map(
      (d) => html`<li class=${`timeline-item status-${d.status}`} data-status=${d.status}>
        <span class="timeline-dot" aria-hidden="true"></span>
        <div class="timeline-body">
          <div class="timeline-head">
            <strong>${kindLabel(d.kind)}</strong>
            <${DeliveryStatus} status=${d.status} />
            ${pushPriority(d.kind, d.sentPayload) ? html`<span class="small push-priority" title="APNs priority: 10 spends the device's Live Activity budget, 5 does not">priority ${pushPriority(d.kind, d.sentPayload)}</span>` : ''}
            <span class="muted small">to <span class="mono">${d.deviceId}</span> · ${d.platform ? platformName(d.platform) : 'deleted device'}${d.provider ? ` via ${d.provider}` : ''}</span>
            <time class="muted small" datetime=${d.createdAt} title=${formatDateTime(d.createdAt)}>${formatTime(d.createdAt)}</time>
          </div>
          ${d.reason ? html`<p class="small reason">${d.reason}</p>` : ''}
          ${d.attempts > 1 || d.status === 'queued' ? html`<p class="muted small">${d.attempts} attempt${d.attempts === 1 ? '' : 's'}${d.nextAttemptAt && d.status === 'queued' ? ` · next ${formatTime(d.nextAttemptAt)}` : ''}</p>` : ''}
          ${d.providerId ? html`<p class="muted small">Provider id <span class="mono">${d.providerId}</span></p>` : ''}
          <${PayloadDetails} delivery=${d} />
        </div>
      </li>`,
    )}
  </ol>`;
}
