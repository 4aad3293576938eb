import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, toast } from '../components/feedback';
import { Alert, Badge, Button, Empty, PageHeader, Spinner, TextField } from '../components/ui';
import { admin } from '../lib/api';
import { relativeTime } from '../lib/format';
import { useAction, useDialogState, useLoad } from '../lib/hooks';
import { Link, navigate } from '../lib/router';
import type { Release } from '../lib/types';
import { TemplateText } from '../previews/notification-preview';

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function NewReleaseDialog(props: { appId: string; open: boolean; nextVersion: number; onClose: () => void }) {
  const [version, setVersion] = useState('');
  const [slug, setSlug] = useState('welcome');
  const [title, setTitle] = useState('Welcome, {{name}}!');
  const [body, setBody] = useState('Thanks for joining {{app}}.');
  const shownVersion = version || String(props.nextVersion);
  const create = useAction(async () => {
    const templates = slug.trim() ? [{ slug: slug.trim(), title, body }] : [];
    const release = await admin<Release>('POST', `/apps/${encodeURIComponent(props.appId)}/releases`, { version: Number(shownVersion), status: 'Draft', templates });
    toast(`Release ${release.version} created as a draft`);
    props.onClose();
    navigate(`/apps/${encodeURIComponent(props.appId)}/releases/${release.version}`);
  });
  const slugError = slug && !SLUG.test(slug) ? 'Letters, digits, ., _ and -; starting with a letter or digit.' : undefined;
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!slugError) void create.run();
  };
  return html`<${Dialog} open=${props.open} title="New release" onClose=${props.onClose} wide>
    <form class="stack" onSubmit=${submit}>
      <p class="muted">A release groups the notification texts of one version of your app. It starts as a draft; mark it Testing to try it on testers, then promote it to Live.</p>
      ${create.error ? html`<${Alert}>${create.error}<//>` : ''}
      <${TextField} label="Version" type="number" required value=${shownVersion} onInput=${setVersion} hint="A positive integer, e.g. your app's build number." />
      <fieldset>
        <legend>First template <span class="muted small">optional; more can be added later</span></legend>
        <${TextField} label="Slug" mono value=${slug} onInput=${setSlug} error=${slugError} hint="Your backend sends with this, e.g. templateSlug: welcome." />
        <${TextField} label="Title" value=${title} onInput=${setTitle} hint=${html`Placeholders are written <code>{{name}}</code>.`} />
        <${TextField} label="Body" multiline value=${body} onInput=${setBody} />
      </fieldset>
      <div class="form-actions">
        <${Button} onClick=${props.onClose}>Cancel<//>
        <${Button} type="submit" variant="primary" busy=${create.busy}>Create release<//>
      </div>
    </form>
  <//>`;
}

export function ReleasesPage(props: { appId: string }) {
  const id = encodeURIComponent(props.appId);
  const releases = useLoad(() => admin<{ releases: Release[] }>('GET', `/apps/${id}/releases`).then((r) => r.releases), [props.appId]);
  const creating = useDialogState();
  const list = releases.data ?? [];
  const nextVersion = list.reduce((max, r) => Math.max(max, r.version), 0) + 1;
  const live = list.find((r) => r.status === 'Live');
  const newButton = html`<${Button} variant="primary" onClick=${creating.show}>New release<//>`;
  return html`<div class="page">
    <${PageHeader}
      title="Releases & templates"
      subtitle=${live ? html`Sends use release <strong>${live.version}</strong>, the Live one.` : 'No release is Live yet: sends answer 422 until one is promoted.'}
      actions=${html`${live ? html`<${Link} href=${`/apps/${id}/send`} class="btn btn-secondary">Send a notification<//>` : ''}${newButton}`}
    />
    ${releases.error ? html`<${Alert}>${releases.error}<//>` : ''}
    ${!releases.data && releases.loading ? html`<${Spinner} />` : ''}
    ${releases.data && list.length === 0
      ? html`<div class="card"><${Empty} title="No releases yet" action=${newButton}>Create a release with a notification template, then send it to your end users with variables.<//></div>`
      : ''}
    <ul class="release-list" aria-label="Releases">
      ${list.map(
        (r) => html`<li class="card release-card">
          <div class="release-head">
            <${Link} href=${`/apps/${id}/releases/${r.version}`} class="release-title">Release ${r.version}<//>
            <${Badge}>${r.status}<//>
            <span class="muted small">updated ${relativeTime(r.updatedAt)}</span>
          </div>
          ${r.templates.length === 0
            ? html`<p class="muted small">No templates.</p>`
            : html`<ul class="template-lines">
                ${r.templates.map((t) => html`<li><span class="mono slug">${t.slug}</span> <span class="muted"><${TemplateText} text=${t.title} /></span></li>`)}
              </ul>`}
        </li>`,
      )}
    </ul>
    <${NewReleaseDialog} key=${creating.round} appId=${props.appId} open=${creating.open} nextVersion=${nextVersion} onClose=${creating.close} />
  </div>`;
}
