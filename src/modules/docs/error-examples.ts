import { example, type ErrorFacts, type Json, type ProblemExample } from './problem-example';
import { operationErrorExamples } from './operation-error-examples';
import { DEMO } from '../apps/demo.service';

/**
 * A real example of each documented error answer: the status's own title, and a detail the server
 * answers for that operation (the spec's texts, the validation sentences, what authentication,
 * the body reader, idempotency and the database answer), with the extension members it adds.
 * Applied by documentAnswers; docs.error-examples.test.ts checks that each detail is one the
 * server's code produces, docs.contract.e2e.test.ts that drawn answers carry the documented members.
 */

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

/** A path parameter's own 400, by name, where its format is checked. */
const PARAMETER_400: Record<string, string> = {
  key: 'key must be 1 to 128 characters of A-Z, a-z, 0-9, ., _, : and -',
  version: 'version must be a positive integer',
  slug: 'slug must be 1-128 letters, digits, ., _ or -, starting with a letter or digit',
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
/** What an operation that also takes `X-End-User-Signature` (a device's own call) answers to a wrong one. */
const SIGNATURE_401 = example('A wrong X-End-User-Signature (or one for another end user)', 401, 'invalid end user signature');
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
  const list = operationErrorExamples(key, status, facts);
  const isPublic = path.startsWith('/api/apps/');
  const parameters: Json[] = operation.parameters ?? [];
  switch (status) {
    case '400': {
      const required = operation.requestBody?.content?.['application/json']?.schema?.required?.[0];
      if (typeof required === 'string') list.push(example('A required field left out', 400, `${required} is required`));
      for (const p of parameters) {
        // A slug's format is checked where its schema has one (a release template's, not an app template's path).
        if (p.in === 'path' && PARAMETER_400[p.name] && (p.name !== 'slug' || p.schema?.pattern)) list.push(example(`A malformed ${p.name}`, 400, PARAMETER_400[p.name]!));
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
      if (!path.startsWith('/api/')) break;
      // An operation a device may call with its end user's signature names both ways when neither
      // is given, and answers a wrong signature as such.
      if (isPublic && (operation.security as Json[] | undefined)?.some((s) => 'endUserSignature' in s))
        list.push(example('Neither credential', 401, 'X-Service-Key or X-End-User-Signature header is required'), ...PUBLIC_401.slice(1), SIGNATURE_401);
      else list.push(...(isPublic ? PUBLIC_401 : ADMIN_401));
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
