import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { formatNumber } from '../lib/format';
import type { MessageDay } from '../lib/message-days';
import { niceMax } from '../lib/usage-period';

const SERIES = [
  ['sent', 'Sent'],
  ['failed', 'Failed'],
  ['opened', 'Opened'],
] as const;

/**
 * Sent, failed and opened per day as grouped bars, drawn inline (no chart library: the console
 * loads nothing from elsewhere), with the same figures as a table for screen readers and copying.
 */
export function MessagesChart(props: { days: MessageDay[]; messages: number }) {
  const days = props.days;
  // Drawn about as wide as it is shown: a 720-unit drawing squeezed onto a phone shrank its axis text to 5 px.
  const narrow = useNarrow();
  const W = narrow ? 360 : 720;
  const H = narrow ? 200 : 220;
  const pad = { l: 48, r: 12, t: 16, b: 28 };
  const innerW = W - pad.l - pad.r;
  const innerH = H - pad.t - pad.b;
  const max = niceMax(Math.max(...days.flatMap((d) => [d.sent, d.failed, d.opened])));
  const slot = innerW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(18, (slot * 0.8) / 3));
  const x = (i: number, s: number) => pad.l + slot * (i + 0.5) + (s - 1.5) * barW;
  const y = (v: number) => pad.t + innerH - (innerH * v) / max;
  const ticks = [0, 0.5, 1].map((f) => f * max);
  const labelEvery = Math.ceil(days.length / (narrow ? 4 : 8));
  const totals = SERIES.map(([key]) => days.reduce((n, d) => n + d[key], 0));
  return html`<figure class="chart messages-chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img"
      aria-label=${`Sent, failed and opened per day of the ${props.messages} newest messages: ${totals.map((t, i) => `${formatNumber(t)} ${SERIES[i]![1].toLowerCase()}`).join(', ')}`}>
      ${ticks.map((v) => html`<g class="tick"><line x1=${pad.l} x2=${W - pad.r} y1=${y(v)} y2=${y(v)} /><text x=${pad.l - 8} y=${y(v) + 4} text-anchor="end">${formatNumber(v)}</text></g>`)}
      ${days.map((d, i) =>
        SERIES.map(([key, label], s) =>
          d[key] > 0
            ? html`<rect class=${`bar bar-${key}`} x=${x(i, s)} width=${barW} y=${y(d[key])} height=${y(0) - y(d[key])} rx="1"><title>${d.date}: ${formatNumber(d[key])} ${label.toLowerCase()}</title></rect>`
            : '',
        ),
      )}
      ${days.map((d, i) => (i % labelEvery === 0 ? html`<text class="xlabel" x=${pad.l + slot * (i + 0.5)} y=${H - 8} text-anchor="middle">${d.date.slice(5)}</text>` : ''))}
    </svg>
    <figcaption class="chart-legend">
      ${SERIES.map(([key, label]) => html`<span class=${`key key-${key}`}></span>${label}`)}
      <span class="muted">· by the day each message was sent</span>
    </figcaption>
    <details class="chart-table">
      <summary>Show as a table</summary>
      <table class="table"><thead><tr><th scope="col">Day</th>${SERIES.map(([, label]) => html`<th scope="col">${label}</th>`)}</tr></thead>
        <tbody>${days.map((d) => html`<tr><td>${d.date}</td>${SERIES.map(([key]) => html`<td class="num">${formatNumber(d[key])}</td>`)}</tr>`)}</tbody>
      </table>
    </details>
  </figure>`;
}

/** Whether the screen is a phone's (the console's 700 px breakpoint), following rotations. */
function useNarrow(): boolean {
  const query = '(max-width: 700px)';
  const [narrow, setNarrow] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const changed = () => setNarrow(list.matches);
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, []);
  return narrow;
}
