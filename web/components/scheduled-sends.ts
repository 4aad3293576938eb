import { html } from 'htm/preact';
import { toast } from './feedback';
import { Alert, Badge, Button, Card } from './ui';
import { admin, publicApi } from '../lib/api';
import { useAction, useLoad } from '../lib/hooks';

interface WaitingSend {
  messageId: string;
  templateSlug: string;
  nextDueAt: string;
  lastDueAt: string;
  local: boolean;
}

/** How a send time reads in the console: the browser's local time, and UTC in the tooltip. */
export const dueText = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

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
  const cancel = useAction(async (messageId: string) => {
    const res = await publicApi<{ cancelled: number }>(props.appId, 'DELETE', `/notifications/${encodeURIComponent(messageId)}`);
    toast(`Cancelled: ${res.cancelled} ${res.cancelled === 1 ? 'delivery' : 'deliveries'} will not go`);
    await list.reload();
  });
  const sends = list.data ?? [];
  if (sends.length === 0 && !list.error) return '';
  return html`<${Card} title="Scheduled" description="Sends waiting for their time. Cancelling stops what has not gone yet.">
    ${list.error || cancel.error ? html`<${Alert}>${list.error ?? cancel.error}<//>` : ''}
    <ul class="scheduled-sends" aria-label="Scheduled sends">
      ${sends.map(
        (s) => html`<li key=${s.messageId}>
          <span>
            <span class="mono">${s.templateSlug}</span>
            <${Badge} tone="blue">${s.local ? 'local time' : 'scheduled'}<//>
            <time datetime=${s.nextDueAt} title=${s.nextDueAt}>${dueText(s.nextDueAt)}</time>${s.lastDueAt !== s.nextDueAt ? html` … <time datetime=${s.lastDueAt} title=${s.lastDueAt}>${dueText(s.lastDueAt)}</time>` : ''}
            <span class="muted small mono"> ${s.messageId}</span>
          </span>
          <${Button} small variant="danger" busy=${cancel.busy} onClick=${() => void cancel.run(s.messageId)}>Cancel<//>
        </li>`,
      )}
    </ul>
  <//>`;
}
