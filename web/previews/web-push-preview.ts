import { html } from 'htm/preact';
import { renderTemplate } from '../../src/modules/notifications/send/placeholders';
import type { TemplateOptions } from '../../src/modules/notifications/releases/template-options';
import { declarativePushMessage, type DeclarativePushMessage } from '../../src/modules/web-push/web-push.payload';

/** What `navigate` says when the app's default URL is not known here (no Web Push, or not loaded). */
export const DEFAULT_URL_STAND_IN = '<the app’s Web Push defaultUrl>';

/** A template's text with the send's variables, or as typed (placeholders shown) without them or when its syntax is broken. */
function filled(text: string, variables: Record<string, string> | undefined): string {
  if (!variables) return text;
  try {
    return renderTemplate(text, variables);
  } catch {
    return text;
  }
}

/**
 * The Declarative Web Push message a web device receives for a template, built by the server's own
 * function with what the worker passes it (delivery/worker/webpush.routing.ts): title, body,
 * `navigate` (the template's `url`, else the app's defaultUrl), the badge, the data and the message
 * id. The send's own data and badge are not known before it is sent.
 * @example webPushMessage('Hi {{name}}', 'Body', { url: 'https://e.com/{{name}}' }, { name: 'Ada' }).notification.navigate // 'https://e.com/Ada'
 */
export function webPushMessage(title: string, body: string, options: TemplateOptions, variables?: Record<string, string>, defaultUrl?: string): DeclarativePushMessage {
  const data = Object.fromEntries(Object.entries(options.data ?? {}).map(([k, v]) => [k, filled(v, variables)]));
  return declarativePushMessage({
    title: filled(title, variables),
    body: filled(body, variables),
    navigate: options.url ? filled(options.url, variables) : (defaultUrl ?? DEFAULT_URL_STAND_IN),
    badge: options.badge,
    messageId: 'msg_…',
    data,
  });
}

/**
 * A browser's notification and the JSON behind it. `defaultUrl`: the app's Web Push default URL;
 * null when the app has no Web Push (web devices then get nothing), undefined while unknown.
 */
export function WebPushPreview(props: { title: string; body: string; variables?: Record<string, string>; options: TemplateOptions; defaultUrl?: string | null }) {
  const message = webPushMessage(props.title, props.body, props.options, props.variables, props.defaultUrl ?? undefined);
  const n = message.notification;
  const site = URL.canParse(n.navigate) ? new URL(n.navigate).host : n.navigate;
  return html`<figure class="preview" aria-label="Web push preview">
    <figcaption><span>Web push</span><span class="muted">Declarative Web Push</span></figcaption>
    <div class="pv-web">
      <div class="pv-web-head"><span class="pv-web-icon" aria-hidden="true"></span><span class="mono">${site}</span></div>
      <div class="pv-web-title">${n.title}</div>
      ${n.body ? html`<div class="pv-web-text">${n.body}</div>` : ''}
    </div>
    ${props.defaultUrl === null ? html`<p class="muted small">This app has no Web Push: web devices get nothing until it is enabled (overview page).</p>` : ''}
    <pre class="code pv-web-json"><code>${JSON.stringify(message, null, 2)}</code></pre>
  </figure>`;
}
