import fc, { type Arbitrary } from 'fast-check';

type Schema = Record<string, any>;

/** Strings a hostile client tries wherever a string goes. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  '../../etc/passwd',
  '%2e%2e%2f',
  'a#b/c?d',
  'line\r\nX-Injected: 1',
  '\u0000',
  '\ud800',
  '💥'.repeat(50),
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '{{constructor.constructor}}',
  'x'.repeat(5000),
];

export const HOSTILE_NUMBERS = [0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 2 ** 63, 1e308, -1e308, 0.5, Number.MIN_VALUE];

/**
 * Values that match a JSON schema (as served in the OpenAPI document), mostly, with boundary and
 * hostile values mixed in where a schema leaves room: the goal is to reach the handlers, not only
 * the validator.
 */
export function fromSchema(schema: Schema | undefined, depth = 0): Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((s: Schema) => fromSchema(s, depth + 1)));
  if (Array.isArray(schema.oneOf)) return fc.oneof(...schema.oneOf.map((s: Schema) => fromSchema(s, depth + 1)));
  switch (schema.type) {
    case 'string': {
      const max = Math.min(schema.maxLength ?? 40, 200);
      const min = Math.min(schema.minLength ?? 0, max);
      const base = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 300) : fc.string({ minLength: min, maxLength: max });
      return fc.oneof({ weight: 8, arbitrary: base }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) });
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      const inRange = schema.type === 'integer' ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }) : fc.double({ min, max, noNaN: true });
      return fc.oneof({ weight: 8, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(min, max, min - 1, max + 1) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), { minLength: Math.min(schema.minItems ?? 0, 3), maxLength: Math.min(schema.maxItems ?? 4, 6) });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const keys = Object.keys(properties);
      if (keys.length === 0) return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 });
      const record = fc.record(Object.fromEntries(keys.map((k) => [k, fromSchema(properties[k], depth + 1)])), { requiredKeys: (schema.required ?? []).filter((k: string) => keys.includes(k)) });
      return fc.oneof({ weight: 9, arbitrary: record }, { weight: 1, arbitrary: record.map((r) => ({ ...r, __proto__extra: 1, ['__proto__']: { polluted: true } })) });
    }
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}
