import { html } from 'htm/preact';
import { formatDateTime } from '../lib/format';
import { Badge } from './ui';
import { platformName, type Platform } from '../lib/platforms';

/** One device an activity runs on, as the admin activity detail returns it. */
export interface ActivityInstance {
  deviceId: string;
  platform: Platform;
  state: 'live' | 'ended';
  /** What the device's app reported (dismissed or ended: no more pushes). */
  reportedState?: 'active' | 'dismissed' | 'ended';
  startedAt: string;
  endedAt?: string;
  tokenState: 'active' | 'invalid' | 'waiting';
  tokenInvalidReason?: string;
  lastDelivery: { status: string; reason: string | null; at: string } | null;
}

const TOKEN_LABELS = { active: 'reported', waiting: 'waiting', invalid: 'invalid' } as const;
const TOKEN_TONES = { active: 'green', waiting: 'amber', invalid: 'red' } as const;

/**
 * The activity's instances: one per device it was started on, with the state of the token its
 * updates go to (an iPhone's own activity token; an Android device's registration token) and the
 * last delivery. Reasons are written out, not hidden in tooltips: they say what to fix.
 */
export function ActivityInstances(props: { instances: ActivityInstance[]; noInstanceReason?: string | null }) {
  if (props.instances.length === 0)
    return html`<p class="muted no-instance">No device shows this activity: ${props.noInstanceReason ?? 'the start reached no device'}. Its minutes are not counted (see the delivery timeline).</p>`;
  return html`<div class="table-wrap"><table class="table stacked">
    <thead><tr><th scope="col">Device</th><th scope="col">State</th><th scope="col">Update token</th><th scope="col">Last delivery</th></tr></thead>
    <tbody>
      ${props.instances.map(
        (i) => html`<tr>
          <td data-label="Device"><span class="platform-tag">${platformName(i.platform)}</span> <span class="mono small break">${i.deviceId}</span></td>
          <td data-label="State"><${Badge} tone=${i.state === 'live' ? 'green' : 'grey'}>${i.state}<//>${i.reportedState ? html`<div class="small reported-state">${i.reportedState} on the device</div>` : ''}${i.endedAt ? html`<div class="muted small">${formatDateTime(i.endedAt)}</div>` : ''}</td>
          <td data-label="Update token">
            <${Badge} tone=${TOKEN_TONES[i.tokenState]}>${i.platform === 'ios' ? TOKEN_LABELS[i.tokenState] : i.tokenState === 'invalid' ? 'invalid' : 'valid'}<//>
            ${i.tokenInvalidReason ? html`<div class="muted small">${i.tokenInvalidReason}</div>` : ''}
          </td>
          <td data-label="Last delivery">
            ${i.lastDelivery ? html`<${Badge}>${i.lastDelivery.status}<//>${i.lastDelivery.reason ? html`<div class="muted small">${i.lastDelivery.reason}</div>` : ''}` : '—'}
          </td>
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}
