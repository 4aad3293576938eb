type Json = Record<string, any>;

/**
 * Adjusts the generated OpenAPI document to what the API really does:
 * - request bodies are JSON only (the generator also lists form encodings, which are answered 415);
 * - a body schema's list of examples becomes named examples (one per template for a start), which
 *   Swagger UI offers in a drop-down instead of showing only the first.
 */
export function polishDocument(doc: Json): Json {
  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(operations)) {
      const json = operation?.requestBody?.content?.['application/json'];
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
