import { problem, type ProblemExtensions } from '../../lib/errors';
import { DEMO } from '../apps/demo.service';

/**
 * A real example of each documented error answer: the status's own title, and a detail the server
 * answers for that operation (the spec's texts, the validation sentences, what authentication,
 * the body reader, idempotency and the database answer), with the extension members it adds.
 * Applied by documentAnswers; docs.error-examples.test.ts checks that each detail is one the
 * server's code produces, docs.contract.e2e.test.ts that drawn answers carry the documented members.
 */

type Json = Record<string, any>;

/**
 * What the examples need from modules that import this one (live-activities imports the docs'
 * polish), given by the app that joins them: the eight template slugs.
 */
export interface ErrorFacts {
  templateSlugs: readonly string[];
}

export interface ProblemExample {
  summary: string;
  value: Json;
}

const example = (summary: string, status: number, detail: string, extensions?: ProblemExtensions): ProblemExample => ({
  summary,
  value: problem(status, detail, extensions),
});

const TYPO = 'progres-bar';

/** Extension members an error adds, as the document declares them (by operation and status). */
const templateSlugMembers = (facts: ErrorFacts) => ({
  templateSlug: { type: 'string', description: 'The templateSlug as sent (its first 200 characters).' },
  validSlugs: {
    type: 'array',
    items: { type: 'string' },
    examples: [[...facts.templateSlugs]],
    description: 'The eight template slugs, then the slugs of the templates the app defined.',
  },
});
const TEMPLATE_NOT_FOUND_MEMBERS = {
  slug: { type: 'string', description: 'The template slug as sent (its first 200 characters).' },
  releaseVersion: { type: 'integer', description: 'The release that has no template of that slug.' },
};
const SERVICE_KEY_MEMBERS = {
  appId: { type: 'string', description: 'The app id of the path, as sent (`invalid service key` only).' },
  keyAppId: { type: 'string', description: 'When the key is the App Secret of another app: that app (a typo in the path).' },
  hint: { type: 'string', description: 'What to check: the app id or the key (the same for an unknown app and a wrong key).' },
};

/** Operations that start an activity from a template: the spec's 400 with the slug and the valid ones. */
const STARTS = new Set(['POST /api/apps/{appId}/live-activities', 'PUT /api/apps/{appId}/live-activity-streams/{key}', 'POST /api/apps/{appId}/broadcasts']);
const TEMPLATE_404 = new Set(['POST /api/apps/{appId}/notifications/send', 'DELETE /api/admin/apps/{appId}/releases/{version}/templates/{slug}']);

/** The extension members the problem schema of this answer declares, if any. */
export function problemMembers(key: string, status: string, path: string, facts: ErrorFacts): Json | undefined {
  if (status === '400' && STARTS.has(key)) return templateSlugMembers(facts);
  if (status === '404' && TEMPLATE_404.has(key)) return TEMPLATE_NOT_FOUND_MEMBERS;
  if (status === '401' && path.startsWith('/api/apps/')) return SERVICE_KEY_MEMBERS;
  return undefined;
}

const invalidTemplateSlug = (facts: ErrorFacts) =>
  example('An unknown template slug', 400, 'invalid template slug', { templateSlug: TYPO, validSlugs: [...facts.templateSlugs] });
const templateNotFound = (releaseVersion: number) =>
  example('No template of that slug in the release', 404, 'notification template not found', { slug: 'order-shiped', releaseVersion });

const BOTH_TARGETS = example('An audience and targetUsers', 400, 'audience and targetUsers cannot be given together');
const TAG_BREACHES = [
  example('A malformed tag key', 400, 'tag key "plan!" must be 1 to 64 letters, digits, _, -, . or :'),
  example('A value over 256 characters', 400, 'tag "bio" has a value of 300 characters: at most 256'),
  example('Too many tags', 400, 'an end user has at most 64 tags: this would make 65'),
];

