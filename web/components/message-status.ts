import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { Alert, Badge, Button, CopyButton, Spinner } from './ui';
import { publicApi } from '../lib/api';
import { useLoad } from '../lib/hooks';

type State = 'queued' | 'held' | 'sending' | 'sent' | 'failed' | 'dropped' | 'superseded';
type Counts = Record<State | 'total', number>;

interface MessageStatus {
  messageId: string;
  templateSlug: string;
  releaseVersion: number;
  deliveries: Counts;
  platforms: { ios: Counts; android: Counts; web: Counts };
  /** A scheduled send: the deliveries waiting for their time, and those cancelled. */
  schedule?: { scheduledFor: string; scheduled: number; cancelled: number };
}

const STATES: State[] = ['queued', 'held', 'sending', 'sent', 'failed', 'dropped', 'superseded'];
/** The badge colours of the deliveries page (queued is the outbox's `pending`). */
const TONE: Partial<Record<State, string>> = { queued: 'blue' };

/**
 * What became of one sent message, from `GET …/notifications/{messageId}` (the public API, as a
 * backend would follow it): its deliveries by state, polled every 3 s until none is waiting, and on demand.
 */
export function MessageStatusPanel(props: { appId: string; messageId: string }) {
  // Polled while a delivery may still change on its own; Refresh asks again at any time.
  const [settled, setSettled] = useState(false);
  const status = useLoad(
    () => publicApi<MessageStatus>(props.appId, 'GET', `/notifications/${encodeURIComponent(props.messageId)}`),
    [props.appId, props.messageId, settled],
    settled ? undefined : 3000,
  );
  const d = status.data?.deliveries;
  useEffect(() => setSettled(d !== undefined && d.queued + d.held + d.sending === 0), [d]);
  return html`<section class="message-status" aria-label="Message status">
    <div class="message-status-head">
      <span>Message <code class="mono">${props.messageId}</code> <${CopyButton} text=${props.messageId} label="Copy the message id" /></span>
      <${Button} small busy=${status.loading && !status.data} onClick=${() => void status.reload()}>Refresh<//>
    </div>
    ${status.error ? html`<${Alert}>${status.error}<//>` : ''}
    ${d
      ? html`<ul class="message-counts" aria-label="Deliveries by state">
            <li><strong>${d.total}</strong> ${d.total === 1 ? 'delivery' : 'deliveries'}</li>
            ${STATES.filter((s) => d[s] > 0).map((s) => html`<li><${Badge} tone=${TONE[s]}>${s}<//> ${d[s]}</li>`)}
          </ul>
          <p class="muted small">iOS ${status.data!.platforms.ios.total} · Android ${status.data!.platforms.android.total} · Web ${status.data!.platforms.web.total}</p>
          ${status.data!.schedule ? html`<p class="muted small">Scheduled ${status.data!.schedule.scheduled} · cancelled ${status.data!.schedule.cancelled}</p>` : ''}`
      : status.error
        ? ''
        : html`<${Spinner} label="Reading its deliveries…" />`}
  </section>`;
}
