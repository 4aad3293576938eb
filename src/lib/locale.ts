/**
 * Language tags and time zones as devices report them and templates name them: checked and written
 * in one canonical form, so that `pt-br` and `pt-BR` match and `europe/vienna` is `Europe/Vienna`.
 */

/** Longest tag or zone name taken: BCP 47 advises 35 characters for tags; IANA names are shorter than 64. */
const MAX_LENGTH = 64;
/** IANA zone names (`Europe/Vienna`, `America/Argentina/Buenos_Aires`, `UTC`, `Etc/GMT+5`): no bare offsets such as `+01:00`, which the engine would take. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * The canonical form of a BCP 47 language tag, or undefined when `tag` is not one.
 * @example canonicalLocale('pt-br') // 'pt-BR'
 * @example canonicalLocale('en_US') // undefined (an underscore is POSIX, not BCP 47)
 */
export function canonicalLocale(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > MAX_LENGTH) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * The canonical name of an IANA time zone, or undefined when `zone` is not one the runtime knows.
 * @example canonicalTimeZone('europe/vienna') // 'Europe/Vienna'
 * @example canonicalTimeZone('+01:00') // undefined
 */
export function canonicalTimeZone(zone: string): string | undefined {
  if (zone.length > MAX_LENGTH || !ZONE_NAME.test(zone)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * The language subtag of a canonical tag: what a template's localization for a language matches.
 * @example localeLanguage('de-AT') // 'de'
 */
export function localeLanguage(tag: string): string {
  const dash = tag.indexOf('-');
  return dash === -1 ? tag : tag.slice(0, dash);
}
