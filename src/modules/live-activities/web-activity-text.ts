import type { WebActivityText } from '../delivery/message-content';

/** The part of an activity its text comes from (live-activities.content.ts ActivityData has it). */
interface ActivityValues {
  templateSlug: string;
  attributes: Record<string, unknown>;
  contentState: Record<string, unknown>;
}

/** A notification's title is one line; its body a few (browsers cut longer text anyway). */
const TITLE_MAX = 100;
const BODY_MAX = 240;
const SEPARATOR = ' · ';
const TREND_ARROWS: Record<string, string> = { up: '↑', down: '↓', neutral: '→' };
/** Attribute names an app-defined template's title is read from, in this order (case-insensitive). */
const TITLE_NAMES = ['title', 'label', 'name'];

type Strings = Record<string, string | undefined>;
type Render = (a: Strings, s: Strings) => WebActivityText;

const joined = (...parts: (string | undefined)[]) => parts.map((p) => p?.trim()).filter((p): p is string => !!p).join(SEPARATOR);

/** `Gate:B12,Seat:14C` as `Gate: B12 · Seat: 14C` (a pair splits at its first colon). */
const pairs = (text: string | undefined) =>
  joined(
    ...(text ?? '').split(',').map((pair) => {
      const colon = pair.indexOf(':');
      return colon === -1 ? pair : `${pair.slice(0, colon).trim()}: ${pair.slice(colon + 1).trim()}`;
    }),
  );

/** An ISO 8601 time as `2026-01-15 18:00 UTC`; the text as given when it does not parse. */
function utcTime(iso: string): string {
  // Date.parse wants the offset's colon, which the templates' rule makes optional (`+0200`).
  const time = Date.parse(iso.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  if (Number.isNaN(time)) return iso;
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The active step of a status tracker: `Shipped (3/4)`, or `3/4` when the status already names it. */
function step(steps: string | undefined, index: string | undefined, status: string | undefined): string | undefined {
  const names = (steps ?? '').split(',').map((s) => s.trim());
  const i = Number(index);
  const name = Number.isInteger(i) ? names[i] : undefined;
  if (!name) return undefined;
  const count = `${i + 1}/${names.length}`;
  return name.toLowerCase() === status?.trim().toLowerCase() ? count : `${name} (${count})`;
}

/** Each built-in template's text: its heading as the title, its current state as one line. */
const BUILT_IN: Record<string, Render> = {
  'status-tracker': (a, s) => ({ title: a.title ?? '', body: joined(s.status, step(a.steps, s.currentStep, s.status), s.eta && `ETA ${s.eta}`) }),
  'metric-live': (a, s) => ({ title: a.label ?? '', body: joined(s.value, [s.change, TREND_ARROWS[s.trend ?? '']].filter(Boolean).join(' ')) }),
  countdown: (a, s) => ({
    title: a.label ?? '',
    body: joined(a.subtitle, s.targetDate ? `until ${utcTime(s.targetDate)}` : s.remaining && `${s.remaining} left`),
  }),
  'progress-bar': (a, s) => ({ title: a.label ?? '', body: joined(s.progress && `${s.progress}%`, s.detail) }),
  'two-column': (a, s) => ({ title: a.title ?? '', body: joined(`${s.leftLabel ?? ''} ${s.leftValue ?? ''}`, `${s.rightLabel ?? ''} ${s.rightValue ?? ''}`) }),
  'key-value-list': (a, s) => ({ title: a.title ?? '', body: pairs(s.items) }),
  'image-banner': (_, s) => ({ title: s.title ?? '', body: joined(s.subtitle, s.status) }),
  'mini-table': (a, s) => ({ title: a.title ?? '', body: pairs(s.rows) }),
};

/** A value of an app-defined template's field as text: a list comma-joined, objects left out. */
function shown(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(shown).filter((v) => v !== undefined).join(', ');
  return undefined;
}

/**
 * An app-defined template's text: the attribute named title, label or name (else its first text
 * attribute, else the template's slug) as the title; each contentState field as `name: value`.
 */
function generic(activity: ActivityValues): WebActivityText {
  const texts = Object.entries(activity.attributes).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '');
  const named = TITLE_NAMES.map((name) => texts.find(([key]) => key.toLowerCase() === name)).find((e) => e !== undefined);
  const body = Object.entries(activity.contentState).map(([key, value]) => {
    const text = shown(value);
    return text === undefined || text === '' ? undefined : `${key}: ${text}`;
  });
  return { title: (named ?? texts[0])?.[1] ?? activity.templateSlug, body: joined(...body) };
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/**
 * What a web device shows for an activity's current state (issue 46 point 5): a notification
 * whose title is the template's heading and whose body is a line made from the contentState.
 * Each event renders it again, and the browser replaces the last one (its tag is the activity id).
 * @example webActivityText({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '42', detail: '21 of 50' } })
 * // { title: 'Upload', body: '42% · 21 of 50' }
 */
export function webActivityText(activity: ActivityValues): WebActivityText {
  const render = BUILT_IN[activity.templateSlug];
  const text = render ? render(activity.attributes as Strings, activity.contentState as Strings) : generic(activity);
  return { title: cut(text.title.trim() || activity.templateSlug, TITLE_MAX), body: cut(text.body, BODY_MAX) };
}
