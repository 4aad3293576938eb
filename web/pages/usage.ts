import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Alert, Card, PageHeader, Spinner } from '../components/ui';
import { admin } from '../lib/api';
import { formatNumber } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Link } from '../lib/router';
import type { Usage } from '../lib/types';
import { chartScale, periodDays } from '../lib/usage-period';

/** The width the chart is drawn at, so its text keeps its size from phone to desktop. */
function useWidth(ref: { current: HTMLElement | null }, initial: number): number {
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    if (!ref.current) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.round(entry.contentRect.width)));
    observer.observe(ref.current);
    return () => observer.disconnect();
  }, []);
  return width;
}

function Chart(props: { usage: Usage }) {
  const ref = useRef<HTMLElement>(null);
  const days = periodDays(props.usage);
  const W = Math.max(280, useWidth(ref, 720));
  const H = 260;
  const pad = { l: 48, r: 12, t: 16, b: 28 };
  const innerW = W - pad.l - pad.r;
  const innerH = H - pad.t - pad.b;
  const past = days.filter((d) => !d.future);
  const { max, quotaShown } = chartScale(props.usage.minutesUsed, props.usage.quota);
  const x = (i: number) => pad.l + (innerW * (i + 0.5)) / days.length;
  const y = (v: number) => pad.t + innerH - (innerH * v) / max;
  const barW = Math.max(2, (innerW / days.length) * 0.6);
  const line = past.map((d, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(d.total).toFixed(1)}`).join(' ');
  const area = past.length > 0 ? `${line} L${x(past.length - 1).toFixed(1)},${y(0)} L${x(0).toFixed(1)},${y(0)} Z` : '';
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const labelEvery = Math.ceil(days.length / Math.max(4, Math.floor(W / 90)));
  const quota = props.usage.quota;
  return html`<figure class="chart" ref=${ref}>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${`Minutes used per day and in total over the period: ${formatNumber(props.usage.minutesUsed)} minutes so far`}>
      ${ticks.map((v) => html`<g class="tick"><line x1=${pad.l} x2=${W - pad.r} y1=${y(v)} y2=${y(v)} /><text x=${pad.l - 8} y=${y(v) + 4} text-anchor="end">${formatNumber(v)}</text></g>`)}
      ${days.map((d, i) => (d.minutes > 0 ? html`<rect class="bar" x=${x(i) - barW / 2} width=${barW} y=${y(d.minutes)} height=${y(0) - y(d.minutes)} rx="2"><title>${d.date}: ${formatNumber(d.minutes)} min</title></rect>` : ''))}
      ${area ? html`<path class="area" d=${area} /><path class="line" d=${line} />` : ''}
      ${quotaShown ? html`<g class="quota"><line x1=${pad.l} x2=${W - pad.r} y1=${y(quota!)} y2=${y(quota!)} /><text x=${W - pad.r} y=${y(quota!) - 6} text-anchor="end">quota ${formatNumber(quota!)}</text></g>` : ''}
      ${days.map((d, i) => (i % labelEvery === 0 ? html`<text class="xlabel" x=${x(i)} y=${H - 8} text-anchor="middle">${d.date.slice(8)}</text>` : ''))}
    </svg>
    <figcaption class="chart-legend">
      <span class="key key-line"></span>Total so far <span class="key key-bar"></span>Per day
      ${quota === null ? '' : quotaShown ? html`<span class="key key-quota"></span>Quota` : html`<span class="muted">· the quota (${formatNumber(quota)} min) is above this scale</span>`}
    </figcaption>
    <details class="chart-table">
      <summary>Show as a table</summary>
      <table class="table"><thead><tr><th scope="col">Day</th><th scope="col">Minutes</th><th scope="col">Total</th></tr></thead>
        <tbody>${past.map((d) => html`<tr><td>${d.date}</td><td>${formatNumber(d.minutes)}</td><td>${formatNumber(d.total)}</td></tr>`)}</tbody>
      </table>
    </details>
  </figure>`;
}

/** A plan without Live Activities: not "unlimited", none at all; minutes of an earlier plan still show. */
function NotOnPlan(props: { appId: string; usage: Usage }) {
  const u = props.usage;
  return html`<div class="stats">
      <div class="stat stat-none" data-stat="plan"><span class="stat-value">None</span><span class="stat-label">no Live Activities on this plan (${u.plan})</span></div>
      ${u.minutesUsed > 0 ? html`<div class="stat"><span class="stat-value">${formatNumber(u.minutesUsed)}</span><span class="stat-label">minutes used earlier this period</span></div>` : ''}
    </div>
    <${Card}>
      <p>Apps on the <strong>${u.plan}</strong> plan send notifications only: starting a Live Activity or a broadcast is refused (403 <code>live activities are not available on your current plan</code>).
        To use them, choose a plan with Live Activities in the <${Link} href=${`/apps/${encodeURIComponent(props.appId)}`}>app's settings<//>.</p>
    <//>`;
}

export function UsagePage(props: { appId: string }) {
  const usage = useLoad(() => admin<Usage>('GET', `/apps/${encodeURIComponent(props.appId)}/usage`), [props.appId], 60_000);
  const u = usage.data;
  if (usage.error && !u) return html`<div class="page"><${PageHeader} title="Usage" /><${Alert}>${usage.error}<//></div>`;
  if (!u) return html`<${Spinner} />`;
  const share = u.quota ? Math.min(100, (u.minutesUsed / u.quota) * 100) : 0;
  const period = `${new Date(u.periodStart).toLocaleDateString(undefined, { day: 'numeric', month: 'long' })} – ${new Date(Date.parse(u.periodEnd) - 1).toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric' })}`;
  const subtitle = `Live Activity minutes in the current billing period, ${period} (UTC).`;
  if (!u.liveActivities) return html`<div class="page"><${PageHeader} title="Usage" subtitle=${subtitle} /><${NotOnPlan} appId=${props.appId} usage=${u} /></div>`;
  return html`<div class="page">
    <${PageHeader} title="Usage" subtitle=${subtitle} />
    <div class="stats">
      <div class="stat"><span class="stat-value">${formatNumber(u.minutesUsed)}</span><span class="stat-label">minutes used</span></div>
      <div class="stat"><span class="stat-value">${u.quota === null ? '∞' : formatNumber(u.quota)}</span><span class="stat-label">${u.quota === null ? 'unlimited plan' : 'minutes in the plan'}</span></div>
      <div class="stat"><span class="stat-value">${u.quota === null ? '—' : formatNumber(Math.max(0, u.quota - u.minutesUsed))}</span><span class="stat-label">minutes left</span></div>
      ${u.overageMinutes > 0 ? html`<div class="stat stat-warn"><span class="stat-value">${formatNumber(u.overageMinutes)}</span><span class="stat-label">overage minutes</span></div>` : ''}
    </div>
    ${u.quota !== null
      ? html`<${Card}>
          <div class="meter-label"><span>${formatNumber(u.minutesUsed)} of ${formatNumber(u.quota)} minutes</span><span>${Math.round(share)}%</span></div>
          <div class=${`meter${share >= 100 ? ' full' : share >= 80 ? ' high' : ''}`} role="meter" aria-label="Share of the quota used" aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.round(share)}><span style=${{ width: `${share}%` }}></span></div>
          ${share >= 100 ? html`<p class="small">The quota is used up: new Live Activities are refused with 429${u.overageMinutes > 0 ? '' : ', and active ones are ended'}.</p>` : ''}
        <//>`
      : ''}
    <${Card} title="Over the period"><${Chart} usage=${u} /><//>
  </div>`;
}
