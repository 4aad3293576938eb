import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { findTemplate, LIVE_ACTIVITY_TEMPLATES } from '../../src/modules/live-activities/templates';
import { StartActivityAction } from '../components/start-action';
import { Alert, Badge, Empty, PageHeader, Pager, Spinner } from '../components/ui';
import { publicApi, query } from '../lib/api';
import { duration, relativeTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { currentPath, Link, navigate, searchParams } from '../lib/router';
import type { Activity } from '../lib/types';
import { Glyph } from '../previews/template-bodies';
import { platformName } from '../lib/platforms';

const PAGE = 20;

interface Filters {
  state: string;
  templateSlug: string;
  endUserId: string;
  offset: number;
}

function readFilters(): Filters {
  const q = searchParams(currentPath());
  return { state: q.get('state') ?? '', templateSlug: q.get('template') ?? '', endUserId: q.get('user') ?? '', offset: Number(q.get('offset')) || 0 };
}

/** All activities of the app, newest first, filterable; the filters live in the URL so links keep them. */
export function ActivitiesPage(props: { appId: string }) {
  const [filters, setFilters] = useState<Filters>(readFilters);
  const [userInput, setUserInput] = useState(filters.endUserId);
  const base = `/apps/${encodeURIComponent(props.appId)}/activities`;

  useEffect(() => {
    const q = query({ state: filters.state, template: filters.templateSlug, user: filters.endUserId, offset: filters.offset || undefined });
    if (currentPath() !== base + q) navigate(base + q, { replace: true });
  }, [filters]);

  const list = useLoad(
    () =>
      publicApi<{ activities: Activity[]; total: number }>(
        props.appId,
        'GET',
        `/live-activities${query({ limit: PAGE, offset: filters.offset, state: filters.state, templateSlug: filters.templateSlug, endUserId: filters.endUserId })}`,
      ),
    [props.appId, filters],
    15_000,
  );
  const change = (patch: Partial<Filters>) => setFilters({ ...filters, offset: 0, ...patch });
  const filtered = Boolean(filters.state || filters.templateSlug || filters.endUserId);
  const activities = list.data?.activities ?? [];

  return html`<div class="page">
    <${PageHeader}
      title="Live Activities"
      subtitle="Started by your backend or from here; each targets one end user on iOS or Android."
      actions=${html`<${StartActivityAction} appId=${props.appId} />`}
    />
    <form class="filters" role="search" aria-label="Filter activities" onSubmit=${(e: Event) => (e.preventDefault(), change({ endUserId: userInput.trim() }))}>
      <label>State
        <select value=${filters.state} onChange=${(e: TargetedEvent<HTMLSelectElement>) => change({ state: e.currentTarget.value })}>
          <option value="">All</option><option value="Active">Active</option><option value="Ended">Ended</option>
        </select>
      </label>
      <label>Template
        <select value=${filters.templateSlug} onChange=${(e: TargetedEvent<HTMLSelectElement>) => change({ templateSlug: e.currentTarget.value })}>
          <option value="">All templates</option>
          ${LIVE_ACTIVITY_TEMPLATES.map((t) => html`<option value=${t.slug}>${t.title}</option>`)}
        </select>
      </label>
      <label>End user
        <input type="search" class="mono" value=${userInput} placeholder="any" onInput=${(e: TargetedEvent<HTMLInputElement>) => setUserInput(e.currentTarget.value)}
          onBlur=${() => userInput.trim() !== filters.endUserId && change({ endUserId: userInput.trim() })} />
      </label>
    </form>
    ${list.error ? html`<${Alert}>${list.error}<//>` : ''}
    ${!list.data && list.loading ? html`<${Spinner} />` : ''}
    ${list.data && activities.length === 0
      ? html`<div class="card"><${Empty}
          title=${filtered ? 'No activity matches these filters' : 'No Live Activities yet'}
          action=${filtered ? '' : html`<${StartActivityAction} appId=${props.appId} label="Start one" />`}
        >${filtered ? 'Change or clear the filters.' : 'Start one from a template; it appears on the simulated devices of your end users.'}<//></div>`
      : ''}
    ${activities.length > 0
      ? html`<div class="card card-flush"><div class="table-wrap"><table class="table table-rows stacked">
          <caption class="sr-only">Live Activities, newest first</caption>
          <thead><tr><th scope="col">Activity</th><th scope="col">State</th><th scope="col">End user</th><th scope="col">Platform</th><th scope="col">Started</th><th scope="col">Duration</th></tr></thead>
          <tbody>
            ${activities.map((a) => {
              const def = findTemplate(a.templateSlug);
              return html`<tr>
                <td data-label="Activity">
                  <${Link} href=${`${base}/${encodeURIComponent(a.id)}`} class="row-link">
                    <span class="tpl-chip"><${Glyph} slug=${a.templateSlug} /></span>
                    <span><strong>${def?.title ?? a.templateSlug}</strong><span class="mono muted small block">${a.id}</span></span>
                  <//>
                </td>
                <td data-label="State"><${Badge}>${a.state}<//></td>
                <td data-label="End user" class="mono break">${a.endUserId ?? 'erased'}</td>
                <td data-label="Platform"><span class="platform-tag">${platformName(a.platform)}</span></td>
                <td data-label="Started" class="nowrap" title=${a.startedAt}>${relativeTime(a.startedAt)}</td>
                <td data-label="Duration" class="nowrap">${duration(a.startedAt, a.endedAt)}</td>
              </tr>`;
            })}
          </tbody>
        </table></div></div>`
      : ''}
    <${Pager} total=${list.data?.total ?? 0} limit=${PAGE} offset=${filters.offset} onChange=${(offset: number) => setFilters({ ...filters, offset })} />
  </div>`;
}
