import { STATUS_CODES } from 'node:http';

export interface Problem {
  title: string;
  status: number;
  detail: string;
}

/**
 * The one error type of the application. Its `detail` is meant for the client; anything else
 * thrown is an internal error whose message is logged, never returned.
 * @example throw new HttpError(404, 'live activity not found')
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }

  toProblem(): Problem {
    return problem(this.status, this.detail);
  }
}

/** The `title` is the status's standard reason phrase, from the platform's table (507: "Insufficient Storage"). */
export function problem(status: number, detail: string): Problem {
  return { title: STATUS_CODES[status] ?? `Status ${status}`, status, detail };
}

export function problemResponse(status: number, detail: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem(status, detail)), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
