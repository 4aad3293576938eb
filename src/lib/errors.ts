import { STATUS_CODES } from 'node:http';

/**
 * Members an error adds to `{title, status, detail}` (RFC 9457 extension members): the value that
 * was wrong, where the detail is a fixed text (the spec's `invalid template slug`).
 */
export type ProblemExtensions = Record<string, unknown>;

export interface Problem {
  title: string;
  status: number;
  detail: string;
  [extension: string]: unknown;
}

/**
 * The one error type of the application. Its `detail` is meant for the client; anything else
 * thrown is an internal error whose message is logged, never returned.
 * @example throw new HttpError(404, 'live activity not found')
 * @example throw new HttpError(400, 'invalid template slug', {}, { templateSlug: 'progres-bar' })
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    readonly extensions: ProblemExtensions = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }

  toProblem(): Problem {
    return problem(this.status, this.detail, this.extensions);
  }
}

/**
 * The `title` is the status's standard reason phrase, from the platform's table (507: "Insufficient
 * Storage"). Extension members follow and cannot replace title, status or detail.
 */
export function problem(status: number, detail: string, extensions: ProblemExtensions = {}): Problem {
  const { title: _title, status: _status, detail: _detail, ...members } = extensions;
  return { title: STATUS_CODES[status] ?? `Status ${status}`, status, detail, ...members };
}

export function problemResponse(status: number, detail: string, headers: Record<string, string> = {}, extensions: ProblemExtensions = {}): Response {
  return new Response(JSON.stringify(problem(status, detail, extensions)), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

/** How much of a sent value an error echoes in an extension member: enough to spot a typo, never a whole hostile body. */
export const ECHOED_CHARACTERS = 200;

/** A value as sent, cut to ECHOED_CHARACTERS (an ellipsis marks the cut). */
export const echoed = (value: string): string => (value.length > ECHOED_CHARACTERS ? `${value.slice(0, ECHOED_CHARACTERS)}…` : value);

export const badRequest = (detail: string) => new HttpError(400, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
