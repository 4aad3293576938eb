import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { Alert, Button, TextField } from '../components/ui';
import { Logo } from '../components/shell';
import { session, type SessionInfo } from '../lib/api';
import { useAction } from '../lib/hooks';

/** The admin token in, a session cookie out (the token itself is never stored by the page). */
export function SignInPage(props: { onSignedIn: (info: SessionInfo) => void; expired?: boolean }) {
  const [token, setToken] = useState('');
  const action = useAction(async () => props.onSignedIn(await session.signIn(token)));
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (token.trim()) void action.run();
  };
  return html`<main class="signin" id="main">
    <form class="signin-card" onSubmit=${submit} aria-labelledby="signin-title">
      <div class="signin-brand"><${Logo} /> Islet</div>
      <h1 id="signin-title">Sign in to the console</h1>
      <p class="muted">Live Activities, ongoing notifications and push templates for your apps, from your own server.</p>
      ${props.expired && !action.error ? html`<${Alert} tone="info">Your session ended. Sign in again to continue.<//>` : ''}
      ${action.error ? html`<${Alert}>${action.error}<//>` : ''}
      <${TextField}
        label="Admin token"
        type="password"
        name="token"
        autoComplete="current-password"
        required
        mono
        value=${token}
        onInput=${setToken}
        hint=${html`Printed on the first start, or set with <code>[admin] token</code> / <code>ISLET_ADMIN_TOKEN</code>.`}
      />
      <${Button} type="submit" variant="primary" busy=${action.busy}>Sign in<//>
    </form>
    <p class="signin-foot muted"><a href="/swagger">API documentation</a></p>
  </main>`;
}