/** Answers particular to one operation, by `METHOD /path` and status; the generic ones follow them. */
const particular = (facts: ErrorFacts): Record<string, Record<string, ProblemExample[]>> => ({
  'POST /api/apps/{appId}/live-activities': {
    '400': [invalidTemplateSlug(facts), example('A missing field of the template', 400, 'contentState.progress is required'), example('A payload over the limit', 400, 'payload exceeds 4096 bytes'), BOTH_TARGETS],
    '403': [example('A plan without Live Activities', 403, 'live activities are not available on your current plan')],
    '429': [example('Minutes used up', 429, 'live activity minutes limit exceeded for this billing period')],
  },
  'PUT /api/apps/{appId}/live-activity-streams/{key}': {
    '400': [invalidTemplateSlug(facts)],
    '403': [example('A plan without Live Activities', 403, 'live activities are not available on your current plan')],
    '429': [example('Minutes used up', 429, 'live activity minutes limit exceeded for this billing period')],
  },
  'POST /api/apps/{appId}/broadcasts': {
    '400': [invalidTemplateSlug(facts), example('A missing field of the template', 400, 'contentState.value is required')],
    '403': [example('A plan without Live Activities', 403, 'live activities are not available on your current plan')],
    '409': [
      example(
        "Apple's channel limit",
        409,
        "channel limit reached: the app holds 10000 broadcast channels in production (Apple's limit); end broadcasts or remove orphan channels first",
      ),
    ],
    '429': [
      example('Minutes used up', 429, 'live activity minutes limit exceeded for this billing period'),
      example('Broadcasts at once', 429, 'broadcasts running at once are limited to 5 on your current plan'),
    ],
  },
  'PATCH /api/apps/{appId}/live-activities/{id}': {
    '400': [example('A field the template does not know', 400, 'contentState.progres is not a field of template progress-bar')],
    '409': [example('An ended activity', 409, 'live activity is not active')],
  },
  'DELETE /api/apps/{appId}/live-activities/{id}': { '409': [example('An ended activity', 409, 'live activity is not active')] },
  'PUT /api/apps/{appId}/live-activities/{id}/push-token': {
    '400': [example('A token that is not hex', 400, 'token must be an APNs token: an even number (64 to 200) of hex digits')],
    '409': [example('An ended activity', 409, 'live activity is not active')],
  },
  'PATCH /api/apps/{appId}/broadcasts/{id}': { '409': [example('An ended broadcast', 409, 'broadcast is not active')] },
  'DELETE /api/apps/{appId}/broadcasts/{id}': { '409': [example('An ended broadcast', 409, 'broadcast is not active')] },
  'POST /api/apps/{appId}/broadcasts/{id}/subscribers': { '400': [BOTH_TARGETS], '409': [example('An ended broadcast', 409, 'broadcast is not active')] },
  'POST /api/apps/{appId}/devices': { '400': [example('A token that is not hex', 400, 'token must be an APNs token: an even number (64 to 200) of hex digits')] },
  'POST /api/apps/{appId}/notifications/send': {
    '400': [
      example('A message over the limit', 400, 'payload exceeds 4096 bytes'),
      BOTH_TARGETS,
      example('A sendAt in the past', 400, 'sendAt is more than a minute in the past (2026-01-01T09:00:00.000Z)'),
    ],
    '404': [templateNotFound(DEMO.releaseVersion), example('An unknown testReleaseVersion', 404, 'release not found')],
    '422': [example('No Live release', 422, 'app has no live release'), example('testReleaseVersion not in Testing', 422, 'release is not in Testing status')],
  },
  'POST /api/apps/{appId}/notifications/{messageId}/opened': {
    '404': [example('An unknown message id', 404, 'message not found'), example('No delivery of it went to that device of that end user', 404, 'message was not sent to this device')],
  },
  'PUT /api/apps/{appId}/users/{endUserId}': { '400': TAG_BREACHES },
  'PATCH /api/apps/{appId}/users/{endUserId}': { '400': TAG_BREACHES },
  'POST /api/apps/{appId}/notifications/audience-count': { '400': [example('A malformed tag key', 400, 'audience tag key "plan!" must be 1 to 64 letters, digits, _, -, . or :')] },
  'DELETE /api/apps/{appId}/notifications/{messageId}': {
    '409': [example('Sent already', 409, 'nothing left to cancel: every delivery of the message has gone or was cancelled')],
  },
  'POST /api/admin/apps': {
    '400': [example('An unknown plan', 400, 'plan must be one of free, pro')],
    '409': [example('A taken id', 409, 'app acme-delivery already exists')],
  },
  'PATCH /api/admin/apps/{appId}': { '400': [example('An unknown plan', 400, 'plan must be one of free, pro')] },
  'POST /api/admin/apps/{appId}/secrets/{kind}': { '400': [example('An unknown kind', 400, 'kind must be one of app-secret, signing-secret')] },
  'PUT /api/admin/apps/{appId}/apns': { '400': [example('A malformed team id', 400, 'teamId must be 10 characters of A-Z and 0-9')] },
  'PUT /api/admin/apps/{appId}/fcm': { '400': [example('An incomplete service account', 400, 'serviceAccount.private_key is required')] },
  'PUT /api/admin/apps/{appId}/web-push': {
    '400': [
      example('A subject Apple refuses', 400, 'subject must be a mailto: address or an https: URL, without spaces or angle brackets, not at localhost'),
      example('A defaultUrl that is not https', 400, 'defaultUrl must be an https URL'),
    ],
  },
  'GET /api/admin/apps/{appId}/web-push': { '404': [example('Web Push not enabled', 404, 'the app has no Web Push')] },
  'DELETE /api/admin/apps/{appId}/web-push': { '404': [example('Web Push not enabled', 404, 'the app has no Web Push')] },
  'GET /api/apps/{appId}/web-push/public-key': { '404': [example('An unknown app, or one without Web Push', 404, 'the app has no Web Push')] },
  'POST /api/admin/apps/{appId}/live-activity-templates': {
    '400': [example('A reserved field name', 400, "contentState.isletActivityId is reserved for Islet's activity id")],
    '409': [
      example('A built-in slug', 409, 'progress-bar is a built-in template and cannot be replaced'),
      example('A taken slug', 409, 'live activity template ride already exists'),
    ],
  },
  'PUT /api/admin/apps/{appId}/live-activity-templates/{slug}': {
    '404': [example('No such template', 404, 'live activity template not found')],
    '409': [
      example('A required field added while in use', 409, 'contentState.speed must be optional: a template in use can only gain optional fields'),
      example('A field changed while in use', 409, 'contentState.etaMinutes cannot change while the template is in use'),
    ],
  },
  'DELETE /api/admin/apps/{appId}/live-activity-templates/{slug}': {
    '404': [example('No such template', 404, 'live activity template not found')],
    '409': [example('In use', 409, 'live activity template ride is in use by 2 active activities')],
  },
  'POST /api/admin/demo': {
    '409': [example('A demo already made', 409, 'app demo already exists: open it in the console, or delete it to make a fresh demo')],
    '422': [example('No plan with Live Activities', 422, 'no plan of the configuration allows live activities; add one to [plans] for the demo')],
  },
  'GET /api/admin/apps/{appId}/audience': { '400': [example('Not true or false', 400, 'testersOnly is invalid')] },
  'GET /api/admin/apps/{appId}/deliveries': { '400': [example('A malformed date', 400, 'since must be an ISO 8601 date-time or Unix seconds')] },
  'GET /api/admin/apps/{appId}/deliveries/{id}': { '400': [example('Not a delivery id', 400, 'id must be a delivery id (a positive integer)')] },
  'GET /api/admin/audit': { '400': [example('A malformed date', 400, 'since must be an ISO 8601 date-time')] },
  'POST /api/admin/apps/{appId}/releases': {
    '400': [
      example('A slug used twice', 400, 'templates.1.slug welcome is already used by templates.0'),
      example('A localization tag that is not BCP 47', 400, 'templates.0.localizations: en_US is not a BCP 47 language tag (such as de, de-AT, pt-BR)'),
    ],
    '409': [example('A taken version', 409, 'release 3 already exists')],
  },
  'PATCH /api/admin/apps/{appId}/releases/{version}': {
    '409': [example('A change the status cannot make', 409, 'release 1 cannot go from Live to Draft; it can become Archived')],
  },
  'PUT /api/admin/apps/{appId}/releases/{version}/templates/{slug}': {
    '409': [example('A frozen release', 409, 'release 1 is Live; templates of a Live or Archived release cannot be changed')],
  },
  'DELETE /api/admin/apps/{appId}/releases/{version}/templates/{slug}': {
    '404': [templateNotFound(DEMO.draftVersion)],
    '409': [example('A frozen release', 409, 'release 1 is Live; templates of a Live or Archived release cannot be changed')],
  },
  'GET /api/admin/apps/{appId}/broadcast-channels': { '502': [example('APNs refused', 502, 'APNs did not list the channels: FeatureNotEnabled')] },
  'DELETE /api/admin/apps/{appId}/broadcast-channels': {
    '400': [example('No channel id', 400, 'id is required')],
    '404': [example('A channel Apple does not know', 404, 'channel not found')],
    '409': [example("A broadcast's channel", 409, 'the channel belongs to a broadcast: end the broadcast instead')],
    '502': [example('APNs refused', 502, 'APNs did not delete the channel: FeatureNotEnabled')],
  },
  'POST /api/admin/apps/{appId}/webhooks': {
    '400': [example('An event type listed twice', 400, 'events: live_activity.started is listed twice')],
    '409': [example('Too many endpoints', 409, 'an app has at most 20 webhook endpoints')],
  },
  'POST /api/admin/apps/{appId}/webhooks/{id}/test': { '409': [example('A disabled endpoint', 409, 'webhook endpoint is disabled')] },
  'GET /readyz': {
    '503': [
      example('Starting', 503, 'database not ready'),
      example('Writes failing', 503, 'disk is full: the database cannot store anything more; nothing of this request was stored'),
    ],
  },
  'GET /metrics': { '401': [example('Without the metrics token', 401, 'metrics need Authorization: Bearer <metrics token>')] },
});

