import { html } from 'htm/preact';
import { Alert, Badge, PageHeader, Spinner } from '../components/ui';
import { admin } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import type { InstanceView } from '../lib/types';

/** The Islet processes serving this database, and which one runs the scheduler. */
export function InstancesPage() {
  const list = useLoad(() => admin<{ instances: InstanceView[] }>('GET', '/instances'), [], 5000);
  const rows = list.data?.instances ?? [];
  return html`<div class="page">
    <${PageHeader}
      title="Instances"
      subtitle="The Islet processes serving this database, newest first. One of them, the leader, runs the scheduler (quota, iOS expiry, retention, webhooks)."
    />
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${rows.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table instances-table">
          <caption class="sr-only">Live instances, newest first</caption>
          <thead><tr><th scope="col">Instance</th><th scope="col">Host</th><th scope="col">Version</th><th scope="col">Started</th><th scope="col">Last seen</th><th scope="col">Scheduler</th></tr></thead>
          <tbody>
            ${rows.map(
              (i) => html`<tr data-instance=${i.id}>
                <td><code>${i.id}</code></td>
                <td>${i.host}</td>
                <td>${i.version}</td>
                <td class="nowrap" title=${formatDateTime(i.startedAt)}>${relativeTime(i.startedAt)}</td>
                <td class="nowrap" title=${formatDateTime(i.lastSeen)}>${relativeTime(i.lastSeen)}</td>
                <td>${i.leader ? html`<${Badge} tone="green">leader<//>` : html`<span class="muted">follower</span>`}</td>
              </tr>`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
  </div>`;
}
