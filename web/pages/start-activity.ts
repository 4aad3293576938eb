import { html } from 'htm/preact';
import type { TargetedEvent } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { activityDataProblems } from '../../src/modules/live-activities/template-validation';
import { findTemplate, LIVE_ACTIVITY_TEMPLATES, type TemplateDefinition } from '../../src/modules/live-activities/templates';
import { ConfirmDialog, toast } from '../components/feedback';
import { noActivitiesReason, usePlanAllowsActivities } from '../components/start-action';
import { compact, fieldOfProblem, TemplateFields } from '../components/template-form';
import { CustomTemplateFields } from '../components/custom-template-form';
import { customDataError } from '../../src/modules/live-activities/custom-templates';
import { sampleTexts, typedValues, type AppTemplate } from '../lib/custom-values';
import { CustomPreview } from '../previews/custom-preview';
import { Alert, Button, Card, PageHeader, Spinner, TextField, withCode } from '../components/ui';
import { admin, publicApi } from '../lib/api';
import { useAction, useLoad } from '../lib/hooks';
import { audienceOf, plural } from '../lib/audience';
import { Link, navigate } from '../lib/router';
import type { Activity, AppView } from '../lib/types';
import { freshSample } from '../previews/preview-model';
import { Glyph } from '../previews/template-bodies';
import { Previews } from '../previews/surfaces';

function TemplatePicker(props: { value: string; custom: AppTemplate[]; onChange: (slug: string) => void }) {
  return html`<fieldset class="template-picker">
    <legend>Template</legend>
    ${props.custom.map(
      (t) => html`<label class=${`template-option${t.slug === props.value ? ' selected' : ''}`}>
        <input type="radio" name="template" value=${t.slug} checked=${t.slug === props.value} onChange=${() => props.onChange(t.slug)} />
        <${Glyph} slug="custom" />
        <span><strong class="mono">${t.slug}</strong><span class="muted small">Your template · ${t.attributesType}</span></span>
      </label>`,
    )}
    ${LIVE_ACTIVITY_TEMPLATES.map(
      (t) => html`<label class=${`template-option${t.slug === props.value ? ' selected' : ''}`}>
        <input type="radio" name="template" value=${t.slug} checked=${t.slug === props.value} onChange=${() => props.onChange(t.slug)} />
        <${Glyph} slug=${t.slug} />
        <span><strong>${t.title}</strong><span class="muted small">${t.description.split(/[,;.]\s|\.$/)[0]}</span></span>
      </label>`,
    )}
  </fieldset>`;
}

/** The API request the form sends, for developers to copy into their backend. */
function RequestPreview(props: { appId: string; body: unknown }) {
  return html`<details class="request-preview">
    <summary>API request</summary>
    <pre class="code"><code>${`POST /api/apps/${props.appId}/live-activities\nX-Service-Key: <App Secret>\n\n${JSON.stringify(props.body, null, 2)}`}</code></pre>
  </details>`;
}

/** The start form: `?template=` names a built-in or one of the app's own templates (loaded first, then its form). */
export function StartActivityPage(props: { appId: string; template?: string }) {
  const custom = useLoad(() => admin<{ templates: AppTemplate[] }>('GET', `/apps/${encodeURIComponent(props.appId)}/live-activity-templates`), [props.appId]);
  if (!custom.data) return custom.error ? html`<div class="page"><${Alert}>${custom.error}<//></div>` : html`<${Spinner} />`;
  const asked = props.template;
  const known = asked === undefined || findTemplate(asked) !== undefined || custom.data.templates.some((t) => t.slug === asked);
  return html`<${StartForm} appId=${props.appId} template=${known ? asked : undefined} custom=${custom.data.templates} unknown=${known ? undefined : asked} />`;
}

/** What a template's form starts from: a built-in's fresh sample, or a sample of each required typed field. */
function sampleOf(slug: string, custom: AppTemplate[]) {
  const builtIn = findTemplate(slug);
  if (builtIn) return freshSample(builtIn, Date.now());
  const def = custom.find((t) => t.slug === slug)!;
  return { attributes: sampleTexts(def.attributes, Date.now()), contentState: sampleTexts(def.contentState, Date.now()) };
}

