import { html } from 'htm/preact';
import { Badge } from './ui';

/** Which Live Activities can be started on an iOS device: the attributes types it holds a push-to-start token for. */
export function PushToStart(props: { types: string[] }) {
  if (props.types.length === 0) return html`<${Badge} tone="amber" title="Live Activities cannot be started on it">no push-to-start<//>`;
  return html`<span class="push-to-start" title="Attributes types it holds a push-to-start token for">push-to-start: <span class="mono">${props.types.join(', ')}</span></span>`;
}

/** Which WidgetKit reloads reach an iOS device: its widget and control push tokens (issue 47). */
export function WidgetKitTokens(props: { device: { hasWidgetPushToken?: boolean; hasControlPushToken?: boolean } }) {
  const { hasWidgetPushToken, hasControlPushToken } = props.device;
  if (!hasWidgetPushToken && !hasControlPushToken) return null;
  const kinds = [hasWidgetPushToken ? 'widgets' : '', hasControlPushToken ? 'controls' : ''].filter(Boolean).join(', ');
  return html`<div class="small" title="WidgetKit push tokens: POST …/widgets/reload and …/controls/reload reach it">reloads: <span class="mono">${kinds}</span></div>`;
}

/** A web device's push service: its subscription endpoint's origin (the endpoint itself is a capability, never shown). */
export function PushService(props: { device: { platform: string; endpointOrigin?: string } }) {
  if (props.device.platform !== 'web') return null;
  return html`<div class="small" title="The origin of the subscription's endpoint">push service <span class="mono break">${props.device.endpointOrigin ?? '—'}</span></div>`;
}

/** A device's language and time zone, as it reported them. */
export function LocaleZone(props: { device: { locale?: string; timeZone?: string } }) {
  const { locale, timeZone } = props.device;
  if (!locale && !timeZone) return html`<span class="muted">—</span>`;
  return html`<span class="mono">${locale ?? '—'}</span> · <span class="mono break">${timeZone ?? 'app default zone'}</span>`;
}
