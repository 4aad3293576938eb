import { t } from 'elysia';
import { echoed, HttpError } from '../../../lib/errors';
import { canonicalLocale } from '../../../lib/locale';
import { PlaceholderSyntaxError, placeholderNames } from './placeholders';

/**
 * A notification template's texts in other languages (issue 37 part 2), stored as JSON in
 * `notification_templates.localizations` under canonical BCP 47 tags. A part a localization leaves
 * out is the template's own (a `de` with only a title keeps the template's body and subtitle).
 */
export interface Localization {
  title?: string;
  body?: string;
  subtitle?: string;
}

export type Localizations = Record<string, Localization>;

/** Enough for every language an app ships; bounds what each send renders. */
export const MAX_LOCALIZATIONS = 100;

const LOCALIZED_PARTS = ['title', 'body', 'subtitle'] as const;

/** The request and response schema (admin routes, OpenAPI document). */
export const LocalizationsField = t.Optional(
  t.Record(
    t.String(),
    t.Object(
      {
        title: t.Optional(t.String({ maxLength: 4096, description: 'Placeholders allowed. Must not be empty.' })),
        body: t.Optional(t.String({ maxLength: 4096, description: 'Placeholders allowed.' })),
        subtitle: t.Optional(t.String({ maxLength: 4096, description: 'Placeholders allowed.' })),
      },
      { additionalProperties: false },
    ),
    {
      description:
        `The template's texts per BCP 47 language tag (\`de\`, \`de-AT\`, \`pt-BR\`; at most ${MAX_LOCALIZATIONS}), stored in canonical form. ` +
        "A device gets the localization of its `locale`'s exact tag, else of the tag with its last subtags removed (`de-AT` → `de`), else the template's own text; " +
        "a part a localization leaves out is the template's own.",
      examples: [{ de: { title: 'Hallo {{name}}', body: 'Willkommen zurück' }, 'de-AT': { title: 'Servus {{name}}' } }],
    },
  ),
);

/**
 * The localizations given with a template in canonical form, checked (400 naming the field, `path`
 * its prefix such as `templates.0.`): each tag a BCP 47 tag and not given twice (`de-at` and
 * `de-AT`), each with at least one part, placeholders well formed, no empty title, none on a silent
 * template (it shows no text). Returns them (none: undefined) and their placeholder names.
 */
export function checkedLocalizations(input: Localizations | undefined, path: string, silent: boolean): { localizations: Localizations | undefined; placeholders: string[] } {
  const entries = Object.entries(input ?? {});
  if (entries.length === 0) return { localizations: undefined, placeholders: [] };
  if (silent) throw new HttpError(400, `${path}localizations cannot be used with silent: a background push shows no text`);
  if (entries.length > MAX_LOCALIZATIONS) throw new HttpError(400, `${path}localizations has ${entries.length} tags; at most ${MAX_LOCALIZATIONS} are allowed`);
  const localizations: Localizations = {};
  const givenAs = new Map<string, string>();
  const names: string[] = [];
  for (const [tag, parts] of entries) {
    const canonical = canonicalLocale(tag);
    if (!canonical) throw new HttpError(400, `${path}localizations: ${echoed(tag)} is not a BCP 47 language tag (such as de, de-AT, pt-BR)`);
    const earlier = givenAs.get(canonical);
    if (earlier !== undefined) throw new HttpError(400, `${path}localizations: ${echoed(tag)} and ${echoed(earlier)} are the same tag ${canonical}`);
    givenAs.set(canonical, tag);
    const field = `${path}localizations.${canonical}`;
    const kept: Localization = {};
    for (const part of LOCALIZED_PARTS) {
      const text = parts[part];
      if (text === undefined) continue;
      if (part === 'title' && text === '') throw new HttpError(400, `${field}.title must not be empty`);
      try {
        names.push(...placeholderNames(text));
      } catch (e) {
        if (e instanceof PlaceholderSyntaxError) throw new HttpError(400, `${field}.${part} has an invalid placeholder: ${e.fragment}`);
        throw e;
      }
      kept[part] = text;
    }
    if (Object.keys(kept).length === 0) throw new HttpError(400, `${field} has none of title, body and subtitle`);
    localizations[canonical] = kept;
  }
  return { localizations, placeholders: names };
}

/** The stored JSON of a template's localizations, or null when it has none. */
export const localizationsJson = (localizations: Localizations | undefined): string | null => (localizations ? JSON.stringify(localizations) : null);

/** A stored template's localizations ({} when null). */
export const parseLocalizations = (json: string | null | undefined): Localizations => (json ? (JSON.parse(json) as Localizations) : {});

/**
 * Which of `tags` a device in `locale` gets: the exact tag (case-insensitive), else the tag with its
 * last subtag removed, again and again (`zh-Hant-TW` → `zh-Hant` → `zh`: RFC 4647 lookup), else
 * undefined (the template's own text). A device without a locale gets undefined.
 * @example bestLocalization(['de', 'de-AT', 'fr'], 'de-DE') // 'de'
 */
export function bestLocalization(tags: Iterable<string>, locale: string | null | undefined): string | undefined {
  if (!locale) return undefined;
  const byLower = new Map<string, string>();
  for (const tag of tags) byLower.set(tag.toLowerCase(), tag);
  let candidate = locale.toLowerCase();
  for (;;) {
    const found = byLower.get(candidate);
    if (found !== undefined) return found;
    let dash = candidate.lastIndexOf('-');
    if (dash === -1) return undefined;
    // A single-letter subtag (`x` of a private use, an extension's singleton) never ends a tag.
    if (dash >= 2 && candidate[dash - 2] === '-') dash -= 2;
    candidate = candidate.slice(0, dash);
  }
}
