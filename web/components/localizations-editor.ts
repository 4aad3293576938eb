import { html } from 'htm/preact';
import { canonicalLocale } from '../../src/lib/locale';
import type { Localization, Localizations } from '../../src/modules/notifications/send/localizations';
import { Button, SelectField, TextField } from './ui';

/** One language of the editor, as typed: '' for a part it leaves to the template. */
export interface LocalizationDraft {
  tag: string;
  title: string;
  body: string;
  subtitle: string;
}

const PARTS = ['title', 'body', 'subtitle'] as const;

/** The editor's rows of a template's localizations. */
export function localizationsDraftOf(localizations: Localizations | undefined): LocalizationDraft[] {
  return Object.entries(localizations ?? {}).map(([tag, l]) => ({ tag, title: l.title ?? '', body: l.body ?? '', subtitle: l.subtitle ?? '' }));
}

/**
 * The localizations to send from the rows: empty parts left out (the template's own is used), a
 * row without a tag or any text skipped. A tag that is not BCP 47 is the one thing refused here;
 * the server checks the rest and names the tag.
 */
export function localizationsOf(rows: LocalizationDraft[]): { localizations?: Localizations; error?: string } {
  const out: Localizations = {};
  for (const row of rows) {
    const tag = row.tag.trim();
    const parts: Localization = {};
    for (const part of PARTS) if (row[part] !== '') parts[part] = row[part];
    if (tag === '' && Object.keys(parts).length === 0) continue;
    if (!canonicalLocale(tag)) return { error: `${tag || 'A language'} is not a BCP 47 language tag (such as de, de-AT, pt-BR)` };
    out[tag] = parts;
  }
  return Object.keys(out).length > 0 ? { localizations: out } : {};
}

/** The texts a device in `tag`'s language sees: the localization's parts over the template's own. */
export function localizedTexts(base: { title: string; body: string; subtitle?: string }, rows: LocalizationDraft[], tag: string): { title: string; body: string; subtitle?: string } {
  const row = rows.find((r) => r.tag.trim() === tag);
  if (!row) return base;
  return { title: row.title || base.title, body: row.body || base.body, subtitle: row.subtitle || base.subtitle };
}

/** The template's texts in other languages, one fieldset a language; each part optional. */
export function LocalizationsFields(props: { rows: LocalizationDraft[]; onChange: (rows: LocalizationDraft[]) => void; error?: string }) {
  const set = (i: number, key: keyof LocalizationDraft) => (value: string) => props.onChange(props.rows.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  return html`<details class="notification-options localizations" open=${props.rows.length > 0}>
    <summary>Languages${props.rows.length > 0 ? ` (${props.rows.length})` : ''}</summary>
    <div class="stack">
      <p class="small muted">A device gets the language of its locale (de-AT, else de), else the texts above. A part left empty is the one above.</p>
      ${props.rows.map(
        (row, i) => html`<fieldset class="stack" aria-label=${`Localization ${i + 1}`}>
          <${TextField} label="Language tag" mono required value=${row.tag} onInput=${set(i, 'tag')} placeholder="de-AT" />
          <${TextField} label="Localized title" value=${row.title} onInput=${set(i, 'title')} />
          <${TextField} label="Localized body" multiline value=${row.body} onInput=${set(i, 'body')} />
          <${TextField} label="Localized subtitle" value=${row.subtitle} onInput=${set(i, 'subtitle')} />
          <${Button} small variant="ghost" onClick=${() => props.onChange(props.rows.filter((_, j) => j !== i))} label=${`Remove language ${row.tag || i + 1}`}>Remove<//>
        </fieldset>`,
      )}
      ${props.error ? html`<p class="field-error" role="alert">${props.error}</p>` : ''}
      <div><${Button} small onClick=${() => props.onChange([...props.rows, { tag: '', title: '', body: '', subtitle: '' }])}>Add language<//></div>
    </div>
  </details>`;
}

/** Which language the preview shows: the template's own texts, or one of its localizations. */
export function PreviewLanguage(props: { rows: LocalizationDraft[]; value: string; onChange: (tag: string) => void }) {
  const tags = props.rows.map((r) => r.tag.trim()).filter((t) => t !== '');
  if (tags.length === 0) return '';
  return html`<${SelectField} label="Preview language" value=${props.value} onChange=${props.onChange} options=${[{ value: '', label: 'Default' }, ...tags.map((t) => ({ value: t, label: t }))]} />`;
}
