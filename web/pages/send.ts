import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ConfirmDialog, toast } from '../components/feedback';
import { AudienceBuilder, audienceBody, emptyAudience, type AudienceDraft } from '../components/audience-builder';
import { MessageStatusPanel } from '../components/message-status';
import { dueText, localText, ScheduledSendsCard, sendTimeFields } from '../components/scheduled-sends';
import { Alert, Button, Card, Empty, PageHeader, SelectField, Spinner, TextField } from '../components/ui';
import { admin, publicApi } from '../lib/api';
import { useAction, useLoad } from '../lib/hooks';
import { audienceOf, plural } from '../lib/audience';
import { Link } from '../lib/router';
import type { AppView, Release } from '../lib/types';
import { NotificationPreview } from '../previews/notification-preview';
import { useWebPushSettings } from '../components/web-push-card';
import { localizationsDraftOf, localizedTexts, PreviewLanguage } from '../components/localizations-editor';
import type { RichTemplate } from '../components/notification-options';

/** Sends a notification as the app's backend would: from the Live release, or a Testing one to testers. */
export function SendPage(props: { appId: string; release?: string; template?: string }) {
  const id = encodeURIComponent(props.appId);
  const releases = useLoad(() => admin<{ releases: Release[] }>('GET', `/apps/${id}/releases`).then((r) => r.releases), [props.appId]);
  const app = useLoad(() => admin<AppView>('GET', `/apps/${id}`), [props.appId]);
  const webPush = useWebPushSettings(props.appId);
  const usable = (releases.data ?? []).filter((r) => r.status === 'Live' || r.status === 'Testing');
  const [version, setVersion] = useState(props.release ?? '');
  const [slug, setSlug] = useState(props.template ?? '');
  const [variables, setVariables] = useState<Record<string, string>>({});
  const [targets, setTargets] = useState('');
  // Who: end users by id (none: everyone), or an audience of tags, platform and locales.
  const [mode, setMode] = useState<'users' | 'audience'>('users');
  const [audience, setAudience] = useState<AudienceDraft>(emptyAudience);
  const [sent, setSent] = useState<{ count: number; messageId: string | null; scheduledFor?: string; local?: string } | undefined>();
  const [when, setWhen] = useState<'now' | 'at' | 'local'>('now');
  const [sendTime, setSendTime] = useState('');
  const [sends, setSends] = useState(0);

  // Default to the Live release and its first template once the releases are known.
  useEffect(() => {
    if (!releases.data) return;
    const chosen = usable.find((r) => String(r.version) === version) ?? usable.find((r) => r.status === 'Live') ?? usable[0];
    if (chosen && String(chosen.version) !== version) setVersion(String(chosen.version));
    if (chosen && !chosen.templates.some((t) => t.slug === slug)) setSlug(chosen.templates[0]?.slug ?? '');
  }, [releases.data, version]);

  const release = usable.find((r) => String(r.version) === version);
  // The admin API answers each template whole: its options and languages too.
  const template = release?.templates.find((t) => t.slug === slug) as RichTemplate | undefined;
  const [previewTag, setPreviewTag] = useState('');
  const languageRows = localizationsDraftOf(template?.localizations);
  const shown = template ? localizedTexts({ title: template.title, body: template.body, subtitle: template.subtitle }, languageRows, previewTag) : undefined;
  const testing = release?.status === 'Testing';
  const targetUsers = targets
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const send = useAction(async () => {
    const res = await publicApi<{ messageCount: number; messageId: string | null; scheduledFor?: string }>(props.appId, 'POST', '/notifications/send', {
      templateSlug: slug,
      variables: Object.fromEntries(Object.entries(variables).filter(([k]) => template?.placeholders.includes(k))),
      ...(mode === 'audience' ? { audience: audienceBody(audience) } : targetUsers.length > 0 ? { targetUsers } : {}),
      ...(testing ? { testReleaseVersion: release!.version } : {}),
      ...sendTimeFields(when, sendTime),
    });
    const local = when === 'local' ? sendTime : undefined;
    setSent({ count: res.messageCount, messageId: res.messageId, scheduledFor: res.scheduledFor, local });
    setSends((n) => n + 1);
    toast(res.scheduledFor ? `Scheduled for ${local ? localText(local) : dueText(res.scheduledFor)}` : `${res.messageCount} notification${res.messageCount === 1 ? '' : 's'} queued`);
  });
  const scheduling = when !== 'now' && sendTime !== '';
  const whenText = when === 'local' ? localText(sendTime) : sendTime ? dueText(new Date(sendTime).toISOString()) : '';
  // A send to everyone (or every tester) is confirmed with the number of devices it reaches.
  const [confirming, setConfirming] = useState(false);
  const reach = useLoad(() => (confirming ? audienceOf(props.appId, testing) : Promise.resolve(undefined)), [confirming, testing]);
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSent(undefined);
    if (!template) return;
    // An audience shows its count beside the form already.
    if (mode === 'users' && targetUsers.length === 0) setConfirming(true);
    else void send.run();
  };
  const confirmSend = async () => {
    if (await send.run()) setConfirming(false);
  };

  if (!releases.data) return releases.error ? html`<div class="page"><${Alert}>${releases.error}<//></div>` : html`<${Spinner} />`;
  return html`<div class="page">
    <${PageHeader} title="Send a notification" subtitle="Rendered from a template of the Live release, or of a Testing release for testers only." />
    ${usable.length === 0
      ? html`<div class="card"><${Empty} title="Nothing to send yet" action=${html`<${Link} href=${`/apps/${id}/releases`} class="btn btn-primary">Go to releases<//>`}>
          Sends use a template of the Live release (or of a Testing release, for testers). Create a release and promote it first.
        <//></div>`
      : html`<div class="editor">
          <form class="stack-lg editor-form" onSubmit=${submit}>
            <${Card} title="Template">
              <div class="grid-2">
                <${SelectField}
                  label="Release"
                  value=${version}
                  onChange=${(v: string) => (setVersion(v), setSent(undefined))}
                  options=${usable.map((r) => ({ value: String(r.version), label: r.status === 'Live' ? `Release ${r.version} (Live)` : `Release ${r.version} (Testing — testers only)` }))}
                />
                <${SelectField}
                  label="Template"
                  value=${slug}
                  onChange=${(v: string) => (setSlug(v), setSent(undefined))}
                  options=${(release?.templates ?? []).map((t) => ({ value: t.slug, label: t.slug }))}
                />
              </div>
              ${testing ? html`<${Alert} tone="info">A test send: only end users marked as testers receive it (<${Link} href=${`/apps/${id}/devices`}>manage testers<//>).<//>` : ''}
              ${release && release.templates.length === 0 ? html`<${Alert} tone="warn">This release has no templates.<//>` : ''}
            <//>
            ${template
              ? html`<${Card} title="Variables" description=${template.placeholders.length === 0 ? 'This template has no placeholders.' : 'Placeholders without a value render as nothing.'}>
                  <div class="stack">
                    ${template.placeholders.map(
                      (p) => html`<${TextField} label=${p} value=${variables[p] ?? ''} onInput=${(v: string) => setVariables({ ...variables, [p]: v })} />`,
                    )}
                  </div>
                <//>`
              : ''}
            <${Card} title="Who gets it">
              <${SelectField}
                label="Send to"
                value=${mode}
                onChange=${(v: 'users' | 'audience') => setMode(v)}
                options=${[
                  { value: 'users', label: 'End users by id, or everyone' },
                  { value: 'audience', label: 'An audience (tags, platform, locales)' },
                ]}
              />
              ${mode === 'audience'
                ? html`<${AudienceBuilder} appId=${props.appId} value=${audience} onChange=${setAudience} />`
                : html`<${TextField} label="Target end users" mono value=${targets} onInput=${setTargets} placeholder=${testing ? 'All testers' : 'All connected end users'} hint="Comma-separated end user ids; empty sends to everyone connected." />`}
            <//>
            <${Card} title="When">
              <div class="grid-2">
                <${SelectField}
                  label="Send"
                  value=${when}
                  onChange=${(v: 'now' | 'at' | 'local') => setWhen(v)}
                  options=${[
                    { value: 'now', label: 'Now' },
                    { value: 'at', label: 'At a time (your time zone)' },
                    { value: 'local', label: "At a time in each device's time zone" },
                  ]}
                />
                ${when === 'now'
                  ? ''
                  : html`<${TextField} label="Time" type="datetime-local" value=${sendTime} onInput=${setSendTime} required hint=${when === 'local' ? "Each device gets it at this wall time where it is; devices without a time zone use the app's default." : 'At most 30 days ahead.'} />`}
              </div>
            <//>
            ${send.error && !confirming ? html`<${Alert}>${send.error}<//>` : ''}
            ${sent !== undefined
              ? html`<${Alert} tone="success">
                  ${sent.scheduledFor
                    ? html`<strong>Scheduled for ${sent.local ? localText(sent.local) : dueText(sent.scheduledFor)}</strong> (${sent.count} ${sent.count === 1 ? 'device' : 'devices'} now).${sent.local ? ` The first zone's goes at ${dueText(sent.scheduledFor)} here.` : ''}`
                    : html`<strong>${sent.count} notification${sent.count === 1 ? '' : 's'} queued.</strong> ${sent.count === 0 ? 'No targeted end user has a device.' : ''}`}
                  ${/* Its own space: htm drops the line break before a tag. */ ' '}${sent.messageId ? html`<${Link} href=${`/apps/${id}/deliveries?messageId=${encodeURIComponent(sent.messageId)}`}>See deliveries →<//>` : ''}
                  ${sent.messageId ? html`<${MessageStatusPanel} key=${sent.messageId} appId=${props.appId} messageId=${sent.messageId} />` : ''}
                <//>`
              : ''}
            <div class="form-actions"><${Button} type="submit" variant="primary" busy=${send.busy} disabled=${!template}>${when === 'now' ? 'Send notification' : 'Schedule notification'}<//></div>
            <${ScheduledSendsCard} appId=${props.appId} version=${sends} />
          </form>
          <${ConfirmDialog}
            open=${confirming}
            title=${`${scheduling ? 'Schedule' : 'Send'} to every ${testing ? 'tester' : 'end user'}?`}
            confirmLabel=${reach.data ? `${scheduling ? 'Schedule for' : 'Send to'} ${plural(reach.data.devices, 'device')}` : scheduling ? 'Schedule' : 'Send'}
            busy=${send.busy || !reach.data}
            error=${send.error ?? reach.error}
            onClose=${() => setConfirming(false)}
            onConfirm=${confirmSend}
          >
            ${reach.data
              ? html`<p><span class="mono">${slug}</span> ${scheduling ? html`is scheduled for <strong>${whenText}</strong>: it goes` : 'goes'} to <strong>${plural(reach.data.devices, 'device')}</strong> of ${plural(reach.data.endUsers, testing ? 'tester' : 'end user')} (${reach.data.ios.toLocaleString()} iOS, ${reach.data.android.toLocaleString()} Android${reach.data.web ? `, ${reach.data.web.toLocaleString()} web` : ''}), from release ${release?.version}${scheduling ? ' as they are now; who gets it is decided when it goes' : ''}.</p>
                  <p class="muted small">${scheduling ? 'It can be cancelled under “Scheduled” until it goes.' : 'A notification cannot be called back once sent.'} To reach a few people, name them under “Who gets it”.</p>`
              : html`<${Spinner} label="Counting devices…" />`}
          <//>
          <aside class="editor-preview" aria-label="Preview">
            ${template && shown
              ? html`<div class="stack">
                  <${PreviewLanguage} rows=${languageRows} value=${previewTag} onChange=${setPreviewTag} />
                  ${languageRows.length > 0 ? html`<p class="muted small">Each device gets the language of its locale: ${languageRows.map((r) => html`<span class="mono">${r.tag}</span> `)}or the default.</p>` : ''}
                  <${NotificationPreview} title=${shown.title} body=${shown.body} variables=${variables} appName=${app.data?.name} options=${{ ...template, subtitle: shown.subtitle }} webDefaultUrl=${webPush.data === null ? null : webPush.data?.defaultUrl} />
                </div>`
              : ''}
          </aside>
        </div>`}
  </div>`;
}
