import { Kind, Type, TypeRegistry, type SchemaOptions } from '@sinclair/typebox';
import { t, type TSchema } from 'elysia';

/** The body of every error response; the document gives each answer its own examples (modules/docs/error-examples.ts). */
export const Problem = t.Object(
  {
    title: t.String({ description: 'Standard reason phrase of the status.' }),
    status: Type.Integer({ description: 'HTTP status code.' }),
    detail: t.String({ description: 'What was wrong, naming the field where there is one.' }),
  },
  { description: 'Error body' },
);

/**
 * The detail of a 400 when a value fails its schema, kept under a symbol so that it stays out of
 * the OpenAPI document (validation-detail.ts reads it). Needed where Elysia loses the field's name.
 */
export const INVALID_DETAIL = Symbol.for('islet.invalidDetail');

/** Where withDetail's text names the field: replaced by its path (`audience.tags.plan`). */
export const FIELD = '{field}';

/** The schema, answering `detail` when a value fails it (FIELD in it becomes the field's path). */
export function withDetail<T extends TSchema>(schema: T, detail: string): T {
  return Object.assign(schema, { [INVALID_DETAIL]: detail });
}

/** An integer in JSON (responses, bodies): TypeBox's own, as Elysia's t.Integer also takes numeric strings and documents them so. */
export const Int = (options?: SchemaOptions) => Type.Integer(options);

const INTEGER_TEXT = /^(?:0|-?[1-9][0-9]{0,15})$/;
const INTEGER_PARAM = 'IsletIntegerParam';
if (!TypeRegistry.Has(INTEGER_PARAM)) {
  TypeRegistry.Set<{ minimum?: number; maximum?: number }>(INTEGER_PARAM, (schema, value) => {
    const n = typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value;
    return (
      typeof n === 'number' &&
      Number.isSafeInteger(n) &&
      (schema.minimum === undefined || n >= schema.minimum) &&
      (schema.maximum === undefined || n <= schema.maximum)
    );
  });
}

/**
 * An integer in a path or query string: decimal digits only (no `1e3`, `1.0`, `0x10` or spaces),
 * decoded to a number. Documented as `type: integer`; `detail` is the 400's text.
 * @example limit: t.Optional(IntegerParam({ minimum: 1, maximum: 100 }, 'limit must be an integer from 1 to 100'))
 */
export function IntegerParam(options: SchemaOptions & { minimum?: number; maximum?: number; default?: number }, detail: string) {
  const schema = Type.Unsafe<number>({ ...options, type: 'integer', [Kind]: INTEGER_PARAM });
  return withDetail(
    Type.Transform(schema)
      .Decode((value) => Number(value))
      .Encode((value) => value),
    detail,
  );
}

export const AppParams = t.Object({ appId: t.String({ description: 'The app identifier.' }) });

export const Success = t.Object({ success: t.Literal(true) });

export const MAX_OFFSET = 1_000_000;

/** `limit` (1-100, default 50) and `offset` (0-1,000,000, default 0). */
export const PageQuery = {
  limit: t.Optional(IntegerParam({ minimum: 1, maximum: 100, default: 50, description: 'Maximum number of results (1 to 100).' }, 'limit must be an integer from 1 to 100')),
  // Bounded: SQLite refuses offsets of 2^63 and more, and no list is deep enough to need more.
  offset: t.Optional(
    IntegerParam({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Pagination offset (0 to 1,000,000).' }, 'offset must be an integer from 0 to 1000000'),
  ),
};

/** Error responses for the OpenAPI document, by status. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, Problem]));
