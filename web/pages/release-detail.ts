import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { placeholderNames, PlaceholderSyntaxError } from '../../src/modules/notifications/send/placeholders';
import { ConfirmDialog, toast } from '../components/feedback';
import { Alert, Badge, Button, Card, Empty, PageHeader, Spinner, TextField } from '../components/ui';
import { admin } from '../lib/api';
import { audienceOf, plural } from '../lib/audience';
import { useAction, useLoad } from '../lib/hooks';
import { Link } from '../lib/router';
import type { Release, ReleaseStatus } from '../lib/types';
import { draftOf, NotificationOptionsFields, optionCount, optionsOf, type RichTemplate } from '../components/notification-options';
import { NotificationPreview, TemplateText } from '../previews/notification-preview';
import { useWebPushSettings } from '../components/web-push-card';
import { LocalizationsFields, localizationsDraftOf, localizationsOf, localizedTexts, PreviewLanguage } from '../components/localizations-editor';

/** The moves the server allows from each status, worded as actions. */
const MOVES: Record<ReleaseStatus, { to: ReleaseStatus; label: string; variant: 'primary' | 'secondary' | 'danger' }[]> = {
  Draft: [
    { to: 'Testing', label: 'Mark Testing', variant: 'secondary' },
    { to: 'Live', label: 'Promote to Live', variant: 'primary' },
  ],
  Testing: [
    { to: 'Draft', label: 'Back to Draft', variant: 'secondary' },
    { to: 'Live', label: 'Promote to Live', variant: 'primary' },
  ],
  Live: [{ to: 'Archived', label: 'Archive', variant: 'secondary' }],
  Archived: [{ to: 'Live', label: 'Roll back to Live', variant: 'primary' }],
};

const ABOUT: Record<ReleaseStatus, string> = {
  Draft: 'Editable. Not used by sends.',
  Testing: 'Editable. Test sends with testReleaseVersion go to testers only.',
  Live: 'Used by every send. Its texts are frozen, so a version always names what users received.',
  Archived: 'Frozen. Can be rolled back to Live.',
};

/** The placeholders of a title and body as typed, or the syntax problem. */
function placeholdersOf(title: string, body: string): { names: string[]; error?: string } {
  try {
    return { names: placeholderNames(title, body) };
  } catch (e) {
    if (e instanceof PlaceholderSyntaxError) return { names: [], error: e.message };
    throw e;
  }
}

