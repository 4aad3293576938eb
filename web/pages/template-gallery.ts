import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { LIVE_ACTIVITY_TEMPLATES } from '../../src/modules/live-activities/templates';
import { Card, PageHeader, withCode } from '../components/ui';
import { admin } from '../lib/api';
import { useLoad } from '../lib/hooks';
import { Link } from '../lib/router';
import type { AppView } from '../lib/types';
import { freshSample } from '../previews/preview-model';
import { Previews } from '../previews/surfaces';

/** The eight templates with their sample data on every surface, and the fields each takes. */
export function TemplateGalleryPage() {
  const apps = useLoad(() => admin<{ apps: AppView[] }>('GET', '/apps').then((r) => r.apps), []);
  const first = apps.data?.[0];
  const [now] = useState(Date.now);
  return html`<div class="page">
    <${PageHeader} title="Template gallery" subtitle="The eight built-in Live Activity templates with their sample data, as devices show them." />
    <div class="stack-lg">
      ${LIVE_ACTIVITY_TEMPLATES.map(
        (t) => html`<${Card}
          id=${`template-${t.slug}`}
          title=${html`${t.title} <span class="mono muted small">${t.slug}</span>`}
          description=${withCode(t.description)}
          actions=${first ? html`<${Link} href=${`/apps/${encodeURIComponent(first.id)}/activities/new?template=${t.slug}`} class="btn btn-sm btn-secondary">Start in ${first.name}<//>` : ''}
        >
          <div class="gallery-item">
            <${Previews} def=${t} attributes=${t.sample.attributes} state=${freshSample(t, now).contentState} />
            <div class="gallery-fields">
              ${(['attributes', 'contentState'] as const).map(
                (part) => html`<div>
                  <h3 class="eyebrow">${part === 'attributes' ? 'Attributes' : 'Content state'}</h3>
                  ${t[part].length === 0
                    ? html`<p class="muted small field-list">none</p>`
                    : html`<ul class="field-list">${t[part].map((f) => html`<li><code>${f.name}</code>${f.required ? html`<span class="req"> required</span>` : ''}</li>`)}</ul>`}
                </div>`,
              )}
            </div>
          </div>
        <//>`,
      )}
    </div>
  </div>`;
}
