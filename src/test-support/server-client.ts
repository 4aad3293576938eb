/** A call's answer: status and body (JSON parsed; other text as is; undefined when empty). */
export interface Answer {
  status: number;
  body: any;
}

/**
 * JSON calls to a served process (spawn-server.ts): `call` authenticates with the app's service key
 * unless told otherwise, `admin` with the admin token. `origin` is read at each call, so a client
 * can be made before the server has started.
 * @example const { call, admin } = serverClient(() => server.url, SECRET, 't'); await call('GET', '/api/apps/demo/devices');
 */
export function serverClient(origin: () => string, serviceKey: string, adminToken: string) {
  const call = async (method: string, path: string, body?: unknown, auth: Record<string, string> = { 'x-service-key': serviceKey }): Promise<Answer> => {
    const res = await fetch(`${origin()}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : /^[[{]/.test(text) ? JSON.parse(text) : text };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, body, { authorization: `Bearer ${adminToken}` });
  /** A POST that must succeed (benchmarks): its body, or an error naming the status and body. */
  const postOk = async (path: string, body: unknown, auth?: Record<string, string>) => {
    const answer = await call('POST', path, body, auth);
    if (answer.status >= 300) throw new Error(`POST ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown>;
  };
  return { call, admin, postOk };
}