function StartForm(props: { appId: string; template?: string; custom: AppTemplate[]; unknown?: string }) {
  const [slug, setSlug] = useState(props.template ?? LIVE_ACTIVITY_TEMPLATES[0]!.slug);
  const builtIn = findTemplate(slug);
  const def: TemplateDefinition | undefined = builtIn;
  const customDef = builtIn ? undefined : props.custom.find((t) => t.slug === slug)!;
  const [attributes, setAttributes] = useState<Record<string, string>>(() => sampleOf(slug, props.custom).attributes);
  const [state, setState] = useState<Record<string, string>>(() => sampleOf(slug, props.custom).contentState);
  const [targets, setTargets] = useState('');
  const [tried, setTried] = useState(false);
  const app = useLoad(() => admin<AppView>('GET', `/apps/${encodeURIComponent(props.appId)}`), [props.appId]);
  // On a plan without Live Activities the form still shows the templates and previews, but cannot start.
  const plan = usePlanAllowsActivities(props.appId);
  const blocked = plan.allowed === false;

  const pick = (next: string) => {
    const sample = sampleOf(next, props.custom);
    setSlug(next);
    setAttributes(sample.attributes);
    setState(sample.contentState);
    setTried(false);
  };
  const resetSample = () => {
    const sample = sampleOf(slug, props.custom);
    setAttributes(sample.attributes);
    setState(sample.contentState);
  };

  const targetUsers = targets
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const body = useMemo(
    () => ({
      templateSlug: slug,
      ...(customDef
        ? {
            ...(Object.keys(customDef.attributes).length > 0 ? { attributes: typedValues(customDef.attributes, attributes) } : {}),
            contentState: typedValues(customDef.contentState, state),
          }
        : { ...(def!.attributes.length > 0 ? { attributes: compact(attributes) } : {}), contentState: compact(state) }),
      ...(targetUsers.length > 0 ? { targetUsers } : {}),
    }),
    [slug, attributes, state, targets],
  );
  // Every problem at its field before sending (the API answers one at a time; an app-defined
  // template's check, the server's own, names the first); a problem the server still finds is shown at its field too.
  const customProblem = customDef ? customDataError(customDef, body.attributes, body.contentState) : undefined;
  const problems = customDef ? (customProblem ? [customProblem] : []) : activityDataProblems(def!, body.attributes as Record<string, string> | undefined, body.contentState as Record<string, string>);
  const [confirming, setConfirming] = useState(false);
  const reach = useLoad(() => (confirming ? audienceOf(props.appId) : Promise.resolve(undefined)), [confirming]);

  const start = useAction(async () => {
    const res = await publicApi<{ activityCount: number; activities: Activity[] }>(props.appId, 'POST', '/live-activities', body);
    if (res.activityCount === 0) throw new Error('No activity was started: no targeted end user has a registered device. Add a simulated device first.');
    toast(`Started ${res.activityCount} Live ${res.activityCount === 1 ? 'Activity' : 'Activities'}`);
    const only = res.activities.length === 1 ? res.activities[0] : undefined;
    navigate(`/apps/${encodeURIComponent(props.appId)}/activities${only ? `/${encodeURIComponent(only.id)}` : ''}`);
  });
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setTried(true);
    if (problems.length > 0 || blocked) return;
    // A start for everyone is confirmed with the number of devices it reaches.
    if (targetUsers.length === 0) setConfirming(true);
    else void start.run();
  };
  const serverProblem = fieldOfProblem(start.error) ? [start.error!] : [];
  const shown = tried ? [...problems, ...serverProblem] : serverProblem;

  return html`<div class="page">
    <${PageHeader}
      back=${html`<${Link} href=${`/apps/${encodeURIComponent(props.appId)}/activities`}>← Live Activities<//>`}
      title="Start a Live Activity"
      subtitle="The form is generated from the template's definition; the previews follow every keystroke."
    />
    <div class="editor">
      <form class="stack-lg editor-form" onSubmit=${submit} novalidate>
        ${props.unknown ? html`<${Alert} tone="warn">This app has no Live Activity template <span class="mono">${props.unknown}</span>: pick one below.<//>` : ''}
        <${Card}><${TemplatePicker} value=${slug} custom=${props.custom} onChange=${pick} /><//>
        <${Card}
          title=${customDef ? html`<span class="mono">${customDef.slug}</span>` : def!.title}
          description=${customDef ? html`Your template: the app's <span class="mono">${customDef.attributesType}</span> struct, started at the push-to-start token of that type.` : withCode(def!.description)}
          actions=${html`<${Button} small variant="ghost" onClick=${resetSample}>Reset to sample<//>`}
        >
          ${customDef
            ? html`<${CustomTemplateFields} def=${customDef} attributes=${attributes} state=${state} onAttributes=${setAttributes} onState=${setState} problems=${shown} />`
            : html`<${TemplateFields} def=${def!} attributes=${attributes} state=${state} onAttributes=${setAttributes} onState=${setState} problems=${shown} />`}
        <//>
        <${Card} title="Who gets it">
          <${TextField}
            label="Target end users"
            value=${targets}
            onInput=${setTargets}
            mono
            placeholder="All connected end users"
            hint="Comma-separated end user ids; empty starts it for every end user with a registered device."
          />
        <//>
        ${start.error && !confirming ? html`<${Alert}>${start.error}<//>` : ''}
        ${tried && problems.length > 0
          ? html`<${Alert}>${problems.length === 1 ? 'One field needs attention' : `${problems.length} fields need attention`}: ${problems.join('; ')}.<//>`
          : ''}
        ${blocked ? html`<${Alert} tone="warn"><span id="start-blocked">${noActivitiesReason(plan.plan)}</span><//>` : ''}
        <div class="form-actions sticky-actions">
          <${RequestPreview} appId=${props.appId} body=${body} />
          <${Button} type="submit" variant="primary" busy=${start.busy} disabled=${blocked} describedBy=${blocked ? 'start-blocked' : undefined}>Start Live Activity<//>
        </div>
      </form>
      <${ConfirmDialog}
        open=${confirming}
        title="Start for every end user?"
        confirmLabel=${reach.data ? `Start on ${plural(reach.data.iosStartable + reach.data.android + reach.data.web, 'device')}` : 'Start'}
        busy=${start.busy || !reach.data}
        error=${start.error ?? reach.error}
        onClose=${() => setConfirming(false)}
        onConfirm=${() => void start.run()}
      >
        ${reach.data
          ? // One line: htm drops a line break (and its indentation) before a tag, which ran "on" into the count ("on1 device").
            html`<p>A <strong>${def?.title ?? slug}</strong> activity starts for ${reach.data.endUsers === 1 ? 'the one end user' : `each of ${plural(reach.data.endUsers, 'end user')}`}, on <strong>${plural(reach.data.iosStartable + reach.data.android + reach.data.web, 'device')}</strong> (${plural(reach.data.iosStartable, 'iPhone')} with a push-to-start token, ${plural(reach.data.android, 'Android device')}${reach.data.web ? `, ${plural(reach.data.web, 'browser')}` : ''}).</p>
              ${reach.data.ios > reach.data.iosStartable ? html`<p class="muted small">${plural(reach.data.ios - reach.data.iosStartable, 'iPhone')} without a push-to-start token cannot be reached.</p>` : ''}
              <p class="muted small">Each activity counts minutes until it ends. To reach a few people, name them under “Who gets it”.</p>`
          : html`<${Spinner} label="Counting devices…" />`}
      <//>
      <aside class="editor-preview" aria-label="Live preview">
        ${customDef
          ? html`<${CustomPreview} templateSlug=${slug} attributes=${body.attributes ?? {}} state=${body.contentState} />`
          : html`<${Previews} def=${def!} attributes=${attributes} state=${state} appName=${app.data?.name} />`}
      </aside>
    </div>
  </div>`;
}
