import { HttpError } from '../../../lib/errors';
import type { NotificationContent } from '../../delivery/message-content';
import { MAX_PAYLOAD_BYTES, payloadBytes } from '../../delivery/payloads';
import { renderTemplate } from './placeholders';
import type { TemplateRow } from '../releases/releases.types';
import { MAX_COLLAPSE_ID_BYTES, parseOptions, reservedDataKey } from '../releases/template-options';

/** What a send may add to its template; everything else stays in the template, versioned by its release. */
export interface SendAdditions {
  /** Merged over the template's data, the send's values winning. Taken as they are (no placeholders). */
  data?: Record<string, string>;
  badge?: number;
  collapseId?: string;
  ttlSeconds?: number;
}

/**
 * The content a send queues: the template rendered with the send's variables, the send's additions
 * over it, the message id. Throws a 400 naming the field for what the platforms would refuse once
 * rendered: a reserved data key, a badge on a silent push, an image that is not an https URL, a
 * collapse id over 64 bytes, a payload over 4096 bytes.
 * @example notificationContent(template, { variables: { name: 'Ada' }, data: { url: 'app://x' } }, { messageId, now, defaultTtlSeconds: 2419200 })
 */
export function notificationContent(
  template: TemplateRow,
  send: SendAdditions & { variables?: Record<string, string> },
  meta: { messageId: string; now: number; defaultTtlSeconds: number },
): NotificationContent {
  const options = parseOptions(template.options);
  const render = (text: string) => renderTemplate(text, send.variables);
  const content: NotificationContent = {
    type: 'notification',
    templateSlug: template.slug,
    releaseVersion: template.version,
    title: render(template.title),
    body: render(template.body),
    messageId: meta.messageId,
  };
  for (const key of Object.keys(send.data ?? {})) {
    const reserved = reservedDataKey(key);
    if (reserved) throw new HttpError(400, reserved);
  }
  const data = { ...renderAll(options.data, render), ...send.data };
  if (Object.keys(data).length > 0) content.data = data;
  if (options.subtitle !== undefined) content.subtitle = render(options.subtitle);
  if (options.sound !== undefined) content.sound = options.sound;
  if (send.badge !== undefined && options.silent) throw new HttpError(400, `badge cannot be sent with the silent template ${template.slug}: a background push shows nothing`);
  const badge = send.badge ?? options.badge;
  if (badge !== undefined) content.badge = badge;
  if (options.image !== undefined) content.image = httpsUrl(render(options.image));
  if (options.url !== undefined) {
    const url = render(options.url);
    if (!url.startsWith('https://') || !URL.canParse(url)) throw new HttpError(400, 'url must be an https URL once rendered');
    content.url = url;
  }
  for (const key of ['threadId', 'category', 'interruptionLevel', 'relevanceScore', 'androidChannelId', 'priority', 'silent'] as const) {
    if (options[key] !== undefined) (content as unknown as Record<string, unknown>)[key] = options[key];
  }
  const collapseId = send.collapseId ?? (options.collapseId === undefined ? undefined : render(options.collapseId));
  if (collapseId !== undefined && collapseId !== '') {
    const bytes = Buffer.byteLength(collapseId);
    if (bytes > MAX_COLLAPSE_ID_BYTES) throw new HttpError(400, `collapseId is ${bytes} bytes once rendered; APNs allows at most ${MAX_COLLAPSE_ID_BYTES}`);
    content.collapseId = collapseId;
  }
  // Only a ttl the template or the send chose reaches APNs; the configured default is FCM's alone, as before.
  const ttl = send.ttlSeconds ?? options.ttlSeconds;
  content.ttlSeconds = ttl ?? meta.defaultTtlSeconds;
  if (ttl !== undefined) content.apnsExpiration = ttl === 0 ? 0 : Math.floor(meta.now / 1000) + ttl;
  const bytes = payloadBytes(content);
  if (bytes > MAX_PAYLOAD_BYTES) throw new HttpError(400, `payload exceeds ${MAX_PAYLOAD_BYTES} bytes: ${bytes} bytes once rendered`);
  return content;
}

function renderAll(data: Record<string, string> | undefined, render: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([key, value]) => [key, render(value)]));
}

/** The rendered image, refused (400 naming the field) unless it is an https URL. */
function httpsUrl(image: string): string {
  let url: URL | undefined;
  try {
    url = new URL(image);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') throw new HttpError(400, 'image must be an https URL once rendered');
  return image;
}
