import { Type } from '@sinclair/typebox';
import { t } from 'elysia';

/** The body of every error response. */
export const Problem = t.Object(
  {
    title: t.String({ description: 'Standard reason phrase of the status.', examples: ['Bad Request'] }),
    // TypeBox's own Integer: Elysia's t.Integer also accepts numeric strings, which is for input only.
    status: Type.Integer({ description: 'HTTP status code.', examples: [400] }),
    detail: t.String({ description: 'What was wrong, naming the field where there is one.', examples: ['contentState.progress is required'] }),
  },
  { description: 'Error body' },
);

export const AppParams = t.Object({ appId: t.String({ description: 'The app identifier.' }) });

export const Success = t.Object({ success: t.Literal(true) });

export const MAX_OFFSET = 1_000_000;

/**
 * `limit` (1-100, default 50) and `offset` (0-1,000,000, default 0). Elysia checks coerced query numbers
 * without the parameter's name, so each carries its own message (see validation-detail.ts).
 */
export const PageQuery = {
  limit: t.Optional(
    t.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Maximum number of results (1 to 100).', error: 'limit must be an integer from 1 to 100' }),
  ),
  // Bounded: SQLite refuses offsets of 2^63 and more, and no list is deep enough to need more.
  offset: t.Optional(
    t.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Pagination offset (0 to 1,000,000).', error: 'offset must be an integer from 0 to 1000000' }),
  ),
};

/** Error responses for the OpenAPI document, by status. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, Problem]));
