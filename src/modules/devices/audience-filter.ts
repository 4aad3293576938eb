import type { AudienceFilter } from './devices.types';
import type { Dialect } from '../../db/sql/dialect';
import type { Param } from '../../db/sql/sql';

/**
 * The SQL condition on a device `d` that an `audience` asks for, with its parameters numbered
 * after `offset`: every condition must hold, a list matches any of its values. Each tag is one
 * lookup by the tags' primary key (app, end user, key) per device, so a send streams its devices
 * as a send to everyone does, whatever the number of tagged users.
 */
export function audienceCondition(audience: AudienceFilter, offset: number): { where: (d: Dialect) => string; params: Param[] } {
  const params: Param[] = [];
  const next = (value: Param) => `$${offset + params.push(value)}`;
  const parts: ((d: Dialect) => string)[] = [];
  for (const [key, value] of Object.entries(audience.tags ?? {})) {
    const k = next(key);
    const values = Array.isArray(value) ? [...new Set(value)] : [value];
    const v = next(values.length === 1 ? values[0]! : values);
    parts.push(
      (d) =>
        `EXISTS (SELECT 1 FROM end_user_tags g WHERE g.app_id = d.app_id AND g.end_user_id = d.end_user_id AND g.key = ${k} AND ${values.length === 1 ? `g.value = ${v}` : d.inList('g.value', v)})`,
    );
  }
  if (audience.platform) {
    const p = next(audience.platform);
    parts.push(() => `d.platform = ${p}`);
  }
  if (audience.locales) {
    const any = audience.locales.map((locale) => {
      const exact = `d.locale = ${next(locale)}`;
      // A language alone also matches its regional tags (canonical tags hold no LIKE wildcards).
      return locale.includes('-') ? exact : `(${exact} OR d.locale LIKE ${next(`${locale}-%`)})`;
    });
    parts.push(() => `(${any.join(' OR ')})`);
  }
  return { where: (d) => (parts.length === 0 ? '1 = 1' : parts.map((part) => part(d)).join(' AND ')), params };
}
