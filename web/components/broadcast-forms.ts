import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { activityDataProblems, contentStateProblems } from '../../src/modules/live-activities/template-validation';
import { findTemplate, LIVE_ACTIVITY_TEMPLATES, type TemplateDefinition } from '../../src/modules/live-activities/templates';
import { publicApi } from '../lib/api';
import { useAction } from '../lib/hooks';
import { freshSample, type Values } from '../previews/preview-model';
import { ConfirmDialog, Dialog, toast } from './feedback';
import { compact, fieldOfProblem, TemplateFields } from './template-form';
import { Alert, Button, SelectField } from './ui';

/*
 * Create, update and end a broadcast from the console. Like starting a Live Activity, these go
 * through the public API with the app's App Secret (POST, PATCH and DELETE
 * /api/apps/{appId}/broadcasts), exactly as the app's backend would.
 */

/** A broadcast as the admin API lists it (src/modules/broadcasts/broadcasts.admin.routes.ts). */
export interface Broadcast {
  id: string;
  templateSlug: string;
  state: 'Active' | 'Ended';
  channel: { id?: string; environment: string; state: string; reason?: string };
  topic: string;
  updatesSent: number;
  subscribersStarted: number;
  endReason?: string;
  startedAt: string;
  attributes: Values;
  contentState: Values;
}

const path = (id?: string) => `/broadcasts${id ? `/${encodeURIComponent(id)}` : ''}`;

/** The form's problems, and a problem the server still found when it names a field. */
function shownProblems(tried: boolean, problems: string[], serverError: string | undefined): string[] {
  const server = fieldOfProblem(serverError) ? [serverError!] : [];
  return tried ? [...problems, ...server] : server;
}

export function CreateBroadcastDialog(props: { appId: string; open: boolean; onClose: () => void; onDone: () => void }) {
  const [def, setDef] = useState<TemplateDefinition>(LIVE_ACTIVITY_TEMPLATES[0]!);
  const [attributes, setAttributes] = useState<Values>(() => freshSample(def, Date.now()).attributes);
  const [state, setState] = useState<Values>(() => freshSample(def, Date.now()).contentState);
  const [storagePolicy, setStoragePolicy] = useState('0');
  const [tried, setTried] = useState(false);
  const pick = (slug: string) => {
    const next = findTemplate(slug)!;
    const sample = freshSample(next, Date.now());
    setDef(next);
    setAttributes(sample.attributes);
    setState(sample.contentState);
    setTried(false);
  };
  const body = {
    templateSlug: def.slug,
    ...(def.attributes.length > 0 ? { attributes: compact(attributes) } : {}),
    contentState: compact(state),
    storagePolicy: Number(storagePolicy),
  };
  const problems = activityDataProblems(def, body.attributes, body.contentState);
  const create = useAction(async () => {
    const created = await publicApi<Broadcast>(props.appId, 'POST', path(), body);
    toast(`Broadcast ${created.id} created`);
    props.onDone();
    props.onClose();
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setTried(true);
    if (problems.length === 0) void create.run();
  };
  return html`<${Dialog} open=${props.open} title="Create a broadcast" onClose=${props.onClose} wide>
    <form class="stack" onSubmit=${submit} novalidate>
      <p class="muted">One Live Activity for a whole audience: an APNs channel (iOS 18+) and an FCM topic. Devices follow it once started on them (<code>POST …/broadcasts/{id}/subscribers</code>) or when the app subscribes itself.</p>
      <${SelectField} label="Template" value=${def.slug} onChange=${pick} options=${LIVE_ACTIVITY_TEMPLATES.map((t) => ({ value: t.slug, label: t.title }))} />
      <${TemplateFields} def=${def} attributes=${attributes} state=${state} onAttributes=${setAttributes} onState=${setState} problems=${shownProblems(tried, problems, create.error)} />
      <${SelectField}
        label="Storage policy"
        value=${storagePolicy}
        onChange=${setStoragePolicy}
        hint="Apple's message-storage-policy, fixed for the channel."
        options=${[
          { value: '0', label: 'No Message Stored: frequent updates (scores)' },
          { value: '1', label: 'Most Recent Message Stored: kept up to 8 h for devices offline' },
        ]}
      />
      ${create.error ? html`<${Alert}>${create.error}<//>` : ''}
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${create.busy}>Create broadcast<//>
      </div>
    </form>
  <//>`;
}

export function UpdateBroadcastDialog(props: { appId: string; broadcast: Broadcast; open: boolean; onClose: () => void; onDone: () => void }) {
  const def = findTemplate(props.broadcast.templateSlug);
  const [state, setState] = useState<Values>({ ...props.broadcast.contentState });
  const [tried, setTried] = useState(false);
  const problems = def ? contentStateProblems(def, compact(state), props.broadcast.attributes) : [];
  const update = useAction(async () => {
    await publicApi(props.appId, 'PATCH', path(props.broadcast.id), { contentState: compact(state) });
    toast('Broadcast update queued');
    props.onDone();
    props.onClose();
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setTried(true);
    if (problems.length === 0) void update.run();
  };
  return html`<${Dialog} open=${props.open} title=${`Update ${props.broadcast.id}`} onClose=${props.onClose} wide>
    <form class="stack" onSubmit=${submit} novalidate>
      <p class="muted">One request to the APNs channel and one FCM topic message, whatever the number of followers; an update not sent yet is replaced by a newer one.</p>
      ${def
        ? html`<${TemplateFields} def=${def} attributes=${props.broadcast.attributes} state=${state} onState=${setState} problems=${shownProblems(tried, problems, update.error)} />`
        : html`<${Alert}>Unknown template ${props.broadcast.templateSlug}.<//>`}
      ${update.error ? html`<${Alert}>${update.error}<//>` : ''}
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${update.busy} disabled=${!def}>Send update<//>
      </div>
    </form>
  <//>`;
}

export function EndBroadcastDialog(props: { appId: string; broadcast: Broadcast; open: boolean; onClose: () => void; onDone: () => void }) {
  const end = useAction(async () => {
    await publicApi(props.appId, 'DELETE', path(props.broadcast.id));
    toast(`Broadcast ${props.broadcast.id} ended`);
    props.onDone();
    props.onClose();
  });
  return html`<${ConfirmDialog}
    open=${props.open}
    title=${`End ${props.broadcast.id}?`}
    confirmLabel="End broadcast"
    danger
    busy=${end.busy}
    error=${end.error}
    onClose=${props.onClose}
    onConfirm=${() => void end.run()}
  >
    <p>It is removed at once from every device following it (${props.broadcast.subscribersStarted} started from here, and any app that subscribed itself) and can no longer be updated. Its APNs channel is deleted at Apple.</p>
  <//>`;
}
