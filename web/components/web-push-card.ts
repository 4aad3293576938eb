import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ConfirmDialog, toast } from './feedback';
import { Alert, Badge, Button, Card, CopyButton, Spinner, TextField } from './ui';
import { admin, ApiError } from '../lib/api';
import { useAction, useDialogState, useLoad } from '../lib/hooks';
import type { WebPushSettings } from '../lib/types';

/** The app's Web Push settings, or null while it has none (the API's 404). */
export function useWebPushSettings(appId: string, version = 0) {
  return useLoad(
    () => admin<WebPushSettings>('GET', `/apps/${encodeURIComponent(appId)}/web-push`).catch((e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
    [appId, version],
  );
}

/**
 * Web Push for browsers and UnifiedPush: enable it (the server makes the VAPID key pair), change
 * the contact, the default URL and the expiry, see the public key pages subscribe with, disable it.
 */
export function WebPushCard(props: { appId: string }) {
  const path = `/apps/${encodeURIComponent(props.appId)}/web-push`;
  const [version, setVersion] = useState(0);
  const settings = useWebPushSettings(props.appId, version);
  const current = settings.data;
  const [subject, setSubject] = useState('');
  const [defaultUrl, setDefaultUrl] = useState('');
  const [expiryDays, setExpiryDays] = useState('60');
  useEffect(() => {
    if (!current) return;
    setSubject(current.subject);
    setDefaultUrl(current.defaultUrl);
    setExpiryDays(String(current.expiryDays));
  }, [current?.subject, current?.defaultUrl, current?.expiryDays]);
  const days = Number(expiryDays);
  const dirty = !current || subject.trim() !== current.subject || defaultUrl.trim() !== current.defaultUrl || days !== current.expiryDays;
  const save = useAction(async () => {
    await admin<WebPushSettings>('PUT', path, { subject: subject.trim(), defaultUrl: defaultUrl.trim(), expiryDays: days });
    toast(current ? 'Web Push settings saved' : 'Web Push enabled: pages can subscribe with the public key');
    setVersion((v) => v + 1);
  });
  const confirm = useDialogState();
  const disable = useAction(async () => {
    await admin('DELETE', path);
    confirm.close();
    toast('Web Push disabled; its key pair is forgotten');
    setVersion((v) => v + 1);
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (dirty && subject.trim() && defaultUrl.trim()) void save.run();
  };
  return html`<${Card}
    title="Web Push"
    description="Browsers, Home Screen web apps (iOS 16.4+) and UnifiedPush distributors: web devices get each notification as a Declarative Web Push message."
    actions=${current ? html`<${Badge} tone="green">enabled<//>` : current === null ? html`<${Badge}>off<//>` : ''}
  >
    ${settings.error ? html`<${Alert}>${settings.error}<//>` : ''}
    ${current === undefined && settings.loading ? html`<${Spinner} />` : ''}
    ${current
      ? html`<div class="stack" aria-label="Public key">
          <p class="small">Public key (<span class="mono">applicationServerKey</span>; pages read it from <span class="mono break">GET /api/apps/${props.appId}/web-push/public-key</span>):</p>
          <p class="mono small break" data-testid="web-push-public-key">${current.publicKey}</p>
          <div><${CopyButton} text=${current.publicKey} label="Copy the public key" /></div>
        </div>`
      : ''}
    ${current === null ? html`<p class="muted small">Off: web devices cannot subscribe, and sends skip them with the reason.</p>` : ''}
    ${current !== undefined
      ? html`<form class="stack" onSubmit=${submit}>
          ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
          <${TextField} label="Contact (VAPID subject)" required mono value=${subject} onInput=${setSubject} placeholder="mailto:ops@example.com" hint="A mailto: address or an https URL the push services can reach you at (not localhost)." />
          <${TextField} label="Default URL" required mono value=${defaultUrl} onInput=${setDefaultUrl} placeholder="https://example.com/" hint="https: what a click opens when the template has no url." />
          <${TextField} label="Expiry (days)" type="number" value=${expiryDays} onInput=${setExpiryDays} hint="Days a subscription not registered again stays a target (1 to 3650; stored, not yet applied)." />
          <div class="form-actions">
            ${current ? html`<${Button} variant="ghost" onClick=${() => (disable.setError(undefined), confirm.show())}>Disable Web Push…<//>` : ''}
            <${Button} type="submit" variant="primary" disabled=${!dirty} busy=${save.busy}>${current ? 'Save Web Push settings' : 'Enable Web Push'}<//>
          </div>
        </form>`
      : ''}
    <${ConfirmDialog}
      open=${confirm.open}
      title="Disable Web Push?"
      confirmLabel="Disable Web Push"
      danger
      busy=${disable.busy}
      error=${disable.error}
      onConfirm=${() => void disable.run()}
      onClose=${confirm.close}
    >
      <p>The key pair is forgotten: every browser subscribed now must subscribe again after Web Push is enabled anew, and sends fail for web devices until then.</p>
    <//>
  <//>`;
}
