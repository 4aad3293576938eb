import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ConfirmDialog, toast } from '../components/feedback';
import { Alert, Badge, Button, Card, PageHeader, Spinner } from '../components/ui';
import { publicApi } from '../lib/api';
import { plural } from '../lib/audience';
import { relativeTime } from '../lib/format';
import { useAction, useLoad } from '../lib/hooks';
import { Link, navigate } from '../lib/router';
import { LocaleZone, PushService, PushToStart } from '../components/device-facts';
import { platformName, type Platform } from '../lib/platforms';

interface EndUserView {
  endUserId: string;
  tags: Record<string, string>;
  devices: { id: string; platform: Platform; valid: boolean; locale?: string; timeZone?: string; osVersion?: string; pushToStartTypes: string[]; createdAt: string }[];
}

interface Erased {
  removed: { devices: number; tokens: number; tags: number; liveActivities: number; tester: boolean };
}

/** One end user (`GET /api/apps/{appId}/users/{endUserId}`): their tags and devices, and erasure. */
export function EndUserPage(props: { appId: string; endUserId: string }) {
  const app = encodeURIComponent(props.appId);
  const path = `/users/${encodeURIComponent(props.endUserId)}`;
  const user = useLoad(() => publicApi<EndUserView>(props.appId, 'GET', path), [props.appId, props.endUserId]);
  const [confirming, setConfirming] = useState(false);
  const erase = useAction(async () => {
    const { removed } = await publicApi<Erased>(props.appId, 'DELETE', path);
    toast(`${props.endUserId} erased: ${plural(removed.devices, 'device')}, ${plural(removed.tags, 'tag')}, ${plural(removed.liveActivities, 'Live Activity', 'Live Activities')}`);
    navigate(`/apps/${app}/devices`);
  });
  const back = html`<${Link} href=${`/apps/${app}/devices`}>← End users & devices<//>`;
  if (!user.data)
    return html`<div class="page"><${PageHeader} title=${props.endUserId} back=${back} />${user.error ? html`<${Alert}>${user.error}<//>` : html`<${Spinner} />`}</div>`;
  const tags = Object.entries(user.data.tags);
  return html`<div class="page">
    <${PageHeader}
      title=${html`<span class="mono">${props.endUserId}</span>`}
      subtitle="An end user of your app: the tags your backend set and the devices they registered."
      back=${back}
      actions=${html`<${Button} variant="danger" onClick=${() => setConfirming(true)}>Erase end user<//>`}
    />
    <${Card} title="Tags" description="Set by your backend (PUT or PATCH /api/apps/{appId}/users/{endUserId}); a send's audience matches them.">
      ${tags.length === 0
        ? html`<p class="muted">No tags.</p>`
        : html`<div class="table-wrap"><table class="table" aria-label="Tags">
            <thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
            <tbody>${tags.map(([k, v]) => html`<tr><td class="mono">${k}</td><td class="mono break">${v}</td></tr>`)}</tbody>
          </table></div>`}
    <//>
    <${Card} title="Devices">
      ${user.data.devices.length === 0
        ? html`<p class="muted">No devices.</p>`
        : html`<div class="table-wrap"><table class="table stacked" aria-label="Devices">
            <thead><tr><th scope="col">Device</th><th scope="col">Platform</th><th scope="col">Locale · zone</th><th scope="col">Token</th><th scope="col">Registered</th></tr></thead>
            <tbody>
              ${user.data.devices.map(
                (d) => html`<tr>
                  <td data-label="Device" class="mono break">${d.id}</td>
                  <td data-label="Platform">${platformName(d.platform)}${d.osVersion ? ` ${d.osVersion}` : ''}</td>
                  <td data-label="Locale · zone" class="small"><${LocaleZone} device=${d} /></td>
                  <td data-label="Token"><${Badge}>${d.valid ? 'valid' : 'invalid'}<//>${d.platform === 'ios' ? html` <${PushToStart} types=${d.pushToStartTypes} />` : ''}<${PushService} device=${d} /></td>
                  <td data-label="Registered" title=${d.createdAt}>${relativeTime(d.createdAt)}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>`}
    <//>
    <${ConfirmDialog}
      open=${confirming}
      title=${`Erase ${props.endUserId}?`}
      confirmLabel="Erase"
      danger
      busy=${erase.busy}
      error=${erase.error}
      onClose=${() => setConfirming(false)}
      onConfirm=${() => void erase.run()}
    >
      <p>Removes ${plural(user.data.devices.length, 'device')} with their tokens, ${plural(tags.length, 'tag')}, the tester flag and their Live Activities
        (active ones are ended first, with the end push). Later sends do not reach them.</p>
      <p class="muted small">This cannot be undone: their app registers anew to receive notifications again.</p>
    <//>
  </div>`;
}
