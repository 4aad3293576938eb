import { canonicalLocale, canonicalTimeZone } from '../../lib/locale';
import { HttpError } from '../../lib/errors';

/**
 * A registration's `locale` and `timeZone` in canonical form (`pt-br` → `pt-BR`, `europe/vienna` →
 * `Europe/Vienna`), or 400 naming the field: what is stored is what templates and schedules match.
 * @example withCanonicalPlace({ locale: 'de-at' }) // { locale: 'de-AT' }
 */
export function withCanonicalPlace<T extends { locale?: string; timeZone?: string }>(body: T): T {
  const out = { ...body };
  if (body.locale !== undefined) {
    const locale = canonicalLocale(body.locale);
    if (!locale) throw new HttpError(400, `locale must be a BCP 47 language tag such as de-AT, pt-BR or zh-Hant-TW`, {}, { locale: body.locale });
    out.locale = locale;
  }
  if (body.timeZone !== undefined) {
    const timeZone = canonicalTimeZone(body.timeZone);
    if (!timeZone) throw new HttpError(400, `timeZone must be an IANA time zone such as Europe/Vienna`, {}, { timeZone: body.timeZone });
    out.timeZone = timeZone;
  }
  return out;
}
