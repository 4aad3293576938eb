/** Swift's reference date (2001-01-01T00:00:00Z) in Unix ms: `Date`'s default Codable encoding counts seconds from it. */
export const SWIFT_REFERENCE_DATE_MS = Date.UTC(2001, 0, 1);

/**
 * The seconds since 2001-01-01T00:00:00Z of an ISO 8601 timestamp: how Swift's `JSONDecoder`
 * decodes a `Date` by default (`DateDecodingStrategy.deferredToDate`: a Double of seconds since
 * the reference date), which ActivityKit uses for `attributes` and `content-state`.
 * @example swiftDate('2001-01-01T00:01:00Z') // 60
 */
export function swiftDate(iso: string): number {
  return (Date.parse(iso) - SWIFT_REFERENCE_DATE_MS) / 1000;
}

/**
 * Values as an app's Codable struct decodes them with the defaults: the `dates` fields (ISO 8601,
 * or lists of them) as seconds since 2001-01-01, everything else as given.
 * @example swiftValues({ eta: 3, at: '2001-01-01T00:01:00Z' }, ['at']) // { eta: 3, at: 60 }
 */
export function swiftValues(values: Record<string, unknown>, dates: readonly string[] | undefined): Record<string, unknown> {
  if (!dates?.length) return values;
  const out = { ...values };
  for (const name of dates) {
    const v = out[name];
    if (v !== undefined) out[name] = Array.isArray(v) ? v.map((d) => swiftDate(String(d))) : swiftDate(String(v));
  }
  return out;
}
