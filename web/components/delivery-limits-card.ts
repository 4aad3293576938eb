import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { toast } from './feedback';
import { Alert, Button, Card, TextField } from './ui';
import { admin } from '../lib/api';
import { useAction } from '../lib/hooks';
import type { AppView } from '../lib/types';

/** The text fields of the app's limits: empty while unset. */
const fieldsOf = (app: AppView) => ({
  start: app.quietHours?.start ?? '',
  end: app.quietHours?.end ?? '',
  count: app.frequencyCap ? String(app.frequencyCap.count) : '',
  perHours: app.frequencyCap ? String(app.frequencyCap.perHours) : '',
});

/**
 * Quiet hours and the frequency cap of the app (issue 48): both times empty turn quiet hours off,
 * both numbers empty the cap. The server checks the values; its 400 names the field.
 */
export function DeliveryLimitsCard(props: { app: AppView; onChange: (app: AppView) => void }) {
  const [fields, setFields] = useState(fieldsOf(props.app));
  const saved = fieldsOf(props.app);
  useEffect(() => setFields(fieldsOf(props.app)), [JSON.stringify(saved)]);
  const set = (key: keyof typeof fields) => (value: string) => setFields({ ...fields, [key]: value.trim() });
  const dirty = JSON.stringify(fields) !== JSON.stringify(saved);
  const save = useAction(async () => {
    const quietHours = fields.start === '' && fields.end === '' ? null : { start: fields.start, end: fields.end };
    const frequencyCap = fields.count === '' && fields.perHours === '' ? null : { count: Number(fields.count), perHours: Number(fields.perHours) };
    const app = await admin<AppView>('PATCH', `/apps/${encodeURIComponent(props.app.id)}`, { quietHours, frequencyCap });
    props.onChange(app);
    toast('Delivery limits saved');
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (dirty) void save.run();
  };
  return html`<${Card} title="Quiet hours and frequency cap" description="For plain notifications; time-sensitive and critical ones, silent pushes and Live Activities go at once. End users may have their own (users API).">
    <form class="stack" onSubmit=${submit}>
      ${save.error ? html`<${Alert}>${save.error}<//>` : ''}
      <div class="grid-2">
        <${TextField} label="Quiet from" mono placeholder="22:00" value=${fields.start} onInput=${set('start')} hint="HH:MM in each device's time zone (else the default zone); empty: no quiet hours." />
        <${TextField} label="Quiet until" mono placeholder="07:00" value=${fields.end} onInput=${set('end')} hint="Held notifications go then; before the start: the window crosses midnight." />
        <${TextField} label="At most (notifications)" type="number" placeholder="3" value=${fields.count} onInput=${set('count')} hint="Per end user, 1 to 1,000; empty: no cap." />
        <${TextField} label="Per (hours)" type="number" placeholder="24" value=${fields.perHours} onInput=${set('perHours')} hint="1 to 168. One more is not sent: dropped, reason “frequency cap”." />
      </div>
      <div class="form-actions"><${Button} type="submit" variant="primary" disabled=${!dirty} busy=${save.busy}>Save limits<//></div>
    </form>
  <//>`;
}
