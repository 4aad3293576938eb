/** Display formats shared by the pages. Times come from the API in ISO 8601 UTC. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');
export const formatTime = (iso: string) => timeOnly.format(new Date(iso));
export const formatNumber = (n: number) => number.format(n);

/**
 * "just now", "5 min ago", "3 h ago", then the date.
 * @example relativeTime(new Date(Date.now() - 120_000).toISOString()) // '2 min ago'
 */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return formatDateTime(iso);
}

/** How long between two times, as "4 min" or "2 h 5 min". */
export function duration(fromIso: string, toIso?: string): string {
  const minutes = Math.max(0, Math.round(((toIso ? Date.parse(toIso) : Date.now()) - Date.parse(fromIso)) / 60000));
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `bytes` random bytes as hex: the shape of an APNs token. */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A random suffix for simulated tokens and default names. */
export function randomId(length = 8): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
}
