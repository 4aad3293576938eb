import { html } from 'htm/preact';
import { publicApi } from '../lib/api';
import { plural } from '../lib/audience';
import { useLoad } from '../lib/hooks';
import { Alert, SelectField, Spinner, TextField } from './ui';

/** The audience as typed: tag conditions one per line (`plan=gold,platinum`), a platform, locales. */
export interface AudienceDraft {
  tags: string;
  platform: '' | 'ios' | 'android' | 'web';
  locales: string;
}

export const emptyAudience: AudienceDraft = { tags: '', platform: '', locales: '' };

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The `audience` of a send (issue 38) from the draft; the server checks keys and locales. */
export function audienceBody(draft: AudienceDraft) {
  const tags: Record<string, string | string[]> = {};
  for (const line of draft.tags.split('\n')) {
    const at = line.indexOf('=');
    if (at < 0) continue;
    const values = list(line.slice(at + 1));
    if (values.length > 0) tags[line.slice(0, at).trim()] = values.length === 1 ? values[0]! : values;
  }
  const locales = list(draft.locales);
  return {
    ...(Object.keys(tags).length > 0 ? { tags } : {}),
    ...(draft.platform ? { platform: draft.platform } : {}),
    ...(locales.length > 0 ? { locales } : {}),
  };
}

/** Builds an audience and shows how many devices and end users it reaches now (`POST …/notifications/audience-count`). */
export function AudienceBuilder(props: { appId: string; value: AudienceDraft; onChange: (value: AudienceDraft) => void }) {
  const body = audienceBody(props.value);
  const key = JSON.stringify(body);
  const count = useLoad(() => publicApi<{ devices: number; users: number }>(props.appId, 'POST', '/notifications/audience-count', { audience: body }), [props.appId, key]);
  const set = (change: Partial<AudienceDraft>) => props.onChange({ ...props.value, ...change });
  return html`<div class="stack">
    <${TextField}
      label="Tags"
      multiline
      mono
      value=${props.value.tags}
      onInput=${(tags: string) => set({ tags })}
      placeholder="plan=gold,platinum"
      hint="One condition per line, key=value; several values: any of them. Every line must match."
    />
    <div class="grid-2">
      <${SelectField}
        label="Platform"
        value=${props.value.platform}
        onChange=${(platform: AudienceDraft['platform']) => set({ platform })}
        options=${[
          { value: '', label: 'Any platform' },
          { value: 'ios', label: 'iOS' },
          { value: 'android', label: 'Android' },
          { value: 'web', label: 'Web' },
        ]}
      />
      <${TextField} label="Locales" mono value=${props.value.locales} onInput=${(locales: string) => set({ locales })} placeholder="de, pt-BR" hint="A language matches its regional locales." />
    </div>
    <div role="status" aria-label="Audience size">
      ${count.error
        ? html`<${Alert}>${count.error}<//>`
        : count.data
          ? html`<p>Reaches <strong>${plural(count.data.devices, 'device')}</strong> of ${plural(count.data.users, 'end user')}.</p>`
          : html`<${Spinner} label="Counting devices…" />`}
    </div>
  </div>`;
}
