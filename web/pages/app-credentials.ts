import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { Dialog, toast } from '../components/feedback';
import { Alert, Button, Card, CopyButton } from '../components/ui';
import { admin, appSecrets, forgetSecrets } from '../lib/api';
import { useAction } from '../lib/hooks';

type Kind = 'app-secret' | 'signing-secret';

const KINDS: { kind: Kind; key: 'appSecret' | 'signingSecret'; label: string; about: string; consequence: string }[] = [
  {
    kind: 'app-secret',
    key: 'appSecret',
    label: 'App Secret',
    about: 'Your backend sends it in the X-Service-Key header of every API call.',
    consequence: 'Every API call your backend makes with the current App Secret is refused (401) from now on: no starts, updates, sends or device registrations until it uses the new one.',
  },
  {
    kind: 'signing-secret',
    key: 'signingSecret',
    label: 'Signing Secret',
    about: 'Your backend signs end user ids with it (HMAC-SHA256) so devices can register themselves.',
    consequence: 'Devices that register themselves with a signature made from the current Signing Secret are refused (401) until your backend signs with the new one. Registered devices keep receiving.',
  },
];

/** The app's two secrets: hidden until asked for, copyable, rotatable with a confirmation. */
export function CredentialsCard(props: { appId: string }) {
  const [shown, setShown] = useState<{ appSecret: string; signingSecret: string } | null>(null);
  const [rotating, setRotating] = useState<(typeof KINDS)[number] | null>(null);
  const reveal = useAction(async () => setShown(await appSecrets(props.appId)));
  const rotate = useAction(async (kind: Kind) => {
    const res = await admin<Record<string, string>>('POST', `/apps/${encodeURIComponent(props.appId)}/secrets/${kind}`);
    forgetSecrets(props.appId);
    if (shown) setShown({ ...shown, ...res });
    toast(`${rotating?.label ?? 'Secret'} rotated: the old value no longer works`);
    setRotating(null);
  });

  return html`<${Card}
    title="Credentials"
    description="Keep these on your servers only; anyone with the App Secret can start activities for this app."
    actions=${shown
      ? html`<${Button} small onClick=${() => setShown(null)}>Hide<//>`
      : html`<${Button} small busy=${reveal.busy} onClick=${() => reveal.run()}>Show secrets<//>`}
  >
    ${reveal.error ? html`<${Alert}>${reveal.error}<//>` : ''}
    <div class="secrets">
      ${KINDS.map(
        (k) => html`<div class="secret-row">
          <div class="secret-label">
            <strong>${k.label}</strong>
            <span class="muted small">${k.about}</span>
          </div>
          <div class="secret-value">
            <code class="mono secret" aria-label=${k.label}>${shown ? shown[k.key] : '•'.repeat(24)}</code>
            ${shown ? html`<${CopyButton} text=${shown[k.key]} label=${`Copy the ${k.label}`} />` : ''}
            <${Button} small variant="ghost" onClick=${() => (rotate.setError(undefined), setRotating(k))} label=${`Rotate the ${k.label}`}>Rotate<//>
          </div>
        </div>`,
      )}
    </div>
    <${Dialog} open=${rotating !== null} title=${`Rotate the ${rotating?.label ?? ''}?`} onClose=${() => setRotating(null)}>
      <p>A new value is generated and the current one <strong>stops working at once</strong>.</p>
      <p>${rotating?.consequence}</p>
      ${rotate.error ? html`<${Alert}>${rotate.error}<//>` : ''}
      <div class="form-actions">
        <${Button} onClick=${() => setRotating(null)}>Cancel<//>
        <${Button} variant="danger" busy=${rotate.busy} onClick=${() => rotating && rotate.run(rotating.kind)}>Rotate<//>
      </div>
    <//>
  <//>`;
}
