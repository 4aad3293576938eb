import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { PageHeader } from '../components/ui';
import { Link } from '../lib/router';

/** A console address that leads nowhere: says what was not found and links back to the apps. */
export function NotFoundPage(props: { title: string; children: ComponentChildren }) {
  return html`<div class="page not-found">
    <${PageHeader} title=${props.title} />
    <div class="card stack">
      <p>${props.children}</p>
      <div class="form-actions"><${Link} href="/" class="btn btn-primary">Back to your apps<//></div>
    </div>
  </div>`;
}

export function AppNotFoundPage(props: { appId: string }) {
  return html`<${NotFoundPage} title="App not found">
    No app has the id <strong class="mono">${props.appId}</strong>: check the address, or pick the app from the list (it may have been deleted).
  <//>`;
}
