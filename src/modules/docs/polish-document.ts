type Json = Record<string, any>;

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
 *   Swagger UI offers in a drop-down instead of showing only the first.
 */
export function polishDocument(doc: Json, routes: DocumentedRoute[]): Json {
  const bodies = new Map(routes.filter((r) => r.hooks.body).map((r) => [`${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`, r.hooks.body]));
  for (const [path, operations] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      if (!operation?.requestBody) continue;
      const schema = bodies.get(`${method} ${path}`);
      const json = operation.requestBody.content?.['application/json'] ?? (schema ? { schema: structuredClone(schema) } : undefined);
      if (!json) continue;
      operation.requestBody.content = { 'application/json': json };
      const examples = json.schema?.examples;
      if (Array.isArray(examples) && examples.length > 1) {
        json.examples = Object.fromEntries(
          examples.map((value: Json, i: number) => [value?.templateSlug ?? `example-${i + 1}`, { summary: value?.templateSlug ?? `Example ${i + 1}`, value }]),
        );
        delete json.schema.examples;
      }
    }
  }
  return doc;
}
