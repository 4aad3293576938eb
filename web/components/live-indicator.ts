import { html } from 'htm/preact';
import { useLiveState } from '../lib/live';

const TEXT = { live: 'Live', connecting: 'Connecting…', offline: 'Offline, reconnecting…' };

/** Whether the page is following changes as they happen; announced politely when it changes. */
export function LiveIndicator() {
  const state = useLiveState();
  return html`<span class=${`live-indicator live-${state}`} role="status" aria-live="polite" title="Updates by itself while this page is open">
    <span class="live-dot" aria-hidden="true"></span>${TEXT[state]}
  </span>`;
}
