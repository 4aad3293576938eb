/**
 * What the previews show, computed from a template definition and the form's values. Pure
 * functions (no DOM), shared by the four surfaces and tested on their own.
 */
import type { TemplateDefinition } from '../../src/modules/live-activities/templates';

export type Values = Record<string, string>;

/** `Gate:B12,Seat:14C` → [['Gate','B12'],['Seat','14C']]; the value keeps any further colons. */
export function parsePairs(text: string | undefined): [string, string][] {
  if (!text) return [];
  return text
    .split(',')
    .map((part) => {
      const at = part.indexOf(':');
      return (at === -1 ? [part.trim(), ''] : [part.slice(0, at).trim(), part.slice(at + 1).trim()]) as [string, string];
    })
    .filter(([k]) => k !== '');
}

export function parseSteps(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The step index as a number within the steps, or -1 when it is not one. */
export function stepIndex(value: string | undefined, count: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 && n < count ? n : -1;
}

/** 0–100 from a percent string; 0 for anything else, so the bar never breaks. */
export function percent(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(n) ? Math.min(100, Math.max(0, n)) : 0;
}

/**
 * A countdown as the system timer would show it: `h:mm:ss` or `m:ss`, `0:00` once passed.
 * undefined when the target is not a valid time.
 * @example countdownText('2026-01-15T18:00:00Z', Date.parse('2026-01-15T17:58:30Z')) // '1:30'
 */
export function countdownText(target: string | undefined, now: number): string | undefined {
  if (!target) return undefined;
  const at = Date.parse(target);
  if (Number.isNaN(at)) return undefined;
  const total = Math.max(0, Math.floor((at - now) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * The text of compact views (Dynamic Island compact and minimal): the template's compact field
 * (primaryValue where the template has it), else the most prominent value that is there.
 * @example compactValue(findTemplate('key-value-list')!, { items: 'Gate:B12' }, Date.now()) // 'B12'
 */
export function compactValue(def: TemplateDefinition, state: Values, now: number): string {
  const own = state[def.compactField]?.trim();
  if (own) return def.compactField === 'targetDate' ? (countdownText(own, now) ?? own) : def.compactField === 'progress' ? `${Math.round(percent(own))}%` : own;
  switch (def.slug) {
    case 'countdown':
      return state.remaining?.trim() || '—';
    case 'key-value-list':
      return parsePairs(state.items)[0]?.[1] || '—';
    case 'mini-table':
      return parsePairs(state.rows)[0]?.[1] || '—';
    default: {
      const required = def.contentState.find((f) => f.required && state[f.name]?.trim());
      return required ? state[required.name]!.trim() : '—';
    }
  }
}

/** Title and text of the Android ongoing notification (and of the Lock Screen header). */
export function headline(def: TemplateDefinition, attributes: Values, state: Values, now: number): { title: string; text: string } {
  switch (def.slug) {
    case 'status-tracker':
      return { title: attributes.title || def.title, text: [state.status, state.eta && `ETA ${state.eta}`].filter(Boolean).join(' · ') };
    case 'metric-live':
      return { title: attributes.label || def.title, text: [state.value, state.change].filter(Boolean).join('  ') };
    case 'countdown':
      return { title: attributes.label || def.title, text: [countdownText(state.targetDate, now) ?? state.remaining, attributes.subtitle].filter(Boolean).join(' · ') };
    case 'progress-bar':
      return { title: attributes.label || def.title, text: [`${Math.round(percent(state.progress))}%`, state.detail].filter(Boolean).join(' · ') };
    case 'two-column':
      return { title: attributes.title || def.title, text: `${state.leftLabel ?? ''} ${state.leftValue ?? ''} · ${state.rightLabel ?? ''} ${state.rightValue ?? ''}`.trim() };
    case 'key-value-list':
      return { title: attributes.title || def.title, text: parsePairs(state.items).map(([k, v]) => `${k} ${v}`).join(' · ') };
    case 'mini-table':
      return { title: attributes.title || def.title, text: parsePairs(state.rows).map(([k, v]) => `${k} ${v}`).join(' · ') };
    case 'image-banner':
      return { title: state.title || def.title, text: [state.subtitle, state.status].filter(Boolean).join(' · ') };
  }
}

/** The arrow of a trend, with its words for screen readers. */
export function trendMark(trend: string | undefined): { arrow: string; label: string; tone: string } | undefined {
  if (trend === 'up') return { arrow: '▲', label: 'up', tone: 'up' };
  if (trend === 'down') return { arrow: '▼', label: 'down', tone: 'down' };
  if (trend === 'neutral') return { arrow: '●', label: 'steady', tone: 'neutral' };
  return undefined;
}

/**
 * A template's sample values, with timestamps moved to half an hour from now: the samples are
 * fixed dates, and a countdown to the past would only show 0:00.
 */
export function freshSample(def: TemplateDefinition, now: number): { attributes: Values; contentState: Values } {
  const soon = new Date(Math.ceil((now + 30 * 60_000) / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');
  const contentState = { ...def.sample.contentState };
  for (const field of def.contentState) if (field.rule === 'timestamp' && contentState[field.name]) contentState[field.name] = soon;
  return { attributes: { ...def.sample.attributes }, contentState };
}
