import { html } from 'htm/preact';
import { useId } from 'preact/hooks';
import { admin } from '../lib/api';
import { useLoad } from '../lib/hooks';
import { Link } from '../lib/router';
import type { Usage } from '../lib/types';

/**
 * Whether the app's plan lets it start Live Activities, from the usage API (`liveActivities`):
 * `undefined` until known (and when it cannot be read: the server decides at start anyway).
 */
export function usePlanAllowsActivities(appId: string): { allowed: boolean | undefined; plan: string | undefined } {
  const usage = useLoad(() => admin<Usage>('GET', `/apps/${encodeURIComponent(appId)}/usage`), [appId]);
  return { allowed: usage.data?.liveActivities, plan: usage.data?.plan };
}

/** Why a start cannot happen, in the words the Usage page uses. */
export const noActivitiesReason = (plan: string | undefined) =>
  `No Live Activities on the ${plan ?? 'current'} plan: a start is refused (403). Change the plan in the app's settings.`;

/**
 * The "Start a Live Activity" action of a page header: a link to the start form, or, on a plan
 * without Live Activities, a disabled button with the reason beside it (not only in a tooltip).
 */
export function StartActivityAction(props: { appId: string; label?: string }) {
  const { allowed, plan } = usePlanAllowsActivities(props.appId);
  const reasonId = useId();
  const label = props.label ?? 'Start a Live Activity';
  if (allowed !== false) return html`<${Link} href=${`/apps/${encodeURIComponent(props.appId)}/activities/new`} class="btn btn-primary">${label}<//>`;
  return html`<span class="disabled-action">
    <button type="button" class="btn btn-primary" disabled aria-describedby=${reasonId}>${label}</button>
    <span class="muted small" id=${reasonId}>No Live Activities on the ${plan} plan</span>
  </span>`;
}