/** The table of each facts object (the app's one), made once rather than for each answer of each document served. */
const PARTICULAR = new WeakMap<ErrorFacts, ReturnType<typeof particular>>();

/** A path parameter's own 400, by name, where its format is checked. */
const PARAMETER_400: Record<string, string> = {
  key: 'key must be 1 to 128 characters of A-Z, a-z, 0-9, ., _, : and -',
  version: 'version must be a positive integer',
  slug: 'slug has an invalid format',
};

/** The 404 of the thing a path names, by its last `/collection/{parameter}`. */
const NOT_FOUND: [RegExp, string][] = [
  [/\/live-activities\/\{id\}/, 'live activity not found'],
  [/\/devices\/\{deviceId\}$/, 'device not found'],
  [/\/broadcasts\/\{id\}/, 'broadcast not found'],
  [/\/live-activity-streams\/\{key\}$/, 'activity stream not found'],
  [/\/releases\/\{version\}/, 'release not found'],
  [/\/end-users\/\{endUserId\}$/, 'end user not found'],
  [/\/users\/\{endUserId\}$/, 'end user not found'],
  [/\/deliveries\/\{id\}$/, 'delivery not found'],
  [/\/webhooks\/\{id\}/, 'webhook endpoint not found'],
  [/\/notifications\/\{messageId\}$/, 'message not found'],
];

