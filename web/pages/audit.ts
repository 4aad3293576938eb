import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { AUDIT_ACTIONS } from '../../src/modules/audit/audit.actions';
import { Alert, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { admin, query } from '../lib/api';
import { formatDateTime, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import type { AppView, AuditEntry } from '../lib/types';

const PAGE = 50;

/** What an actor string means, in words: whoever holds the admin token, a console session, the command line. */
function actorLabel(actor: string): string {
  if (actor === 'cli') return 'command line';
  const [kind, id] = actor.split(':');
  return kind === 'console' ? `console session ${id}` : kind === 'admin-token' ? `admin token ${id}` : actor;
}

const summaryText = (summary: Record<string, unknown>) =>
  Object.entries(summary)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');

/** Who changed what, when and from where: every change made through the admin API, the console and the command line. */
export function AuditPage() {
  const [appId, setAppId] = useState('');
  const [action, setAction] = useState('');
  const [offset, setOffset] = useState(0);
  const apps = useLoad(() => admin<{ apps: AppView[] }>('GET', '/apps'), []);
  const list = useLoad(() => admin<{ entries: AuditEntry[]; total: number }>('GET', `/audit${query({ appId, action, limit: PAGE, offset })}`), [appId, action, offset], 10000);
  const rows = list.data?.entries ?? [];
  return html`<div class="page">
    <${PageHeader} title="Audit log" subtitle="Who changed what, when and from where. Secrets are never recorded: only which one was rotated or set." />
    <div class="filters" role="search" aria-label="Filter the audit log">
      <label>App
        <select value=${appId} onChange=${(e: TargetedEvent<HTMLSelectElement>) => (setAppId(e.currentTarget.value), setOffset(0))}>
          <option value="">All</option>
          ${(apps.data?.apps ?? []).map((a) => html`<option value=${a.id}>${a.name}</option>`)}
        </select>
      </label>
      <label>Action
        <select value=${action} onChange=${(e: TargetedEvent<HTMLSelectElement>) => (setAction(e.currentTarget.value), setOffset(0))}>
          <option value="">All</option>
          ${AUDIT_ACTIONS.map((a) => html`<option value=${a}>${a}</option>`)}
        </select>
      </label>
      <span class="muted small refresh-note">${list.loading ? 'Refreshing…' : 'Refreshes every 10 s'}</span>
    </div>
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && rows.length === 0 ? html`<div class="card"><${Empty} title="Nothing recorded yet">Changes to apps, secrets, credentials, releases, templates, testers and devices appear here.<//></div>` : ''}
    ${rows.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table audit-table stacked">
          <caption class="sr-only">Audit log, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Change</th><th scope="col">Who</th><th scope="col">From</th></tr></thead>
          <tbody>
            ${rows.map(
              (e) => html`<tr data-action=${e.action}>
                <td data-label="When" class="nowrap" title=${formatDateTime(e.at)}>${relativeTime(e.at)}</td>
                <td data-label="Action" class="mono small">${e.action}</td>
                <td data-label="Target" class="mono small break">${e.target}</td>
                <td data-label="Change" class="small">${summaryText(e.summary) || html`<span class="muted">—</span>`}</td>
                <td data-label="Who" class="small nowrap" title=${e.actor}>${actorLabel(e.actor)}</td>
                <td data-label="From" class="mono small">${e.address}</td>
              </tr>`,
            )}
          </tbody>
        </table></div></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  </div>`;
}
