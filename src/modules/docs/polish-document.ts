import { documentAnswers, documentOpenOperation, idempotencyAnswers } from './document-answers';
import type { ErrorFacts } from './problem-example';
import SUCCESS_EXAMPLES from './success-examples.json';
import { BODY_EXAMPLES, NOT_TRYABLE_ON_THE_DEMO, PARAM_EXAMPLES, PARAM_OVERRIDES, SUCCESS_RESPONSES } from './operation-docs';

type Json = Record<string, any>;

/** Marks a body schema as optional (the generator always says `required: true`); removed from the document. */
export const OPTIONAL_BODY = 'x-islet-optional-body';

/** What the document needs of a registered route: its body schema. */
export interface DocumentedRoute {
  method: string;
  path: string;
  hooks: { body?: unknown };
}

/**
 * Adjusts the generated OpenAPI document to what the API really does:
 * - request bodies are JSON only, with the route's body schema (the generator lists no media type
 *   when a parse hook is set, as the app's limited JSON reader is; form encodings are answered 415);
 * - a body schema's list of examples becomes named examples (one per template for a start), which
 *   Swagger UI offers in a drop-down instead of showing only the first;
 * - a body marked OPTIONAL_BODY is not required (DELETE of a Live Activity);
 * - a union of number literals (`priority: 5 | 10`), which the generator turns into a string enum, is an integer enum
 *   (with string literals beside them, `"auto" | 5 | 10`: a string enum or an integer enum);
 * - every mutating operation of the public API takes an `Idempotency-Key` header (modules/idempotency);
 * - a string map (TypeBox's `patternProperties` of `^(.*)$`) is `additionalProperties`, which
 *   client generators understand (openapi-typescript turns the other into a map of `never`);
 * - what the routes do not say (operation-docs.ts): body examples, path parameter examples (the
 *   demo app's ids, so "Try it out" works as shipped on a demo instance), admin success answers, and
 *   a real answer under each success (success-examples.json, scripts/docs/record-success-examples.ts);
 * - errors in the media type they are sent with, with real examples (error-examples.ts; `facts`
 *   are what those need from other modules), the answers every operation of its kind can get,
 *   and `security: []` where none is asked (document-answers.ts);
 * - OpenAPI 3.1.0 (what contract runners accept; the generator says 3.1.2, which adds nothing used
 *   here) and this server as the one server, relative so that "Try it out" works from any address.
 */
export function polishDocument(
  doc: Json,
  routes: DocumentedRoute[],
  facts: ErrorFacts,
  instanceParams: Record<string, Record<string, unknown>> = {},
  instanceBodies: Record<string, unknown[]> = {},
): Json {
  doc.openapi = '3.1.0';
  doc.servers = [{ url: '/', description: 'This server' }];
  const bodies = new Map(routes.filter((r) => r.hooks.body).map((r) => [`${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`, r.hooks.body]));
  for (const [path, operations] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      if (typeof operation !== 'object' || operation === null) continue;
      const key = `${method.toUpperCase()} ${path}`;
      if (path.startsWith('/api/apps/') && MUTATING.has(method)) idempotencyKey(operation);
      documentParameters(operation, key, instanceParams[key]);
      documentSuccess(operation, key);
      documentOpenOperation(path, operation);
      const notTryable = NOT_TRYABLE_ON_THE_DEMO[key];
      if (notTryable) operation.description = `${operation.description ? `${operation.description} ` : ''}On the demo app, "Try it out" ${notTryable}.`;
      if (!operation.requestBody) continue;
      const schema = bodies.get(`${method} ${path}`);
      const json = operation.requestBody.content?.['application/json'] ?? (schema ? { schema: structuredClone(schema) } : undefined);
      if (!json) continue;
      operation.requestBody.content = { 'application/json': json };
      if (json.schema?.[OPTIONAL_BODY]) {
        operation.requestBody.required = false;
        delete json.schema[OPTIONAL_BODY];
      }
      numberEnums(json.schema);
      const bodyExamples = instanceBodies[key] ?? BODY_EXAMPLES[key];
      if (!json.schema?.examples && !json.examples && bodyExamples) json.schema = { ...json.schema, examples: bodyExamples };
      const examples = json.schema?.examples;
      if (Array.isArray(examples) && examples.length > 0) {
        // Named by template (a second example of one template gets `-2`), else by position.
        const seen = new Map<string, number>();
        json.examples = Object.fromEntries(
          examples.map((value: Json, i: number) => {
            const slug = value?.templateSlug;
            if (typeof slug !== 'string') return [`example-${i + 1}`, { summary: `Example ${i + 1}`, value }];
            const n = (seen.get(slug) ?? 0) + 1;
            seen.set(slug, n);
            const name = n === 1 ? slug : `${slug}-${n}`;
            return [name, { summary: n === 1 ? slug : `${slug} with options`, value }];
          }),
        );
        delete json.schema.examples;
      }
    }
  }
  // Error answers last: their examples read the request body schema set above.
  for (const [path, operations] of Object.entries<Json>(doc.paths ?? {}))
    for (const [method, operation] of Object.entries<Json>(operations)) if (typeof operation === 'object' && operation !== null) documentAnswers(path, method, operation, facts);
  stringMaps(doc.paths);
  return doc;
}

