import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ConfirmDialog, toast } from './feedback';
import { Alert, Badge, Button, Card } from './ui';
import { admin, publicApi } from '../lib/api';
import { useAction, useLoad } from '../lib/hooks';

interface WaitingSend {
  messageId: string;
  templateSlug: string;
  nextDueAt: string;
  lastDueAt: string;
  local: boolean;
  /** A sendAtLocal's wall time (`2026-12-24T09:00`). */
  localTime: string | null;
}

/** How a send time reads in the console: the browser's local time, and UTC in the tooltip. */
export const dueText = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** When a waiting send's parts go, in the browser's time: its next, and its last when later. */
const dueRange = (s: WaitingSend) =>
  html`<time datetime=${s.nextDueAt} title=${s.nextDueAt}>${dueText(s.nextDueAt)}</time>${s.lastDueAt !== s.nextDueAt ? html` … <time datetime=${s.lastDueAt} title=${s.lastDueAt}>${dueText(s.lastDueAt)}</time>` : ''}`;

/**
 * How a `sendAtLocal` wall time reads: the clock time each device gets it at, where it is.
 * @example localText('2026-12-24T09:00') // "09:00 in each device's zone, Dec 24, 2026" (in an English browser)
 */
export function localText(wall: string): string {
  const at = new Date(`${wall}:00Z`);
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
  return `${time} in each device's zone, ${at.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' })}`;
}

/** How the send page's "When" choice becomes the send's fields: sendAt with the browser's offset, or sendAtLocal as typed. */
export function sendTimeFields(when: 'now' | 'at' | 'local', value: string): { sendAt?: string; sendAtLocal?: string } {
  if (when === 'at' && value) return { sendAt: new Date(value).toISOString() };
  if (when === 'local' && value) return { sendAtLocal: value };
  return {};
}

/**
 * The app's scheduled sends still waiting (admin API), each with its time and a Cancel button
 * (`DELETE …/notifications/{messageId}`, as a backend would cancel). `version` reloads it after a send.
 */
export function ScheduledSendsCard(props: { appId: string; version: number }) {
  const id = encodeURIComponent(props.appId);
  const list = useLoad(() => admin<{ scheduledSends: WaitingSend[] }>('GET', `/apps/${id}/scheduled-sends`).then((r) => r.scheduledSends), [props.appId, props.version], 15_000);
  // Cancelling asks first: nothing brings a cancelled send back.
  const [asking, setAsking] = useState<WaitingSend | null>(null);
  const cancel = useAction(async (messageId: string) => {
    const res = await publicApi<{ cancelled: number }>(props.appId, 'DELETE', `/notifications/${encodeURIComponent(messageId)}`);
    toast(`Cancelled: ${res.cancelled} ${res.cancelled === 1 ? 'delivery' : 'deliveries'} will not go`);
    setAsking(null);
    await list.reload();
  });
  const sends = list.data ?? [];
  if (sends.length === 0 && !list.error) return '';
  return html`<${Card} title="Scheduled" description="Sends waiting for their time. Cancelling stops what has not gone yet.">
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    <ul class="scheduled-sends" aria-label="Scheduled sends">
      ${sends.map(
        (s) => html`<li key=${s.messageId}>
          <span>
            <span class="mono">${s.templateSlug}</span>
            <${Badge} tone="blue">${s.local ? 'local time' : 'scheduled'}<//>
            ${s.localTime
              ? html`<span>${localText(s.localTime)}</span> <span class="muted small">(here: ${dueRange(s)})</span>`
              : dueRange(s)}
            <span class="muted small mono"> ${s.messageId}</span>
          </span>
          <${Button} small variant="danger" label=${`Cancel ${s.messageId}`} onClick=${() => (cancel.setError(undefined), setAsking(s))}>Cancel<//>
        </li>`,
      )}
    </ul>
    <${ConfirmDialog}
      open=${asking !== null}
      title="Cancel this scheduled send?"
      confirmLabel="Cancel the send"
      danger
      busy=${cancel.busy}
      error=${cancel.error}
      onClose=${() => setAsking(null)}
      onConfirm=${() => asking && void cancel.run(asking.messageId)}
    >
      <p><span class="mono">${asking?.templateSlug}</span>, due ${asking ? (asking.localTime ? localText(asking.localTime) : dueText(asking.nextDueAt)) : ''}, does not go to any device that has not got it yet. This cannot be undone: send it again to schedule it anew.</p>
    <//>
  <//>`;
}
