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

/** Our own error text for a failed connection, bounded (it never carries a reply body). */
export function connectionReason(message: string, prefix = 'connection lost'): string {
  return `${prefix}: ${message.replace(/[^\x20-\x7e]/g, '?').slice(0, 120)}`;
}
