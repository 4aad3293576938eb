import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { TemplateDefinition } from '../../src/modules/live-activities/templates';
import { compactValue, headline, type Values } from './preview-model';
import { AndroidExtra, Glyph, TemplateBody, type BodyProps } from './template-bodies';

/** The wall-clock time, ticking every second while a countdown is on screen. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

export function LockScreen(props: BodyProps & { appName: string }) {
  return html`<div class="pv-lock">
    <div class="pv-lock-clock" aria-hidden="true">9:41</div>
    <div class="pv-la">
      <div class="pv-la-head"><span class="pv-app-icon" aria-hidden="true"><${Glyph} slug=${props.def.slug} /></span><span>${props.appName}</span></div>
      <${TemplateBody} ...${props} />
    </div>
  </div>`;
}

export function IslandCompact(props: BodyProps) {
  return html`<div class="pv-island-stage">
    <div class="pv-island pv-compact">
      <span class="pv-lead"><${Glyph} slug=${props.def.slug} /></span>
      <span class="pv-camera" aria-hidden="true"></span>
      <span class="pv-trail">${compactValue(props.def, props.state, props.now)}</span>
    </div>
  </div>`;
}

export function IslandExpanded(props: BodyProps) {
  return html`<div class="pv-island-stage">
    <div class="pv-island pv-expanded">
      <span class="pv-camera pv-camera-top" aria-hidden="true"></span>
      <div class="pv-exp-top">
        <span class="pv-lead"><${Glyph} slug=${props.def.slug} /></span>
        <span class="pv-trail">${compactValue(props.def, props.state, props.now)}</span>
      </div>
      <${TemplateBody} ...${props} />
    </div>
  </div>`;
}

export function AndroidNotification(props: BodyProps & { appName: string }) {
  const { title, text } = headline(props.def, props.attributes, props.state, props.now);
  return html`<div class="pv-android-stage">
    <div class="pv-android">
      <div class="pv-android-head">
        <span class="pv-android-icon" aria-hidden="true"><${Glyph} slug=${props.def.slug} /></span>
        <span>${props.appName}</span><span aria-hidden="true">·</span><span>now</span>
        <span class="pv-android-ongoing" title="Ongoing">ongoing</span>
      </div>
      <div class="pv-android-title">${title}</div>
      ${text ? html`<div class="pv-android-text">${text}</div>` : ''}
      <${AndroidExtra} ...${props} />
    </div>
  </div>`;
}

const SURFACES = [
  { key: 'lock', label: 'Lock Screen', note: 'iOS' },
  { key: 'compact', label: 'Dynamic Island · compact', note: 'iOS 16.1+' },
  { key: 'expanded', label: 'Dynamic Island · expanded', note: 'iOS 16.1+' },
  { key: 'android', label: 'Ongoing notification', note: 'Android' },
] as const;

/**
 * The four places a Live Activity appears, rendered from the same values as the form: they
 * update on every keystroke. `only` limits them to some platforms (those of the devices an
 * activity runs on: an iPhone and an Android phone show both).
 */
export function Previews(props: { def: TemplateDefinition; attributes: Values; state: Values; appName?: string; only?: ('ios' | 'android')[] }) {
  const now = useNow(props.def.slug === 'countdown');
  const body: BodyProps & { appName: string } = { def: props.def, attributes: props.attributes, state: props.state, now, appName: props.appName ?? 'Your app' };
  const shown = SURFACES.filter((s) => !props.only || props.only.includes(s.key === 'android' ? 'android' : 'ios'));
  return html`<div class="previews" aria-label=${`Preview of ${props.def.title}`} role="group" data-template=${props.def.slug}>
    ${shown.map(
      (s) => html`<figure class="preview" data-surface=${s.key}>
        <figcaption><span>${s.label}</span><span class="muted small">${s.note}</span></figcaption>
        ${s.key === 'lock' ? html`<${LockScreen} ...${body} />` : ''}
        ${s.key === 'compact' ? html`<${IslandCompact} ...${body} />` : ''}
        ${s.key === 'expanded' ? html`<${IslandExpanded} ...${body} />` : ''}
        ${s.key === 'android' ? html`<${AndroidNotification} ...${body} />` : ''}
      </figure>`,
    )}
  </div>`;
}