function TemplateEditor(props: { appId: string; version: number; template?: RichTemplate; onDone: () => void; onCancel?: () => void }) {
  const webPush = useWebPushSettings(props.appId);
  const [slug, setSlug] = useState(props.template?.slug ?? '');
  const [title, setTitle] = useState(props.template?.title ?? '');
  const [body, setBody] = useState(props.template?.body ?? '');
  const [draft, setDraft] = useState(draftOf(props.template));
  const [languages, setLanguages] = useState(localizationsDraftOf(props.template?.localizations));
  const [previewTag, setPreviewTag] = useState('');
  const found = placeholdersOf(title, body);
  const { options, error: optionsError } = optionsOf(draft);
  // A silent push shows no text: its languages are neither shown nor sent.
  const { localizations, error: languagesError } = draft.silent ? {} : localizationsOf(languages);
  const shown = localizedTexts({ title, body, subtitle: options.subtitle }, languages, previewTag);
  // A silent push shows nothing: its title may be empty.
  const titled = title !== '' || draft.silent;
  const save = useAction(async () => {
    await admin('PUT', `/apps/${encodeURIComponent(props.appId)}/releases/${props.version}/templates/${encodeURIComponent(slug.trim())}`, { title, body, ...options, localizations });
    toast(`Template ${slug.trim()} saved`);
    if (!props.template) {
      setSlug('');
      setTitle('');
      setBody('');
      setDraft(draftOf(undefined));
      setLanguages([]);
    }
    props.onDone();
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (slug.trim() && titled && !found.error && !optionsError && !languagesError) void save.run();
  };
  return html`<form class="template-editor" onSubmit=${submit}>
    <div class="stack">
      ${props.template ? '' : html`<${TextField} label="Slug" required mono value=${slug} onInput=${setSlug} placeholder="order-shipped" />`}
      <${TextField} label="Title" required=${!draft.silent} value=${title} onInput=${setTitle} placeholder="Your order {{order}} has shipped" error=${found.error} />
      <${TextField} label="Body" multiline value=${body} onInput=${setBody} placeholder="It arrives {{ eta }}." />
      <p class="small">Placeholders: ${found.names.length === 0 ? html`<span class="muted">none</span>` : found.names.map((n) => html`<span class="ph">${n}</span> `)}</p>
      <${NotificationOptionsFields} draft=${draft} onChange=${setDraft} open=${optionCount(props.template) > 0} error=${optionsError} />
      ${draft.silent ? '' : html`<${LocalizationsFields} rows=${languages} onChange=${setLanguages} error=${languagesError} />`}
      ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
      <div class="form-actions">
        ${props.onCancel ? html`<${Button} onClick=${props.onCancel}>Cancel<//>` : ''}
        <${Button} type="submit" variant="primary" busy=${save.busy} disabled=${!slug.trim() || !titled}>${props.template ? 'Save template' : 'Add template'}<//>
      </div>
    </div>
    <div class="stack">
      <${PreviewLanguage} rows=${languages} value=${previewTag} onChange=${setPreviewTag} />
      <${NotificationPreview} title=${shown.title || 'Title'} body=${shown.body} options=${{ ...options, subtitle: shown.subtitle }} webDefaultUrl=${webPush.data === null ? null : webPush.data?.defaultUrl} />
    </div>
  </form>`;
}

function TemplateCard(props: { appId: string; release: Release; template: RichTemplate; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const editable = props.release.status === 'Draft' || props.release.status === 'Testing';
  const remove = useAction(async () => {
    await admin('DELETE', `/apps/${encodeURIComponent(props.appId)}/releases/${props.release.version}/templates/${encodeURIComponent(props.template.slug)}`);
    toast(`Template ${props.template.slug} deleted`);
    props.onChange();
  });
  const t = props.template;
  const sendHref = `/apps/${encodeURIComponent(props.appId)}/send?release=${props.release.version}&template=${encodeURIComponent(t.slug)}`;
  return html`<li class="card template-card" data-slug=${t.slug}>
    <div class="template-card-head">
      <h3 class="mono">${t.slug}</h3>
      <div class="card-actions">
        ${props.release.status === 'Live' || props.release.status === 'Testing' ? html`<${Link} href=${sendHref} class="btn btn-sm btn-secondary">Send…<//>` : ''}
        ${editable && !editing ? html`<${Button} small onClick=${() => setEditing(true)}>Edit<//>` : ''}
        ${editable ? html`<${Button} small variant="ghost" busy=${remove.busy} onClick=${() => remove.run()} label=${`Delete template ${t.slug}`}>Delete<//>` : ''}
      </div>
    </div>
    ${remove.error ? html`<${Alert}>${remove.error}<//>` : ''}
    ${editing
      ? html`<${TemplateEditor} appId=${props.appId} version=${props.release.version} template=${t} onCancel=${() => setEditing(false)} onDone=${() => (setEditing(false), props.onChange())} />`
      : html`<div class="template-view">
          <p class="notif-title"><${TemplateText} text=${t.title} /></p>
          ${t.body ? html`<p><${TemplateText} text=${t.body} /></p>` : ''}
          <p class="small muted">Placeholders: ${t.placeholders.length === 0 ? 'none' : t.placeholders.map((p) => html`<span class="ph">${p}</span> `)}</p>
          ${t.localizations ? html`<p class="small muted template-languages">Languages: ${Object.keys(t.localizations).map((tag) => html`<span class="mono">${tag}</span> `)}</p>` : ''}
          ${optionCount(t) > 0 ? html`<p class="small muted template-options">${Object.entries(optionsOf(draftOf(t)).options).map(([k, v]) => html`<span class="mono">${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}</span> `)}</p>` : ''}
        </div>`}
  </li>`;
}

/** What a move does to the people of the app, with numbers from the server; moves that change no one's messages have none. */
function MoveConsequence(props: { appId: string; version: number; to: ReleaseStatus }) {
  const facts = useLoad(async () => {
    const [{ releases }, audience] = await Promise.all([
      admin<{ releases: Release[] }>('GET', `/apps/${encodeURIComponent(props.appId)}/releases`),
      audienceOf(props.appId),
    ]);
    return { live: releases.find((r) => r.status === 'Live' && r.version !== props.version), audience };
  }, [props.appId, props.version, props.to]);
  if (facts.error) return html`<${Alert}>${facts.error}<//>`;
  if (!facts.data) return html`<${Spinner} label="Counting who this reaches…" />`;
  const { live, audience } = facts.data;
  const users = plural(audience.endUsers, 'end user');
  if (props.to === 'Live')
    return html`<p>${live ? html`This <strong>archives release ${live.version}</strong>, and ` : 'No release is Live yet: '}<strong>${users}</strong> (${plural(audience.devices, 'device')}) get notifications from the templates of release ${props.version} from the next send.</p>
      <p class="muted small">Its texts are frozen once Live. An archived release can be rolled back to Live.</p>`;
  return html`<p>Release ${props.version} stops being Live, and <strong>no release is Live</strong>: sends to ${users} are refused until one is promoted.</p>`;
}

export function ReleaseDetailPage(props: { appId: string; version: number }) {
  const path = `/apps/${encodeURIComponent(props.appId)}/releases/${props.version}`;
  const release = useLoad(() => admin<Release>('GET', path), [path]);
  const [asking, setAsking] = useState<(typeof MOVES)[ReleaseStatus][number] | null>(null);
  const move = useAction(async (to: ReleaseStatus) => {
    await admin('PATCH', path, { status: to });
    toast(to === 'Live' ? `Release ${props.version} is Live` : `Release ${props.version} is now ${to}`);
    setAsking(null);
    await release.reload();
  });
  const r = release.data;
  if (release.error && !r) return html`<div class="page"><${Alert}>${release.error}<//></div>`;
  if (!r) return html`<${Spinner} />`;
  const editable = r.status === 'Draft' || r.status === 'Testing';
  // Moves that change what users receive are confirmed; Draft and Testing only concern testers.
  const choose = (m: (typeof MOVES)[ReleaseStatus][number]) => (m.to === 'Live' || m.to === 'Archived' ? (move.setError(undefined), setAsking(m)) : void move.run(m.to));
  return html`<div class="page">
    <${PageHeader}
      back=${html`<${Link} href=${`/apps/${encodeURIComponent(props.appId)}/releases`}>← Releases<//>`}
      title=${html`Release ${r.version} <${Badge}>${r.status}<//>`}
      subtitle=${ABOUT[r.status]}
      actions=${MOVES[r.status].map((m) => html`<${Button} variant=${m.variant} busy=${move.busy && !asking} onClick=${() => choose(m)}>${m.label}<//>`)}
    />
    ${move.error && !asking ? html`<${Alert}>${move.error}<//>` : ''}
    ${r.templates.length === 0 ? html`<div class="card"><${Empty} title="No templates in this release">${editable ? 'Add one below.' : ''}<//></div>` : ''}
    <ul class="stack-lg template-list" aria-label="Templates">
      ${r.templates.map((t) => html`<${TemplateCard} key=${t.slug} appId=${props.appId} release=${r} template=${t} onChange=${release.reload} />`)}
    </ul>
    ${editable
      ? html`<${Card} title="Add a template" description="Title and body may use {{placeholders}}, filled from the variables of each send.">
          <${TemplateEditor} appId=${props.appId} version=${r.version} onDone=${release.reload} />
        <//>`
      : ''}
    <${ConfirmDialog}
      open=${asking !== null}
      title=${asking?.to === 'Archived' ? `Archive release ${r.version}?` : r.status === 'Archived' ? `Roll release ${r.version} back to Live?` : `Promote release ${r.version} to Live?`}
      confirmLabel=${asking?.label ?? ''}
      danger=${asking?.to === 'Archived'}
      busy=${move.busy}
      error=${move.error}
      onClose=${() => setAsking(null)}
      onConfirm=${() => asking && void move.run(asking.to)}
    >${asking ? html`<${MoveConsequence} appId=${props.appId} version=${r.version} to=${asking.to} />` : ''}<//>
  </div>`;
}
