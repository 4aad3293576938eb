import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, toast } from '../components/feedback';
import { usePlanAllowsActivities } from '../components/start-action';
import { LocaleZone, PushService, PushToStart, WidgetKitTokens } from '../components/device-facts';
import { Alert, Badge, Button, Card, Checkbox, Empty, PageHeader, Pager, SelectField, Spinner, TextField } from '../components/ui';
import { admin } from '../lib/api';
import { randomHex, randomId, relativeTime } from '../lib/format';
import { useAction, useDialogState, useLoad } from '../lib/hooks';
import { Link } from '../lib/router';
import type { Device, EndUser } from '../lib/types';
import { platformName } from '../lib/platforms';

const PAGE = 20;

/**
 * Registers a device with made-up tokens. Without APNs/FCM credentials the app delivers to the
 * simulator, so such a device receives everything and the console shows what was sent.
 */
function AddDeviceDialog(props: { appId: string; open: boolean; onClose: () => void; onAdded: () => void }) {
  const [endUserId, setEndUserId] = useState(`user-${randomId(4)}`);
  const [platform, setPlatform] = useState<'ios' | 'android'>('ios');
  const [tester, setTester] = useState(false);
  const add = useAction(async () => {
    // Made-up tokens of the real shapes (the server checks them): 32 random bytes in hex for APNs.
    const token = platform === 'ios' ? randomHex(32) : `sim-${platform}-${randomId(16)}`;
    await admin('POST', `/apps/${encodeURIComponent(props.appId)}/devices`, {
      endUserId: endUserId.trim(),
      platform,
      token,
      ...(platform === 'ios' ? { pushToStartToken: randomHex(32) } : {}),
      tester,
    });
    toast(`Simulated ${platform === 'ios' ? 'iPhone' : 'Android phone'} added for ${endUserId.trim()}`);
    props.onAdded();
    props.onClose();
    setEndUserId(`user-${randomId(4)}`);
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (endUserId.trim()) void add.run();
  };
  return html`<${Dialog} open=${props.open} title="Add a simulated device" onClose=${props.onClose}>
    <form class="stack" onSubmit=${submit}>
      <p class="muted">A device with generated tokens. While the app has no APNs or FCM credentials, its pushes go to the built-in simulator, which records each payload.</p>
      ${add.error ? html`<${Alert}>${add.error}<//>` : ''}
      <${TextField} label="End user id" required mono value=${endUserId} onInput=${setEndUserId} hint="Your own identifier for the person; used as targetUsers in API calls." />
      <${SelectField}
        label="Platform"
        value=${platform}
        onChange=${(v: string) => setPlatform(v as 'ios' | 'android')}
        options=${[
          { value: 'ios', label: 'iOS — Lock Screen and Dynamic Island' },
          { value: 'android', label: 'Android — ongoing notification' },
        ]}
      />
      <${Checkbox} label="Tester" hint="receives test sends of Testing releases" checked=${tester} onChange=${setTester} />
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${add.busy}>Add device<//>
      </div>
    </form>
  <//>`;
}

function EndUsersCard(props: { appId: string; version: number; onPick: (id: string) => void }) {
  const [offset, setOffset] = useState(0);
  const users = useLoad(
    () => admin<{ endUsers: EndUser[]; total: number }>('GET', `/apps/${encodeURIComponent(props.appId)}/end-users?limit=${PAGE}&offset=${offset}`),
    [props.appId, offset, props.version],
  );
  const setTester = useAction(async (user: EndUser, tester: boolean) => {
    await admin('PATCH', `/apps/${encodeURIComponent(props.appId)}/end-users/${encodeURIComponent(user.id)}`, { tester });
    toast(`${user.id} is ${tester ? 'now' : 'no longer'} a tester`);
    await users.reload();
  });
  const list = users.data?.endUsers ?? [];
  return html`<${Card} title="End users" description="People of your app with at least one registered device.">
    ${users.error || setTester.error ? html`<${Alert}>${users.error ?? setTester.error}<//>` : ''}
    ${!users.data && users.loading ? html`<${Spinner} />` : ''}
    ${users.data && list.length === 0 ? html`<p class="muted">No end users yet.</p>` : ''}
    ${list.length > 0
      ? html`<div class="table-wrap"><table class="table stacked">
          <thead><tr><th scope="col">End user</th><th scope="col">Devices</th><th scope="col">Tester</th><th scope="col">Last seen</th></tr></thead>
          <tbody>
            ${list.map(
              (u) => html`<tr>
                <td data-label="End user"><button type="button" class="linklike mono break" onClick=${() => props.onPick(u.id)} title="Show this user's devices">${u.id}</button>
                  ${/* A space of its own: htm drops the line break before a tag, which ran the id into the link ("u3Details"). */ ' '}<span class="muted" aria-hidden="true">·</span>${' '}<${Link} href=${`/apps/${encodeURIComponent(props.appId)}/users/${encodeURIComponent(u.id)}`} title="Tags, devices and erasure">Details<//></td>
                <td data-label="Devices">${u.devices}</td>
                <td data-label="Tester"><label class="switch"><input type="checkbox" checked=${u.tester} onChange=${(e: TargetedEvent<HTMLInputElement>) => setTester.run(u, e.currentTarget.checked)} /><span class="sr-only">${u.id} is a tester</span><span class="switch-ui" aria-hidden="true"></span></label></td>
                <td data-label="Last seen" title=${u.lastSeenAt}>${relativeTime(u.lastSeenAt)}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : ''}
    <${Pager} total=${users.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  <//>`;
}

function DevicesCard(props: { appId: string; version: number; endUserId: string; onClear: () => void }) {
  const [offset, setOffset] = useState(0);
  const q = `limit=${PAGE}&offset=${offset}${props.endUserId ? `&endUserId=${encodeURIComponent(props.endUserId)}` : ''}`;
  const devices = useLoad(() => admin<{ devices: Device[]; total: number }>('GET', `/apps/${encodeURIComponent(props.appId)}/devices?${q}`), [props.appId, q, props.version]);
  const list = devices.data?.devices ?? [];
  const remove = useAction(async (d: Device) => {
    // No confirmation: the app's backend registers the device again when it next reports its token.
    await admin('DELETE', `/apps/${encodeURIComponent(props.appId)}/devices/${encodeURIComponent(d.id)}`);
    toast(`Device of ${d.endUserId} removed; pushes still queued for it are dropped`);
    await devices.reload();
  });
  return html`<${Card}
    title="Devices"
    description=${props.endUserId ? html`Of <span class="mono">${props.endUserId}</span>` : 'Every registered device; tokens are never shown.'}
    actions=${props.endUserId ? html`<${Button} small variant="ghost" onClick=${props.onClear}>Show all<//>` : ''}
  >
    ${devices.error ? html`<${Alert}>${devices.error}<//>` : ''}
    ${remove.error ? html`<${Alert}>${remove.error}<//>` : ''}
    ${!devices.data && devices.loading ? html`<${Spinner} />` : ''}
    ${devices.data && list.length === 0 ? html`<p class="muted">No devices.</p>` : ''}
    ${list.length > 0
      ? html`<div class="table-wrap"><table class="table stacked">
          <thead><tr><th scope="col">End user</th><th scope="col">Platform</th><th scope="col">Token</th><th scope="col">Locale · zone</th><th scope="col">Registered</th><th scope="col">Device id</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${list.map(
              (d) => html`<tr>
                <td data-label="End user" class="mono break">${d.endUserId ?? 'erased'}</td>
                <td data-label="Platform"><span class="platform-tag">${platformName(d.platform)}</span>${d.environment === 'sandbox' ? html` <${Badge} tone="amber">sandbox<//>` : ''}</td>
                <td data-label="Token">${d.valid ? html`<${Badge} tone="green">valid<//>` : html`<${Badge} tone="red">invalid<//>${d.invalidReason ? html`<div class="muted small">${d.invalidReason}</div>` : ''}`}
                  ${d.platform === 'ios' ? html` <${PushToStart} types=${d.pushToStartTypes} /><${WidgetKitTokens} device=${d} />` : ''}<${PushService} device=${d} /></td>
                <td data-label="Locale · zone" class="small"><${LocaleZone} device=${d} /></td>
                <td data-label="Registered" class="nowrap" title=${d.createdAt}>${relativeTime(d.createdAt)}</td>
                <td data-label="Device id" class="mono small break">${d.id}</td>
                <td data-label=""><${Button} small variant="ghost" busy=${remove.busy} label=${`Remove device ${d.id}`} onClick=${() => remove.run(d)}>Remove<//></td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : ''}
    <${Pager} total=${devices.data?.total ?? 0} limit=${PAGE} offset=${offset} onChange=${setOffset} />
  <//>`;
}

export function DevicesPage(props: { appId: string }) {
  const adding = useDialogState();
  const [version, setVersion] = useState(0);
  const [endUserId, setEndUserId] = useState('');
  const plan = usePlanAllowsActivities(props.appId);
  const count = useLoad(() => admin<{ total: number }>('GET', `/apps/${encodeURIComponent(props.appId)}/devices?limit=1`), [props.appId, version]);
  const addButton = html`<${Button} variant="primary" onClick=${adding.show}>Add a simulated device<//>`;
  return html`<div class="page">
    <${PageHeader} title="End users & devices" subtitle="Your backend registers devices with POST /api/apps/{appId}/devices; here you can add simulated ones." actions=${addButton} />
    ${count.data?.total === 0
      ? html`<div class="card"><${Empty} title="No devices yet" action=${addButton}>
          Add a simulated iPhone or Android phone to try Live Activities and notifications without Apple or Google.
          Real devices appear here once your app registers them (see the <a href="/swagger" target="_blank" rel="noopener">API docs</a>).
        <//></div>`
      : html`<div class="columns columns-wide">
          <${EndUsersCard} appId=${props.appId} version=${version} onPick=${setEndUserId} />
          <${DevicesCard} appId=${props.appId} version=${version} endUserId=${endUserId} onClear=${() => setEndUserId('')} />
        </div>
        ${count.data
          ? html`<p class="muted small">Next: ${plan.allowed === false
              ? html`<${Link} href=${`/apps/${encodeURIComponent(props.appId)}/send`}>send a notification<//> to these devices (no Live Activities on the ${plan.plan} plan).`
              : html`<${Link} href=${`/apps/${encodeURIComponent(props.appId)}/activities/new`}>start a Live Activity<//> for these devices.`}</p>`
          : ''}`}
    <${AddDeviceDialog} key=${adding.round} appId=${props.appId} open=${adding.open} onClose=${adding.close} onAdded=${() => setVersion(version + 1)} />
  </div>`;
}
