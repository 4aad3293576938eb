import { html } from 'htm/preact';
import type { TemplateOptions } from '../../src/modules/notifications/releases/template-options';
import type { Localizations } from '../../src/modules/notifications/send/localizations';
import type { NotificationTemplate } from '../lib/types';
import { Checkbox, SelectField, TextField } from './ui';

/** A template as the admin API shows it: texts, placeholders, its optional platform features and languages. */
export type RichTemplate = NotificationTemplate & TemplateOptions & { localizations?: Localizations };

/** The text inputs of the optional fields, as typed (numbers too); `data` one `key=value` a line. */
const TEXTS = ['subtitle', 'sound', 'badge', 'image', 'threadId', 'category', 'relevanceScore', 'androidChannelId', 'collapseId', 'ttlSeconds'] as const;
type TextKey = (typeof TEXTS)[number];

export type OptionsDraft = Record<TextKey | 'data' | 'interruptionLevel' | 'priority', string> & { silent: boolean };

const NUMBERS: TextKey[] = ['badge', 'relevanceScore', 'ttlSeconds'];
/** What a silent push cannot carry (the server refuses it): hidden and left out while Silent is ticked. */
const DISPLAY: string[] = ['subtitle', 'sound', 'badge', 'image', 'threadId', 'category', 'relevanceScore', 'androidChannelId', 'interruptionLevel'];

/** The editor's draft of a template's options ('' for what it does not set). */
export function draftOf(t: TemplateOptions | undefined): OptionsDraft {
  const draft = { silent: t?.silent === true, interruptionLevel: t?.interruptionLevel ?? '', priority: t?.priority ?? '' } as OptionsDraft;
  for (const key of TEXTS) draft[key] = t?.[key] === undefined ? '' : String(t[key]);
  draft.data = Object.entries(t?.data ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  return draft;
}

/**
 * The options to send from a draft: empty fields left out, numbers read as numbers, `data` from
 * its lines. A line without `=` is the one thing refused here; the server checks the rest and
 * names the field.
 */
export function optionsOf(draft: OptionsDraft): { options: TemplateOptions; error?: string } {
  const options: Record<string, unknown> = {};
  for (const key of TEXTS) {
    const value = draft[key].trim();
    if (value !== '') options[key] = NUMBERS.includes(key) ? Number(value) : value;
  }
  if (draft.interruptionLevel) options.interruptionLevel = draft.interruptionLevel;
  if (draft.priority) options.priority = draft.priority;
  if (draft.silent) {
    options.silent = true;
    for (const key of DISPLAY) delete options[key];
  }
  const lines = draft.data.split('\n').filter((line) => line.trim() !== '');
  const bad = lines.find((line) => !line.includes('='));
  if (bad) return { options: options as TemplateOptions, error: `data: "${bad}" is not key=value` };
  if (lines.length > 0) options.data = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1)]));
  return { options: options as TemplateOptions };
}

/** How many optional fields a template sets (the editor opens its "more" section when any). */
export const optionCount = (t: TemplateOptions | undefined): number => Object.keys(optionsOf(draftOf(t)).options).length;

/** The optional fields of a notification template, folded under the title and body. */
export function NotificationOptionsFields(props: { draft: OptionsDraft; onChange: (draft: OptionsDraft) => void; open?: boolean; error?: string }) {
  const { draft } = props;
  const set = (key: keyof OptionsDraft) => (value: string | boolean) => props.onChange({ ...draft, [key]: value });
  const text = (key: TextKey, label: string, hint: string, placeholder = '') =>
    html`<${TextField} label=${label} hint=${hint} value=${draft[key]} onInput=${set(key)} placeholder=${placeholder} mono=${NUMBERS.includes(key)} />`;
  return html`<details class="notification-options" open=${props.open}>
    <summary>Data, sound, badge, image, grouping, urgency, silent</summary>
    <div class="stack">
      <${Checkbox} label="Silent (background push)" hint="wakes the app with the data; shows nothing" checked=${draft.silent} onChange=${set('silent')} />
      <${TextField} label="Data" multiline mono value=${draft.data} onInput=${set('data')} placeholder=${'url=shop://orders/{{order}}'} hint="One key=value a line; placeholders allowed in values" error=${props.error} />
      ${draft.silent
        ? ''
        : html`${text('subtitle', 'Subtitle', 'iOS under the title; Android data isletSubtitle')}
            ${text('sound', 'Sound', 'a sound file, default, or none')}
            ${text('badge', 'Badge', 'a number, 0 clears it')}
            ${text('image', 'Image', 'https URL; needs the iOS notification service extension', 'https://…/{{order}}.png')}
            ${text('threadId', 'Thread', 'iOS groups by it')}
            ${text('category', 'Category', 'iOS actions; Android click_action')}
            <${SelectField}
              label="Interruption level"
              value=${draft.interruptionLevel}
              onChange=${set('interruptionLevel')}
              options=${[{ value: '', label: 'default (active)' }, ...['passive', 'active', 'time-sensitive', 'critical'].map((v) => ({ value: v, label: v }))]}
            />
            ${text('relevanceScore', 'Relevance score', '0 to 1')}
            ${text('androidChannelId', 'Android channel', 'a channel the app created')}`}
      ${text('collapseId', 'Collapse id', 'a newer one with the same id replaces it; at most 64 bytes')}
      ${text('ttlSeconds', 'Time to live (s)', '0 to 2419200')}
      <${SelectField} label="Priority" value=${draft.priority} onChange=${set('priority')} options=${[{ value: '', label: 'default' }, { value: 'high', label: 'high' }, { value: 'normal', label: 'normal' }]} />
    </div>
  </details>`;
}
