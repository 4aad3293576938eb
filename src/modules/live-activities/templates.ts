/**
 * The eight built-in Live Activity templates, as data: their fields, which are required, the rule
 * each value follows, a valid sample and what a push-to-start alert shows. The server validates
 * against these; the console's forms and previews and the OpenAPI examples read the same
 * definitions. This file imports nothing, so anything can import it without pulling in the server.
 */

/**
 * What a field's string must look like.
 * - text: any string.
 * - percent: a number string from 0 to 100 (`"42"`, `"42.5"`).
 * - step-index: a zero-based index, as a number string, into the comma-separated `steps` attribute.
 * - timestamp: an ISO 8601 timestamp with a time and an offset (`2026-01-15T12:30:00Z`).
 * - one-of: one of `options`.
 * - names: comma-separated non-empty names (`Ordered,Packed,Shipped`).
 * - pairs: comma-separated `key:value` pairs with a non-empty key (`Gate:B12,Seat:14C`).
 */
export type FieldRule = 'text' | 'percent' | 'step-index' | 'timestamp' | 'one-of' | 'names' | 'pairs';

/**
 * How an app decodes a value of each rule: what it may rely on, for app developers. The field
 * reference of docs/device-contract.md is generated from these and the fields' descriptions
 * (scripts/docs/device-contract-fields.ts).
 */
export const FIELD_RULE_ENCODINGS: Record<FieldRule, string> = {
  text: 'Any string (possibly empty); show it as it is.',
  percent: 'A decimal number string from 0 to 100, a fraction allowed (`42`, `42.5`); parse it as a number.',
  'step-index':
    'A zero-based index, as a decimal string, into the comma-separated `steps` attribute: `0` is the first step; always less than the number of steps.',
  timestamp:
    'An ISO 8601 date and time with an offset: `2026-01-15T18:00:00Z`, `2026-01-15T20:00:00.250+02:00`. Seconds, a fraction of up to 9 digits and the colon of the offset are optional (`2026-01-15T20:00+0200`).',
  'one-of': 'Exactly one of the listed values.',
  names: 'Comma-separated names: split at every `,` and trim the spaces around each; none is empty, so no name contains a comma.',
  pairs:
    'Comma-separated pairs: split at every `,`, then each pair at its **first** `:`; the part before it is a non-empty key, the rest is the value and may itself contain `:` (`Boarding:09:40` is `Boarding` → `09:40`). Neither contains a comma.',
};

export interface TemplateField {
  name: string;
  required: boolean;
  rule: FieldRule;
  description: string;
  /** Allowed values of a `one-of` field. */
  options?: readonly string[];
  /** How a `pairs` field names the part before the colon (`key` or `label`), for messages. */
  pairKey?: string;
}

/** A string shown to the user, with `{attributes.x}` / `{contentState.y}` filled from the activity. */
export type TextPattern = string;

export interface TemplateDefinition {
  slug: TemplateSlug;
  title: string;
  description: string;
  /** Static data, set once at start. Empty for image-banner, whose `attributes` may be omitted. */
  attributes: readonly TemplateField[];
  /** Dynamic data, replaced entirely by each update. */
  contentState: readonly TemplateField[];
  /** Groups of contentState fields of which at least one must be given (countdown). */
  contentStateOneOf?: readonly (readonly string[])[];
  /** The contentState field compact views show: primaryValue where the template has it, else the most prominent. */
  compactField: string;
  /**
   * The alert of a push-to-start: the first title and the first body whose placeholders all have
   * a non-empty value; the template's title when none does.
   */
  alert: { title: readonly TextPattern[]; body: readonly TextPattern[] };
  sample: { attributes: Record<string, string>; contentState: Record<string, string> };
}

export const TEMPLATE_SLUGS = [
  'status-tracker',
  'metric-live',
  'countdown',
  'progress-bar',
  'two-column',
  'key-value-list',
  'image-banner',
  'mini-table',
] as const;

export type TemplateSlug = (typeof TEMPLATE_SLUGS)[number];

export const TREND_OPTIONS = ['up', 'down', 'neutral'] as const;

const text = (name: string, required: boolean, description: string): TemplateField => ({ name, required, rule: 'text', description });

