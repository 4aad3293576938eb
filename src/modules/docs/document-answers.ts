/**
 * The answers every operation of a kind can get, whatever its route declares, in the media type
 * they are sent with: each error is `application/problem+json` (lib/errors.ts). Applied by
 * polishDocument; docs.contract.e2e.test.ts sends bad and good requests and checks that each answer
 * is documented. Each error answer has the same problem schema (plus the extension members it adds)
 * and real examples (error-examples.ts).
 */
import { errorExamples, problemMembers } from './error-examples';
import type { ErrorFacts } from './problem-example';

type Json = Record<string, any>;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

const PROBLEM_SCHEMA = {
  type: 'object',
  description:
    'A problem (RFC 9457). Some errors add extension members naming the value that was wrong, beside a detail whose text is fixed; ' +
    'the answers that do declare them. Clients ignore members they do not know.',
  required: ['title', 'status', 'detail'],
  properties: {
    title: { type: 'string', description: 'Standard reason phrase of the status.' },
    status: { type: 'integer', description: 'HTTP status code.' },
    detail: { type: 'string', description: 'What was wrong, naming the field where there is one.' },
  },
};

const problem = (description: string) => ({ description, content: { [PROBLEM_MEDIA_TYPE]: { schema: structuredClone(PROBLEM_SCHEMA) } } });

/** Methods whose requests the server reads a body of (http/body.ts: 413 and 415 before routing). */
const WITH_BODY = new Set(['post', 'put', 'patch', 'delete']);

const DESCRIPTIONS: Record<string, string> = {
  '400': 'Bad Request: the detail names the invalid field, parameter or header',
  '401': 'Unauthorized: credentials missing or wrong',
  '404': 'Not Found',
  '409': 'Conflict',
  '413': 'Content Too Large: the request body exceeds `[server] max_body_bytes` (64 KiB by default)',
  '415': 'Unsupported Media Type: a request body must be `application/json`',
  '422': 'Unprocessable Entity',
  '429': 'Too Many Requests: too many failed authentications from this address, or the app’s request rate limit; see `Retry-After`',
  '507': 'Insufficient Storage: the disk is full or failing; nothing was stored',
};

/**
 * Error answers in the media type they are sent with, plus what every operation of its kind can
 * answer: 413 and 415 where a body is read, 429 and 401 on the API (throttled authentication), 400
 * where an Idempotency-Key header is taken (malformed key), 507 where something is written.
 */
export function documentAnswers(path: string, method: string, operation: Json, facts: ErrorFacts): void {
  const responses: Json = (operation.responses ??= {});
  const add = (status: string) => (responses[status] ??= problem(DESCRIPTIONS[status]!));
  // An operation that asks no credentials (the VAPID public key a page subscribes with) has no failed authentication to answer.
  const open = Array.isArray(operation.security) && operation.security.length === 0;
  if (path.startsWith('/api/') && !open) {
    add('401');
    add('429');
  }
  if (WITH_BODY.has(method)) {
    add('413');
    add('415');
    if (path.startsWith('/api/')) add('507');
  }
  if (operation.requestBody || operation.parameters?.some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key')) add('400');
  const key = `${method.toUpperCase()} ${path}`;
  for (const [status, response] of Object.entries<Json>(responses)) {
    if (Number(status) < 400) continue;
    if (response.description === 'Error body' || !response.description) response.description = DESCRIPTIONS[status] ?? `Error ${status}`;
    // One schema for every error (the routes' TypeBox one carries a 400's examples), with the members this answer adds.
    const schema: Json = structuredClone(PROBLEM_SCHEMA);
    const members = problemMembers(key, status, path, facts);
    if (members) schema.properties = { ...schema.properties, ...structuredClone(members) };
    const examples = errorExamples(path, method, status, operation, facts);
    const media: Json = { schema };
    if (examples.length > 0) media.examples = Object.fromEntries(examples.map((e, i) => [`${status}-${i + 1}`, structuredClone(e)]));
    response.content = { [PROBLEM_MEDIA_TYPE]: media };
  }
}

/** Idempotency's own answers on a mutating operation of the public API. */
export function idempotencyAnswers(operation: Json): void {
  const responses: Json = (operation.responses ??= {});
  responses['409'] ??= problem('Conflict: a request with this Idempotency-Key is still being processed');
  responses['422'] ??= problem('Unprocessable Entity: the Idempotency-Key was used with a different request');
}

/**
 * `security: []` where no credentials are asked (health and readiness), optional Bearer where
 * `[metrics] token` may ask for one: tools then know these operations need nothing.
 */
export function documentOpenOperation(path: string, operation: Json): void {
  if (operation.security) return;
  operation.security = path === '/metrics' ? [{}, { metricsToken: [] }] : [];
}
