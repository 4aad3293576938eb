/**
 * What each mutating admin route records in the audit log: an action name and a summary of the
 * change built from the request body (and the answer, for ids the server made). A summary names
 * non-secret fields only: a secret's value, an APNs key or a service account's private key never
 * appear. A test checks that every mutating admin route is listed here.
 */

type Body = Record<string, unknown> | undefined;
type Summarize = (body: Body, answer: unknown) => Record<string, unknown>;

interface AuditAction {
  action: string;
  summarize?: Summarize;
}

/** The named fields of the body that are present. */
const pick =
  (...keys: string[]): Summarize =>
  (body) =>
    Object.fromEntries(keys.filter((k) => body?.[k] !== undefined).map((k) => [k, body![k]]));

const clip = (value: unknown, max = 200) => (typeof value === 'string' && value.length > max ? `${value.slice(0, max)}…` : value);

/**
 * A webhook endpoint's change: its URL by origin only, since receivers often carry a secret in the
 * path or query (Slack-style hook paths, `?token=`).
 */
function webhookSummary(body: Body): Record<string, unknown> {
  const fields = pick('events', 'description')(body, undefined);
  if (typeof body?.url !== 'string') return fields;
  let origin: string;
  try {
    origin = new URL(body.url).origin;
  } catch {
    origin = 'invalid URL';
  }
  return { url: origin, ...fields };
}

/** Keyed by `METHOD route template` (the route as Elysia reports it). */
export const AUDITED_ROUTES: Record<string, AuditAction> = {
  'POST /api/admin/apps': {
    action: 'app.create',
    summarize: (body, answer) => ({ ...pick('name', 'plan')(body, answer), id: (answer as { app?: { id?: string } })?.app?.id }),
  },
  'POST /api/admin/demo': { action: 'demo.create' },
  'PATCH /api/admin/apps/:appId': { action: 'app.update', summarize: pick('name', 'plan', 'defaultTimeZone', 'liveActivityBudget', 'quietHours', 'frequencyCap') },
  'DELETE /api/admin/apps/:appId': { action: 'app.delete' },
  'POST /api/admin/apps/:appId/secrets/:kind': { action: 'secret.rotate' },
  'PUT /api/admin/apps/:appId/apns': { action: 'apns.set', summarize: pick('bundleId', 'teamId', 'keyId', 'environment', 'endpoint') },
  'DELETE /api/admin/apps/:appId/apns': { action: 'apns.remove' },
  'PUT /api/admin/apps/:appId/fcm': {
    action: 'fcm.set',
    summarize: (body) => {
      const account = (body?.serviceAccount ?? {}) as Record<string, unknown>;
      return { projectId: account.project_id, clientEmail: account.client_email, ...pick('endpoint')(body, undefined) };
    },
  },
  'DELETE /api/admin/apps/:appId/fcm': { action: 'fcm.remove' },
  // The VAPID private key is never in an entry: it is generated or read from a file, not sent.
  'PUT /api/admin/apps/:appId/web-push': { action: 'web-push.set', summarize: pick('subject', 'defaultUrl', 'expiryDays') },
  'DELETE /api/admin/apps/:appId/web-push': { action: 'web-push.remove' },
  'PATCH /api/admin/apps/:appId/end-users/:endUserId': { action: 'tester.set', summarize: pick('tester') },
  'POST /api/admin/apps/:appId/devices': { action: 'device.register', summarize: pick('endUserId', 'platform', 'environment', 'tester') },
  'DELETE /api/admin/apps/:appId/devices/:deviceId': { action: 'device.remove' },
  'DELETE /api/admin/apps/:appId/broadcast-channels': { action: 'broadcast-channel.remove', summarize: (_body, answer) => ({ channelId: (answer as { channelId?: string })?.channelId }) },
  'POST /api/admin/apps/:appId/releases': {
    action: 'release.create',
    summarize: (body) => ({
      ...pick('version', 'status')(body, undefined),
      templates: Array.isArray(body?.templates) ? body.templates.map((t: { slug?: unknown }) => t.slug) : [],
    }),
  },
  'PATCH /api/admin/apps/:appId/releases/:version': { action: 'release.status', summarize: pick('status') },
  'PUT /api/admin/apps/:appId/releases/:version/templates/:slug': {
    action: 'template.put',
    summarize: (body) => ({ title: clip(body?.title), body: clip(body?.body) }),
  },
  'DELETE /api/admin/apps/:appId/releases/:version/templates/:slug': { action: 'template.delete' },
  'POST /api/admin/apps/:appId/live-activity-templates': { action: 'live-activity-template.create', summarize: pick('slug', 'attributesType') },
  'PUT /api/admin/apps/:appId/live-activity-templates/:slug': { action: 'live-activity-template.replace', summarize: pick('attributesType') },
  'DELETE /api/admin/apps/:appId/live-activity-templates/:slug': { action: 'live-activity-template.delete' },
  'POST /api/admin/apps/:appId/webhooks': {
    action: 'webhook.create',
    summarize: (body, answer) => ({ ...webhookSummary(body), id: (answer as { id?: string })?.id }),
  },
  'PATCH /api/admin/apps/:appId/webhooks/:id': { action: 'webhook.update', summarize: (body) => ({ ...webhookSummary(body), ...pick('enabled')(body, undefined) }) },
  'DELETE /api/admin/apps/:appId/webhooks/:id': { action: 'webhook.delete' },
  'POST /api/admin/apps/:appId/webhooks/:id/secret': { action: 'webhook.secret-rotate' },
  'POST /api/admin/apps/:appId/webhooks/:id/test': { action: 'webhook.test' },
};

/** Every action name, for filters and the console. */
export const AUDIT_ACTIONS = [...new Set([...Object.values(AUDITED_ROUTES).map((a) => a.action), 'console.sign-in', 'admin-token.reset'])];

/** The audit action of a mutating request, or undefined for reads. */
export function auditedRoute(method: string, route: string): AuditAction | undefined {
  return AUDITED_ROUTES[`${method} ${route}`];
}