export const LIVE_ACTIVITY_TEMPLATES: readonly TemplateDefinition[] = [
  {
    slug: 'status-tracker',
    title: 'Status tracker',
    description: 'Step-by-step progress with an ETA, e.g. an order or a delivery.',
    attributes: [
      text('title', true, 'Header text.'),
      { name: 'steps', required: true, rule: 'names', description: 'Comma-separated step names, e.g. `Ordered,Packed,Shipped,Delivered`.' },
    ],
    contentState: [
      { name: 'currentStep', required: true, rule: 'step-index', description: 'Zero-based index of the active step in `steps`, as a number string.' },
      text('status', true, 'Current status text.'),
      text('eta', false, 'Estimated time text.'),
      text('statusIcon', false, 'An SF Symbol name (`shippingbox.fill`) for the compact views; on Android map it to a drawable of your own or ignore it.'),
    ],
    compactField: 'status',
    alert: { title: ['{attributes.title}'], body: ['{contentState.status}'] },
    sample: {
      attributes: { title: 'Order #1042', steps: 'Ordered,Packed,Shipped,Delivered' },
      contentState: { currentStep: '2', status: 'On its way', eta: '14:30', statusIcon: 'shippingbox.fill' },
    },
  },
  {
    slug: 'metric-live',
    title: 'Live metric',
    description: 'A large number with its change and trend, e.g. a score or a price.',
    attributes: [text('label', true, 'Metric label.')],
    contentState: [
      text('value', true, 'Current value text.'),
      text('change', false, 'Change amount text.'),
      { name: 'trend', required: false, rule: 'one-of', options: TREND_OPTIONS, description: 'One of `up`, `down`, `neutral`.' },
    ],
    compactField: 'value',
    alert: { title: ['{attributes.label}'], body: ['{contentState.value}'] },
    sample: { attributes: { label: 'Active users' }, contentState: { value: '1,284', change: '+12%', trend: 'up' } },
  },
  {
    slug: 'countdown',
    title: 'Countdown',
    description: 'A live countdown timer to a moment; `remaining` is shown when there is no `targetDate`.',
    attributes: [text('label', true, 'Title.'), text('subtitle', false, 'Subtitle.')],
    contentState: [
      {
        name: 'targetDate',
        required: false,
        rule: 'timestamp',
        description: 'ISO 8601 timestamp with an offset to count down to, e.g. `2026-01-15T18:00:00Z`. Required unless `remaining` is given.',
      },
      text('remaining', false, 'Fallback text used when `targetDate` is not set. Required unless `targetDate` is given.'),
    ],
    contentStateOneOf: [['targetDate', 'remaining']],
    compactField: 'targetDate',
    alert: { title: ['{attributes.label}'], body: ['{attributes.subtitle}', '{contentState.remaining} left', 'Countdown started'] },
    sample: { attributes: { label: 'Doors open', subtitle: 'Main hall' }, contentState: { targetDate: '2026-01-15T18:00:00Z' } },
  },
  {
    slug: 'progress-bar',
    title: 'Progress bar',
    description: 'A progress bar with its percentage, e.g. an upload or a download.',
    attributes: [text('label', true, 'Title.')],
    contentState: [
      { name: 'progress', required: true, rule: 'percent', description: 'Percentage as a number string from 0 to 100, e.g. `42` or `42.5`.' },
      text('detail', false, 'Detail text.'),
    ],
    compactField: 'progress',
    alert: { title: ['{attributes.label}'], body: ['{contentState.detail}', '{contentState.progress}%'] },
    sample: { attributes: { label: 'Uploading photos' }, contentState: { progress: '42', detail: '21 of 50' } },
  },
  {
    slug: 'two-column',
    title: 'Two columns',
    description: 'Two metrics side by side, e.g. the two teams of a match.',
    attributes: [text('title', true, 'Header text.')],
    contentState: [
      text('leftValue', true, 'Left metric value.'),
      text('leftLabel', true, 'Left metric label.'),
      text('rightValue', true, 'Right metric value.'),
      text('rightLabel', true, 'Right metric label.'),
    ],
    compactField: 'leftValue',
    alert: { title: ['{attributes.title}'], body: ['{contentState.leftLabel} {contentState.leftValue} · {contentState.rightLabel} {contentState.rightValue}'] },
    sample: { attributes: { title: 'Final' }, contentState: { leftValue: '2', leftLabel: 'Home', rightValue: '1', rightLabel: 'Away' } },
  },
  {
    slug: 'key-value-list',
    title: 'Key-value list',
    description: 'A short list of labelled values, e.g. a boarding pass.',
    attributes: [text('title', true, 'Header text.')],
    contentState: [
      { name: 'items', required: true, rule: 'pairs', pairKey: 'key', description: 'Comma-separated `key:value` pairs, e.g. `Gate:B12,Seat:14C`.' },
      text('primaryValue', false, 'Value shown in compact views.'),
    ],
    compactField: 'primaryValue',
    alert: { title: ['{attributes.title}'], body: ['{contentState.primaryValue}', '{contentState.items}'] },
    sample: { attributes: { title: 'Flight LX 318' }, contentState: { items: 'Gate:B12,Seat:14C,Boarding:09:40', primaryValue: 'B12' } },
  },
  {
    slug: 'image-banner',
    title: 'Banner',
    description: 'A title and subtitle with a status badge. This template has no attributes; `attributes` may be omitted.',
    attributes: [],
    contentState: [
      text('title', true, 'Main title.'),
      text('subtitle', false, 'Subtitle text.'),
      text('status', false, 'Status badge text.'),
    ],
    compactField: 'title',
    alert: { title: ['{contentState.title}'], body: ['{contentState.subtitle}', '{contentState.status}'] },
    sample: { attributes: {}, contentState: { title: 'Table ready', subtitle: 'Please come to the front desk', status: 'Ready' } },
  },
  {
    slug: 'mini-table',
    title: 'Mini table',
    description: 'A small grid of labelled stats.',
    attributes: [text('title', true, 'Header text.')],
    contentState: [
      { name: 'rows', required: true, rule: 'pairs', pairKey: 'label', description: 'Comma-separated `label:value` pairs, e.g. `Distance:5.2 km,Pace:5:40`.' },
      text('primaryValue', false, 'Value shown in compact views.'),
    ],
    compactField: 'primaryValue',
    alert: { title: ['{attributes.title}'], body: ['{contentState.primaryValue}', '{contentState.rows}'] },
    sample: { attributes: { title: 'Morning run' }, contentState: { rows: 'Distance:5.2 km,Pace:5:40,Time:29:32', primaryValue: '5.2 km' } },
  },
];

const BY_SLUG = new Map<string, TemplateDefinition>(LIVE_ACTIVITY_TEMPLATES.map((t) => [t.slug, t]));

/**
 * The template with that slug, or undefined.
 * @example findTemplate('progress-bar')?.contentState[0]?.name // 'progress'
 */
export function findTemplate(slug: string): TemplateDefinition | undefined {
  return BY_SLUG.get(slug);
}
