import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { MessagesChart } from '../components/messages-chart';
import { Alert, Badge, Card, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { publicApi, query } from '../lib/api';
import { formatDateTime, formatNumber, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { messageDays, type ListedMessage } from '../lib/message-days';
import { Link } from '../lib/router';

const PAGE = 25;
const STATE_TONES = { scheduled: 'blue', sending: 'blue', sent: 'green', cancelled: 'grey' } as const;
/** The chart's messages: the newest page the API gives (100). */
const CHART_MESSAGES = 100;

type MessagePage = { messages: ListedMessage[]; total: number };

/**
 * The app's sent notifications, newest first, from `GET …/notifications` (the public API, as a
 * backend would read it): each with its deliveries by state and its opens, and a chart per day.
 */
export function MessagesPage(props: { appId: string }) {
  const [offset, setOffset] = useState(0);
  const path = (limit: number, from: number) => `/notifications${query({ limit, offset: from })}`;
  const list = useLoad(() => publicApi<MessagePage>(props.appId, 'GET', path(PAGE, offset)), [props.appId, offset], 10_000);
  const recent = useLoad(() => publicApi<MessagePage>(props.appId, 'GET', path(CHART_MESSAGES, 0)), [props.appId], 30_000);
  const rows = list.data?.messages ?? [];
  const days = messageDays(recent.data?.messages ?? []);
  return html`<div class="page">
    <${PageHeader} title="Messages" subtitle="Notifications sent and scheduled, newest first: what became of their deliveries, and how many devices reported opening them." />
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${days.length > 0 ? html`<${Card} title="Per day"><${MessagesChart} days=${days} messages=${recent.data!.messages.length} /><//>` : ''}
    ${list.data && rows.length === 0
      ? html`<div class="card"><${Empty} title="No messages yet">Send one from <${Link} href=${`/apps/${encodeURIComponent(props.appId)}/send`}>Send notification<//> or with <code>POST /api/apps/${props.appId}/notifications/send</code>.<//></div>`
      : ''}
    ${rows.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table messages-table stacked">
          <caption class="sr-only">Messages, newest first</caption>
          <thead><tr><th scope="col">Message</th><th scope="col">When</th><th scope="col">Deliveries</th><th scope="col">Sent</th><th scope="col">Failed</th><th scope="col">Waiting</th><th scope="col">Opened</th><th scope="col"><span class="sr-only">Deliveries</span></th></tr></thead>
          <tbody>
            ${rows.map(
              (m) => html`<tr data-id=${m.messageId}>
                <td data-label="Message"><div class="mono small break">${m.messageId}</div><div class="muted small">${m.templateSlug} · release ${m.releaseVersion}</div></td>
                <td data-label="When" class="small" title=${`Sent ${formatDateTime(m.createdAt)}`}>
                  ${m.state ? html`<${Badge} tone=${STATE_TONES[m.state]}>${m.state}<//> ` : ''}<span class="nowrap">${relativeTime(m.createdAt)}</span>
                  ${m.scheduledFor && m.state !== 'sent' ? html`<div class="muted">for ${formatDateTime(m.scheduledFor)}</div>` : ''}
                </td>
                <td data-label="Deliveries" class="num">${formatNumber(m.deliveries.total)}</td>
                <td data-label="Sent" class="num">${formatNumber(m.deliveries.sent)}</td>
                <td data-label="Failed" class="num">${formatNumber(m.deliveries.failed)}</td>
                <td data-label="Waiting" class="num">${formatNumber(m.deliveries.queued + m.deliveries.held + m.deliveries.sending)}</td>
                <td data-label="Opened" class="num">${formatNumber(m.opened)}</td>
                <td data-label="" class="row-actions"><${Link} href=${`/apps/${encodeURIComponent(props.appId)}/deliveries?messageId=${encodeURIComponent(m.messageId)}`} title="Every delivery of this message">Deliveries<//></td>
              </tr>`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  </div>`;
}
