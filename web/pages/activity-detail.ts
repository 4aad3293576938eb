import { html } from 'htm/preact';
import type { ComponentChildren, TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { contentStateProblems } from '../../src/modules/live-activities/template-validation';
import { findTemplate } from '../../src/modules/live-activities/templates';
import { ActivityInstances, type ActivityInstance } from '../components/activity-instances';
import { DeliveryTimeline } from '../components/deliveries';
import { Dialog, toast } from '../components/feedback';
import { LiveIndicator } from '../components/live-indicator';
import { compact, TemplateFields } from '../components/template-form';
import { CustomTemplateFields } from '../components/custom-template-form';
import { customContentStateError } from '../../src/modules/live-activities/custom-templates';
import { textsOf, typedValues, type AppTemplate } from '../lib/custom-values';
import { Alert, Badge, Button, Card, Details, Empty, PageHeader, Spinner } from '../components/ui';
import { admin, publicApi } from '../lib/api';
import { duration, formatDateTime } from '../lib/format';
import { useAction, useLoad } from '../lib/hooks';
import { useLive } from '../lib/live';
import { Link } from '../lib/router';
import type { Activity, AppView, Delivery } from '../lib/types';
import { CustomPreview } from '../previews/custom-preview';
import { headline } from '../previews/preview-model';
import { Previews } from '../previews/surfaces';
import { platformName, type Platform } from '../lib/platforms';

type Strings = Record<string, string>;

const PLATFORMS: readonly Platform[] = ['ios', 'android', 'web'];
const WHERE_SHOWN = { ios: 'Lock Screen and Dynamic Island', android: 'notification shade' };
/** The platforms whose previews the console draws (a browser's notification has none). */
const previewed = (platforms: Platform[]) => platforms.filter((p): p is 'ios' | 'android' => p !== 'web');

/**
 * The update and end of an Active activity: `contentState` is what an update sends, `problems`
 * what is wrong with it, `fields` the inputs (given the problems to show once a send was tried).
 */
function UpdateForm(props: {
  appId: string;
  activity: Activity;
  platforms: Platform[];
  contentState: unknown;
  problems: string[];
  fields: (shown: string[]) => ComponentChildren;
  onDone: () => void;
}) {
  const [tried, setTried] = useState(false);
  const [ending, setEnding] = useState(false);
  const path = `/live-activities/${encodeURIComponent(props.activity.id)}`;
  const problems = props.problems;
  const update = useAction(async () => {
    await publicApi(props.appId, 'PATCH', path, { contentState: props.contentState });
    toast('Update queued for delivery');
    setTried(false);
    props.onDone();
  });
  const end = useAction(async () => {
    await publicApi(props.appId, 'DELETE', path);
    toast('Live Activity ended');
    setEnding(false);
    props.onDone();
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setTried(true);
    if (problems.length === 0) void update.run();
  };
  return html`<${Card} title="Update" description="Sends the whole content state; the attributes stay as they were at start.">
    <form class="stack" onSubmit=${submit} novalidate>
      ${props.fields(tried ? problems : [])}
      ${update.error ? html`<${Alert}>${update.error}<//>` : ''}
      <div class="form-actions">
        <${Button} variant="danger" onClick=${() => setEnding(true)}>End activity<//>
        <${Button} type="submit" variant="primary" busy=${update.busy}>Send update<//>
      </div>
    </form>
    <${Dialog} open=${ending} title="End this Live Activity?" onClose=${() => setEnding(false)}>
      <p>${previewed(props.platforms).length > 0 ? `It is removed from the end user's ${previewed(props.platforms).map((p) => WHERE_SHOWN[p]).join(' and ')}` : 'It ends'}${props.platforms.includes('web') ? ' (a browser shows its final state as a last notification)' : ''} and can no longer be updated.</p>
      ${end.error ? html`<${Alert}>${end.error}<//>` : ''}
      <div class="form-actions">
        <${Button} onClick=${() => setEnding(false)}>Keep it<//>
        <${Button} variant="danger" busy=${end.busy} onClick=${() => end.run()}>End activity<//>
      </div>
    <//>
  <//>`;
}

/**
 * With APNs credentials, iOS updates and the end go to the token the device reports after the
 * push-to-start; until it does, they wait (latest wins). Worth saying, as nothing else moves.
 */
function HeldNotice() {
  return html`<${Alert} tone="warn">
    <p><strong>Waiting for an iPhone's activity push token.</strong> Each iPhone reports its own after the
    push-to-start (<code>PUT …/live-activities/{id}/push-token</code> with its <code>deviceId</code>); held updates go out to it as soon as it does.</p>
  <//>`;
}

interface ActivityDetail extends Activity {
  endReason: 'api' | 'quota' | 'expired' | null;
  attributes: Strings;
  contentState: Strings;
  hasPushToken: boolean;
  instances: ActivityInstance[];
  noInstanceReason: string | null;
}

const END_REASONS = {
  api: 'Ended through the API',
  quota: 'Ended: minutes quota used up',
  expired: 'Ended: iOS 8-hour limit reached on every device it ran on',
};

export function ActivityDetailPage(props: { appId: string; activityId: string }) {
  const id = encodeURIComponent(props.appId);
  const path = `/apps/${id}/live-activities/${encodeURIComponent(props.activityId)}`;
  const activity = useLoad(() => admin<ActivityDetail>('GET', path), [path]);
  const deliveries = useLoad(() => admin<{ deliveries: Delivery[]; total: number }>('GET', `${path}/deliveries`), [path]);
  // Starts, updates, ends and their outcomes show up by themselves (server-sent events, no polling).
  useLive(() => Promise.all([activity.reload(), deliveries.reload()]));
  const app = useLoad(() => admin<AppView>('GET', `/apps/${id}`), [props.appId]);
  const a = activity.data;
  const def = a ? findTemplate(a.templateSlug) : undefined;
  // An app-defined template's typed fields, for its update form.
  const slug = a && !def ? a.templateSlug : undefined;
  const custom = useLoad(
    () => (slug ? admin<AppTemplate>('GET', `/apps/${id}/live-activity-templates/${encodeURIComponent(slug)}`) : Promise.resolve(undefined)),
    [props.appId, slug],
  );
  const customDef = custom.data;
  // The form starts from the current state (an app-defined template's typed values as text); reloads do not overwrite what is being typed.
  const [state, setState] = useState<Strings | undefined>();
  useEffect(() => {
    if (a && state === undefined) setState(textsOf(a.contentState));
  }, [a]);

  if (activity.error && !a) return html`<div class="page"><${Alert}>${activity.error}<//></div>`;
  if (!a) return html`<${Spinner} />`;
  const shownState = a.state === 'Active' && state ? state : a.contentState;
  const reload = async () => {
    await Promise.all([activity.reload(), deliveries.reload()]);
  };
  // The platforms of the devices it runs on (the activity's own `platform` is only that of the end
  // user's most recent device); without any instance, that one.
  const platforms = a.instances.length > 0 ? PLATFORMS.filter((p) => a.instances.some((i) => i.platform === p)) : [a.platform];
  const waitingForToken = a.state === 'Active' && (deliveries.data?.deliveries ?? []).some((d) => d.status === 'held' && /push token/.test(d.reason ?? ''));

  return html`<div class="page">
    <${PageHeader}
      back=${html`<${Link} href=${`/apps/${id}/activities`}>← Live Activities<//>`}
      title=${html`${def ? headline(def, a.attributes, a.contentState, Date.now()).title : a.templateSlug} <${Badge}>${a.state}<//>`}
      subtitle=${html`${def?.title ?? 'App-defined template'} · <span class="mono">${a.id}</span>`}
      actions=${html`<${LiveIndicator} />`}
    />
    <div class="editor">
      <div class="stack-lg editor-form">
        <${Card} title="Details">
          <${Details}
            items=${[
              ['End user', html`<span class="mono">${a.endUserId ?? 'erased'}</span>`],
              [platforms.length > 1 ? 'Platforms' : 'Platform', platforms.map(platformName).join(', ')],
              ['Template', html`<span class="mono">${a.templateSlug}</span>`],
              ['Started', formatDateTime(a.startedAt)],
              ['Ended', a.endedAt ? formatDateTime(a.endedAt) : '—'],
              ['Duration', duration(a.startedAt, a.endedAt)],
            ]}
          />
          ${a.endReason ? html`<p class="muted small end-reason">${END_REASONS[a.endReason]}.</p>` : ''}
        <//>
        <${Card} title="Devices" description="One instance per device the activity was started on; updates and the end go to each at its own token.">
          <${ActivityInstances} instances=${a.instances} noInstanceReason=${a.noInstanceReason} />
        <//>
        ${waitingForToken ? html`<${HeldNotice} />` : ''}
        ${a.state === 'Active' && state && def
          ? html`<${UpdateForm}
              appId=${props.appId}
              activity=${a}
              platforms=${platforms}
              contentState=${compact(state)}
              problems=${contentStateProblems(def, compact(state), a.attributes)}
              fields=${(shown: string[]) => html`<${TemplateFields} def=${def} attributes=${a.attributes} state=${state} onState=${setState} problems=${shown} />`}
              onDone=${reload}
            />`
          : ''}
        ${a.state === 'Active' && state && customDef
          ? html`<${UpdateForm}
              appId=${props.appId}
              activity=${a}
              platforms=${platforms}
              contentState=${typedValues(customDef.contentState, state)}
              problems=${[customContentStateError(customDef, typedValues(customDef.contentState, state))].filter((p): p is string => p !== undefined)}
              fields=${(shown: string[]) => html`<${CustomTemplateFields} def=${customDef} attributes=${{}} state=${state} onState=${setState} problems=${shown} />`}
              onDone=${reload}
            />`
          : ''}
        ${a.state === 'Active' && !def && custom.error ? html`<${Alert}>${custom.error}<//>` : ''}
        <${Card} title="Delivery timeline" description="Every push for this activity, as queued and as answered by the provider or the simulator.">
          ${deliveries.error ? html`<${Alert}>${deliveries.error}<//>` : ''}
          ${!deliveries.data && deliveries.loading ? html`<${Spinner} />` : ''}
          ${deliveries.data?.deliveries.length === 0 ? html`<${Empty} title="Nothing delivered">This end user had no device to deliver to.<//>` : ''}
          ${deliveries.data && deliveries.data.deliveries.length > 0 ? html`<${DeliveryTimeline} deliveries=${deliveries.data.deliveries} />` : ''}
        <//>
      </div>
      <aside class="editor-preview" aria-label="Preview">
        ${def
          ? html`<${Previews} def=${def} attributes=${a.attributes} state=${shownState} appName=${app.data?.name} only=${previewed(platforms).length > 0 ? previewed(platforms) : undefined} />`
          : html`<${CustomPreview} templateSlug=${a.templateSlug} attributes=${a.attributes} state=${a.contentState} />`}
        ${a.state === 'Ended' ? html`<p class="muted small center">No longer on the device; shown as last sent.</p>` : ''}
      </aside>
    </div>
  </div>`;
}