/** Each path parameter gets the demo's value as its example, which Swagger UI puts in the field. */
function documentParameters(operation: Json, key: string, instance: Record<string, unknown> = {}): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter?.in !== 'path') continue;
    const value = instance[parameter.name] ?? parameter.example ?? PARAM_OVERRIDES[key]?.[parameter.name] ?? PARAM_EXAMPLES[parameter.name];
    if (value !== undefined) parameter.example = value;
  }
}

/** The success answer operation-docs.ts knows, where the route declares none, and a recorded real answer as its example. */
function documentSuccess(operation: Json, key: string): void {
  const known = SUCCESS_RESPONSES[key];
  const responses = (operation.responses ??= {});
  const declared = Object.keys(responses).some((status) => Number(status) < 400 && responses[status]?.content);
  if (known && !declared) {
    const media = known.text ? { [known.text]: { schema: { type: 'string' } } } : { 'application/json': { schema: JSON.parse(JSON.stringify(known.schema)) } };
    responses[String(known.status)] = { description: known.description, content: media };
  }
  // A real answer (success-examples.json, recorded on a demo instance) under the success, where the route gives none.
  const recorded = (SUCCESS_EXAMPLES as Record<string, unknown>)[key];
  for (const [status, response] of Object.entries<Json>(responses)) {
    const json = Number(status) < 300 ? response?.content?.['application/json'] : undefined;
    if (recorded !== undefined && json && json.example === undefined && json.examples === undefined) json.example = structuredClone(recorded);
  }
}

function numberEnums(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as Json;
  if (s.type === 'string' && Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((v: unknown) => Number.isInteger(v))) s.type = 'integer';
  // The route's own TypeBox schema (used where the generator lists none) spells it as anyOf of consts.
  const consts = Array.isArray(s.anyOf) ? s.anyOf.map((o: Json) => o?.const) : [];
  if (consts.length > 0 && consts.every((v: unknown) => Number.isInteger(v))) {
    delete s.anyOf;
    Object.assign(s, { type: 'integer', enum: consts });
  } else if (consts.some((v: unknown) => Number.isInteger(v)) && consts.every((v: unknown) => Number.isInteger(v) || typeof v === 'string')) {
    // `priority: "auto" | 5 | 10`: a string enum or an integer enum.
    const strings = consts.filter((v: unknown) => typeof v === 'string');
    const integers = consts.filter((v: unknown) => Number.isInteger(v));
    s.anyOf = [{ type: 'string', enum: strings }, { type: 'integer', enum: integers }];
  }
  for (const value of Object.values(s)) numberEnums(value);
}

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

/** The Idempotency-Key header and the two answers only it causes. */
function idempotencyKey(operation: Json): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      description:
        'Makes a retry safe: a repeat with the same key within 24 hours does nothing again and answers the first answer, with `Idempotent-Replayed: true`. ' +
        'Answers 429 and 5xx are not kept (the retry runs). Keys are per app, 1 to 255 printable ASCII characters.',
    },
  ];
  idempotencyAnswers(operation);
  const detail = 'With `Idempotency-Key`: 409 `a request with this Idempotency-Key is still being processed`; 422 when the key was used with a different request.';
  operation.description = operation.description ? `${operation.description} ${detail}` : detail;
}

function stringMaps(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as Json;
  const patterns = s.patternProperties;
  if (patterns && typeof patterns === 'object' && Object.keys(patterns).length === 1 && patterns['^(.*)$']) {
    s.additionalProperties = patterns['^(.*)$'];
    delete s.patternProperties;
  }
  for (const value of Object.values(s)) stringMaps(value);
}
