type Json = Record<string, any>;

/** Marks a body schema as optional (the generator always says `required: true`); removed from the document. */
export const OPTIONAL_BODY = 'x-islet-optional-body';

/**
 * Adjusts the generated OpenAPI document to what the API really does:
 * - request bodies are JSON only (the generator also lists form encodings, which are answered 415);
 * - a body schema's list of examples becomes named examples (one per template for a start), which
 *   Swagger UI offers in a drop-down instead of showing only the first;
 * - a body marked OPTIONAL_BODY is not required (DELETE of a Live Activity);
 * - a union of number literals (`priority: 5 | 10`), which the generator turns into a string enum, is an integer enum.
 */
export function polishDocument(doc: Json): Json {
  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(operations)) {
      const json = operation?.requestBody?.content?.['application/json'];
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
  return doc;
}

function numberEnums(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as Json;
  if (s.type === 'string' && Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((v: unknown) => Number.isInteger(v))) s.type = 'integer';
  for (const value of Object.values(s)) numberEnums(value);
}