const PUBLIC_401 = [
  example('No key', 401, 'X-Service-Key header is required'),
  example('A wrong key, or an unknown app', 401, 'invalid service key', {
    appId: DEMO.appId,
    hint: `either no app has the id ${DEMO.appId} or X-Service-Key is not its App Secret; the answer is the same for both, so that app ids cannot be probed`,
  }),
  example("Another app's key (a typo in the path)", 401, 'invalid service key', {
    appId: 'shp',
    keyAppId: 'shop',
    hint: 'X-Service-Key is the App Secret of app shop, not of shp: check the app id in the path',
  }),
];
const ADMIN_401 = [
  example('No token', 401, 'Authorization header with a Bearer admin token is required'),
  example('A wrong token', 401, 'invalid admin token'),
];

/**
 * The examples of one documented error answer: the operation's particular ones first (Swagger UI
 * shows the first), then those every operation of its kind can get. Empty when none is known (the
 * docs tests fail on that).
 */
export function errorExamples(path: string, method: string, status: string, operation: Json, facts: ErrorFacts): ProblemExample[] {
  const key = `${method.toUpperCase()} ${path}`;
  let table = PARTICULAR.get(facts);
  if (!table) PARTICULAR.set(facts, (table = particular(facts)));
  const list = [...(table[key]?.[status] ?? [])];
  const isPublic = path.startsWith('/api/apps/');
  const parameters: Json[] = operation.parameters ?? [];
  switch (status) {
    case '400': {
      const required = operation.requestBody?.content?.['application/json']?.schema?.required?.[0];
      if (typeof required === 'string') list.push(example('A required field left out', 400, `${required} is required`));
      for (const p of parameters) {
        if (p.in === 'path' && PARAMETER_400[p.name]) list.push(example(`A malformed ${p.name}`, 400, PARAMETER_400[p.name]!));
        const options = p.schema?.enum ?? p.schema?.anyOf?.map((o: Json) => o.const);
        if (p.in === 'query' && Array.isArray(options) && options.every((o: unknown) => typeof o === 'string'))
          list.push(example(`An unknown ${p.name}`, 400, `${p.name} must be one of ${options.join(', ')}`));
      }
      if (parameters.some((p) => p.in === 'query' && p.name === 'limit')) list.push(example('limit out of range', 400, 'limit must be an integer from 1 to 100'));
      if (operation.requestBody) list.push(example('A body that is not JSON', 400, 'request body is not valid JSON'));
      if (parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'))
        list.push(example('A malformed Idempotency-Key', 400, 'Idempotency-Key must be 1 to 255 printable ASCII characters'));
      break;
    }
    case '401':
      if (path.startsWith('/api/')) list.push(...(isPublic ? PUBLIC_401 : ADMIN_401));
      break;
    case '404': {
      if (path.startsWith('/api/admin/apps/{appId}')) list.push(example('An unknown app', 404, 'app not found'));
      const thing = NOT_FOUND.find(([pattern]) => pattern.test(path));
      if (thing) list.push(example('An unknown id', 404, thing[1]));
      break;
    }
    case '409':
      if (isPublic && method !== 'get') list.push(example('The same Idempotency-Key still running', 409, 'a request with this Idempotency-Key is still being processed'));
      break;
    case '413':
      list.push(example('A body over [server] max_body_bytes (64 KiB here)', 413, 'request body exceeds 64 KiB'));
      break;
    case '415':
      list.push(example('A body that is not JSON', 415, 'Content-Type must be application/json'));
      break;
    case '422':
      if (isPublic) list.push(example('An Idempotency-Key reused for another request', 422, 'Idempotency-Key was already used with a different request (method, path or body)'));
      break;
    case '429':
      if (isPublic) list.push(example('Wrong keys from this address', 429, 'too many failed authentications; try again in 2 s'), example("The app's request rate", 429, 'rate limit exceeded'));
      else if (path.startsWith('/api/admin/')) list.push(example('Wrong tokens from this address', 429, 'too many wrong tokens; try again in 2 s'));
      break;
    case '507':
      list.push(example('A full disk', 507, 'disk is full: the database cannot store anything more; nothing of this request was stored'));
      break;
  }
  return list;
}
