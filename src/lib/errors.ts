/** Standard reason phrases, used as the `title` of every error body. */
const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

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

export function problem(status: number, detail: string): Problem {
  return { title: TITLES[status] ?? 'Error', status, detail };
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
