import { html } from 'htm/preact';
import type { TemplateDefinition } from '../../src/modules/live-activities/templates';
import { countdownText, parsePairs, parseSteps, percent, stepIndex, trendMark, type Values } from './preview-model';

/** One small glyph per template, for compact views and headers. */
const GLYPHS: Record<string, string> = {
  'status-tracker': 'M3 7h11v9H3zM14 10h4l3 3v3h-7M7 19a1.5 1.5 0 1 0 0-.01M17 19a1.5 1.5 0 1 0 0-.01',
  'metric-live': 'M3 17l6-6 4 4 8-8M15 7h6v6',
  countdown: 'M12 7v5l3 2M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z',
  'progress-bar': 'M12 3v12M7 10l5 5 5-5M5 20h14',
  'two-column': 'M4 5h7v14H4zM13 5h7v14h-7z',
  'key-value-list': 'M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01',
  'image-banner': 'M4 5h16v14H4zM4 15l5-5 4 4 3-3 4 4',
  'mini-table': 'M4 5h16v14H4zM4 10h16M4 15h16M10 5v14',
  /** An app-defined template (braces: a struct of the app's own). */
  custom: 'M8 4H7a2 2 0 0 0-2 2v4l-2 2 2 2v4a2 2 0 0 0 2 2h1M16 4h1a2 2 0 0 1 2 2v4l2 2-2 2v4a2 2 0 0 1-2 2h-1',
};

export function Glyph(props: { slug: string; class?: string }) {
  return html`<svg class=${`glyph ${props.class ?? ''}`} viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d=${GLYPHS[props.slug] ?? GLYPHS['image-banner']} /></svg>`;
}

export interface BodyProps {
  def: TemplateDefinition;
  attributes: Values;
  state: Values;
  now: number;
}

function Steps(props: { steps: string[]; current: number }) {
  return html`<ol class="pv-steps" style=${{ '--n': String(Math.max(1, props.steps.length)) }}>
    ${props.steps.map(
      (s, i) => html`<li class=${i < props.current ? 'done' : i === props.current ? 'current' : ''} aria-current=${i === props.current ? 'step' : undefined}>
        <span class="pv-dot" aria-hidden="true"></span><span class="pv-step-label">${s}</span>
      </li>`,
    )}
  </ol>`;
}

function Bar(props: { value: number; label: string }) {
  return html`<div class="pv-bar" role="progressbar" aria-label=${props.label} aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.round(props.value)}>
    <span style=${{ width: `${props.value}%` }}></span>
  </div>`;
}

/** The main content of a template, as the Lock Screen and the expanded Dynamic Island show it. */
export function TemplateBody({ def, attributes: a, state: s, now }: BodyProps) {
  switch (def.slug) {
    case 'status-tracker': {
      const steps = parseSteps(a.steps);
      return html`<div class="pv-body">
        <div class="pv-row"><span class="pv-title">${a.title}</span>${s.eta ? html`<span class="pv-muted">ETA <b>${s.eta}</b></span>` : ''}</div>
        <div class="pv-big">${s.status}</div>
        <${Steps} steps=${steps} current=${stepIndex(s.currentStep, steps.length)} />
      </div>`;
    }
    case 'metric-live': {
      const trend = trendMark(s.trend);
      return html`<div class="pv-body">
        <span class="pv-title">${a.label}</span>
        <div class="pv-row pv-baseline">
          <span class="pv-huge">${s.value}</span>
          ${s.change || trend ? html`<span class=${`pv-change ${trend?.tone ?? ''}`}>${trend ? html`<span aria-label=${trend.label}>${trend.arrow}</span> ` : ''}${s.change}</span>` : ''}
        </div>
      </div>`;
    }
    case 'countdown':
      return html`<div class="pv-body">
        <span class="pv-title">${a.label}</span>
        <div class="pv-huge pv-timer">${countdownText(s.targetDate, now) ?? s.remaining ?? ''}</div>
        ${a.subtitle ? html`<span class="pv-muted">${a.subtitle}</span>` : ''}
      </div>`;
    case 'progress-bar': {
      const p = percent(s.progress);
      return html`<div class="pv-body">
        <div class="pv-row"><span class="pv-title">${a.label}</span><b class="pv-pct">${Math.round(p)}%</b></div>
        <${Bar} value=${p} label=${a.label ?? 'Progress'} />
        ${s.detail ? html`<span class="pv-muted">${s.detail}</span>` : ''}
      </div>`;
    }
    case 'two-column':
      return html`<div class="pv-body">
        <span class="pv-title pv-center">${a.title}</span>
        <div class="pv-two">
          <div><span class="pv-huge">${s.leftValue}</span><span class="pv-muted">${s.leftLabel}</span></div>
          <span class="pv-sep" aria-hidden="true"></span>
          <div><span class="pv-huge">${s.rightValue}</span><span class="pv-muted">${s.rightLabel}</span></div>
        </div>
      </div>`;
    case 'key-value-list':
      return html`<div class="pv-body">
        <div class="pv-row"><span class="pv-title">${a.title}</span>${s.primaryValue ? html`<b>${s.primaryValue}</b>` : ''}</div>
        <dl class="pv-pairs">${parsePairs(s.items).map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>
      </div>`;
    case 'mini-table':
      return html`<div class="pv-body">
        <div class="pv-row"><span class="pv-title">${a.title}</span>${s.primaryValue ? html`<b>${s.primaryValue}</b>` : ''}</div>
        <dl class="pv-grid">${parsePairs(s.rows).map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>
      </div>`;
    case 'image-banner':
      return html`<div class="pv-body pv-banner">
        <span class="pv-art" aria-hidden="true"><${Glyph} slug="image-banner" /></span>
        <div class="pv-banner-text">
          <span class="pv-big">${s.title}</span>
          ${s.subtitle ? html`<span class="pv-muted">${s.subtitle}</span>` : ''}
        </div>
        ${s.status ? html`<span class="pv-pill">${s.status}</span>` : ''}
      </div>`;
  }
}

/** Extra content of the Android notification under its text: a bar, steps or nothing. */
export function AndroidExtra({ def, attributes: a, state: s }: BodyProps) {
  if (def.slug === 'progress-bar') return html`<${Bar} value=${percent(s.progress)} label=${a.label ?? 'Progress'} />`;
  if (def.slug === 'status-tracker') {
    const steps = parseSteps(a.steps);
    const at = stepIndex(s.currentStep, steps.length);
    return html`<${Bar} value=${steps.length > 1 && at >= 0 ? (at / (steps.length - 1)) * 100 : 0} label=${`Step ${at + 1} of ${steps.length}`} />`;
  }
  return null;
}
