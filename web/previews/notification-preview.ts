import { html } from 'htm/preact';
import { parseTemplate, PlaceholderSyntaxError } from '../../src/modules/notifications/send/placeholders';
import type { TemplateOptions } from '../../src/modules/notifications/releases/template-options';
import { WebPushPreview } from './web-push-preview';

/**
 * A template's text with its placeholders: filled from `variables` when given (as the server
 * renders it), else shown as highlighted `{{name}}` tokens. Broken syntax is shown as typed.
 */
export function TemplateText(props: { text: string; variables?: Record<string, string> }) {
  let segments;
  try {
    segments = parseTemplate(props.text);
  } catch (e) {
    if (e instanceof PlaceholderSyntaxError) return html`<span>${props.text}</span>`;
    throw e;
  }
  return html`<span>${segments.map((s) =>
    'text' in s
      ? s.text
      : props.variables
        ? props.variables[s.name] || html`<span class="ph ph-empty" title=${`${s.name} has no value: it renders as nothing`}>${s.name}</span>`
        : html`<span class="ph">{{${s.name}}}</span>`,
  )}</span>`;
}

/**
 * How the notification looks in an iOS banner, an Android heads-up and a browser (with the
 * Declarative Web Push JSON a web device receives), side by side; a silent one: that nothing is shown.
 * `webDefaultUrl`: the app's Web Push default URL, null when it has no Web Push.
 */
export function NotificationPreview(props: { title: string; body: string; variables?: Record<string, string>; appName?: string; options?: TemplateOptions; webDefaultUrl?: string | null }) {
  const app = props.appName ?? 'Your app';
  const o = props.options ?? {};
  if (o.silent)
    return html`<div class="notif-previews" role="group" aria-label="Notification preview">
      <p class="muted small">Silent: nothing is shown. The app wakes in the background with its data${o.data ? html` (<span class="mono">${Object.keys(o.data).join(', ')}</span>)` : ''}.</p>
      <p class="muted small">Web devices: not sent (every web push must show a notification).</p>
    </div>`;
  // The image is named, not fetched: the console loads nothing from elsewhere.
  const extras = html`${o.image ? html`<div class="muted small" title=${o.image}>🖼 image</div>` : ''}${o.badge !== undefined ? html`<div class="muted small">badge ${o.badge}</div>` : ''}`;
  return html`<div class="notif-previews" role="group" aria-label="Notification preview">
    <figure class="preview">
      <figcaption><span>iOS banner</span></figcaption>
      <div class="pv-lock pv-lock-short">
        <div class="notif-ios">
          <span class="pv-app-icon" aria-hidden="true"></span>
          <div>
            <div class="notif-row"><strong>${app}</strong><span class="muted small">now</span></div>
            <div class="notif-title"><${TemplateText} text=${props.title} variables=${props.variables} /></div>
            ${o.subtitle ? html`<div class="notif-subtitle"><${TemplateText} text=${o.subtitle} variables=${props.variables} /></div>` : ''}
            <div class="notif-body"><${TemplateText} text=${props.body} variables=${props.variables} /></div>
            ${extras}
          </div>
        </div>
      </div>
    </figure>
    <figure class="preview">
      <figcaption><span>Android notification</span></figcaption>
      <div class="pv-android-stage">
        <div class="pv-android">
          <div class="pv-android-head"><span class="pv-android-icon" aria-hidden="true"></span><span>${app}</span><span aria-hidden="true">·</span><span>now</span></div>
          <div class="pv-android-title"><${TemplateText} text=${props.title} variables=${props.variables} /></div>
          <div class="pv-android-text"><${TemplateText} text=${props.body} variables=${props.variables} /></div>
          ${extras}
        </div>
      </div>
    </figure>
    <${WebPushPreview} title=${props.title} body=${props.body} variables=${props.variables} options=${o} defaultUrl=${props.webDefaultUrl} />
  </div>`;
}
