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
 * - a union of number literals (`priority: 5 | 10`), which the generator turns into a string enum, is an integer enum;
 * - every mutating operation of the public API takes an `Idempotency-Key` header (modules/idempotency);
 * - a string map (TypeBox's `patternProperties` of `^(.*)$`) is `additionalProperties`, which
 *   client generators understand (openapi-typescript turns the other into a map of `never`).
 */
export function polishDocument(doc: Json, routes: DocumentedRoute[]): Json {
  const bodies = new Map(routes.filter((r) => r.hooks.body).map((r) => [`${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`, r.hooks.body]));
  for (const [path, operations] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      if (path.startsWith('/api/apps/') && MUTATING.has(method)) idempotencyKey(operation);
      if (!operation?.requestBody) continue;
      const schema = bodies.get(`${method} ${path}`);
      const json = operation.requestBody.content?.['application/json'] ?? (schema ? { schema: structuredClone(schema) } : undefined);
      if (!json) continue;
      operation.requestBody.content = { 'application/json': json };
      if (json.schema?.[OPTIONAL_BODY]) {
        operation.requestBody.required = false;
        delete json.schema[OPTIONAL_BODY];
      }
      numberEnums(json.schema);
      const examples = json.schema?.examples;
      if (Array.isArray(examples) && examples.length > 1) {
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
  stringMaps(doc.paths);
  return doc;
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
  }
  for (const value of Object.values(s)) numberEnums(value);
}

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['title', 'status', 'detail'],
  properties: { title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' } },
};

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
  const problem = (description: string) => ({ description, content: { 'application/json': { schema: PROBLEM_SCHEMA } } });
  operation.responses ??= {};
  operation.responses['409'] ??= problem('Conflict');
  operation.responses['422'] ??= problem('Idempotency-Key already used with a different request');
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
