/** Longest provider reason code kept. */
export const MAX_REASON_LENGTH = 64;

/**
 * A provider's reason code (`BadDeviceToken`, `UNREGISTERED`, `invalid_grant`), or undefined when
 * the value is not one. Whatever else a provider (or whatever answers at its address) sends back
 * is never stored nor shown: only a short word from a safe alphabet.
 * @example reasonCode('Unregistered') // 'Unregistered'; reasonCode('<html>…') // undefined
 */
export function reasonCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_.-]*$/.test(value) && value.length <= MAX_REASON_LENGTH ? value : undefined;
}

/** Longest field path and description of a provider's field violation kept. */
export const MAX_FIELD_LENGTH = 100;
export const MAX_DESCRIPTION_LENGTH = 100;

/**
 * The field a provider says is wrong (`message.data[0].value`), or undefined when the value is not
 * a field path: letters, digits, `_`, `.` and indexes only, at most 100 characters.
 */
export function fieldPath(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+|\[\d{1,6}\])*$/.test(value) && value.length <= MAX_FIELD_LENGTH ? value : undefined;
}

/**
 * A provider's description of a field violation, reduced to safe characters (letters, digits,
 * spaces and `_.,:;'()[]=/+-`; anything else becomes `?`) and cut at 100 characters: enough for an
 * operator to act on (`Invalid value at 'message.data[0].value' (TYPE_STRING), 1`), never markup.
 */
export function violationText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/[^A-Za-z0-9 _.,:;'()[\]=/+-]/g, '?').replace(/\s+/g, ' ').trim().slice(0, MAX_DESCRIPTION_LENGTH);
  return text === '' ? undefined : text;
}

/** Our own error text for a failed connection, bounded (it never carries a reply body). */
export function connectionReason(message: string, prefix = 'connection lost'): string {
  return `${prefix}: ${message.replace(/[^\x20-\x7e]/g, '?').slice(0, 120)}`;
}
