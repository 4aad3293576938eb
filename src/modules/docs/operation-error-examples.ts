import { example, type ErrorFacts, type ProblemExample } from './problem-example';
import { DEMO } from '../apps/demo.service';

/** An unknown template slug, as the examples send it. */
const TYPO = 'progres-bar';

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
      example('A message over the limit', 400, 'payload exceeds 4096 bytes: 4410 bytes once rendered'),
      BOTH_TARGETS,
      example('A sendAt in the past', 400, 'sendAt is more than a minute in the past (2026-01-01T09:00:00.000Z)'),
    ],
    '404': [templateNotFound(DEMO.releaseVersion), example('An unknown testReleaseVersion', 404, 'release not found')],
    '422': [example('No Live release', 422, 'app has no live release'), example('testReleaseVersion not in Testing', 422, 'release is not in Testing status')],
  },
  'POST /api/apps/{appId}/notifications/{messageId}/opened': {
    '404': [example('An unknown message id', 404, 'message not found'), example('No delivery of it went to that device of that end user', 404, 'message was not sent to this device')],
  },
  'POST /api/apps/{appId}/notifications/{messageId}/received': {
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
    '400': [example('Another slug than the path’s', 400, "slug must be the path's (ride): a template cannot be renamed")],
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

/**
 * The answers particular to one operation (`METHOD /path`) with this status, from the table of
 * the app's facts; empty when the operation has none of its own.
 */
export function operationErrorExamples(key: string, status: string, facts: ErrorFacts): ProblemExample[] {
  let table = PARTICULAR.get(facts);
  if (!table) PARTICULAR.set(facts, (table = particular(facts)));
  return [...(table[key]?.[status] ?? [])];
}
