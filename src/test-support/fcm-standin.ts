import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import type { ServiceAccount } from '../modules/apps/credentials';
import { FaultInjector, seededRandom } from './fault-injection';
import { checkFcmMessage } from './fcm-message-rules';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/** One message as the stand-in received it. */
export interface FcmReceived {
  project: string;
  authorization: string;
  body: any;
  raw: string;
}

export interface FcmAnswer {
  status: number;
  /** google.rpc status, e.g. UNAVAILABLE. */
  rpcStatus?: string;
  /** FcmError errorCode, e.g. UNREGISTERED. */
  errorCode?: string;
  /** google.rpc.BadRequest field violations: what was wrong with the message. */
  violations?: FieldViolation[];
  headers?: Record<string, string>;
}

export interface FieldViolation {
  field: string;
  description: string;
}

export interface FcmStandin {
  url: string;
  /** The token_uri its service accounts carry. */
  tokenUri: string;
  requests: FcmReceived[];
  /** Successful OAuth token exchanges. */
  tokenExchanges: number;
  /** A fresh service account (RSA key) registered with the stand-in for `project`. */
  serviceAccount(project?: string): ServiceAccount;
  /** Answers valid sends: return an answer (or a promise of one) to override 200. */
  respond(fn: ((req: FcmReceived) => FcmAnswer | undefined | Promise<FcmAnswer | undefined>) | undefined): void;
  /** Makes the token exchange refuse every assertion (invalid_grant) while true. */
  refuseTokens(refuse: boolean): void;
  /** Makes a registration token answer 404 UNREGISTERED. */
  unregister(token: string): void;
  /** Makes a registration token answer 400 INVALID_ARGUMENT naming the registration token (a malformed one). */
  malform(token: string): void;
  /** The device with this registration token subscribes to a topic (what the app's FirebaseMessaging.subscribeToTopic does). */
  subscribe(token: string, topic: string): void;
  unsubscribe(token: string, topic: string): void;
  /** The messages accepted for a registration token so far, sent to it or to a topic it was subscribed to then. */
  inbox(token: string): { via: 'token' | 'topic'; message: any }[];
  /**
   * Injected failures on valid sends: 500 INTERNAL, 503 UNAVAILABLE, 429 QUOTA_EXCEEDED for the
   * device with Retry-After; `goaway` and `reset` draws (HTTP/1.1 has neither) answer 503 too.
   */
  faults: FaultInjector;
  /** Stops listening (connections are refused) until `comeBack`, which listens on the same port again. */
  goAway(): Promise<void>;
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

/**
 * An FCM HTTP v1 error body, as Google shapes it: `details` carries an FcmError with the error code
 * and, for a bad request, a google.rpc.BadRequest with the violated fields.
 * @example fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', undefined, [{ field: 'message.data[0].value', description: "Invalid value at 'message.data[0].value' (TYPE_STRING), 1" }])
 */
export function fcmError(status: number, rpcStatus = STATUS_TEXT[status] ?? 'UNKNOWN', errorCode?: string, message = rpcStatus, violations: FieldViolation[] = []): object {
  const details = [
    ...(errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : []),
    ...(violations.length > 0 ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }] : []),
  ];
  return { error: { code: status, message, status: rpcStatus, ...(details.length > 0 ? { details } : {}) } };
}

/** Google's answer to a message it cannot take: 400 INVALID_ARGUMENT naming the field. */
const badRequest = (field: string, description: string) =>
  fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', description, [{ field, description }]);

/**
 * An HTTP server that speaks FCM HTTP v1 `messages:send` and the OAuth2 JWT-bearer token exchange:
 * it verifies the RS256 assertion against the service account's public key (issuer, audience =
 * its token_uri, scope), accepts only the access tokens it issued for the message's project, and
 * checks that data values are strings and Google's other rules (fcm-message-rules.ts).
 * @example const fcm = await startFcmStandin(); const account = fcm.serviceAccount('demo-project');
 */
export async function startFcmStandin(options: { port?: number; seed?: number } = {}): Promise<FcmStandin> {
  const accounts = new Map<string, { project: string; key: Promise<CryptoKey> }>();
  const accessTokens = new Map<string, string>();
  const unregistered = new Set<string>();
  const malformed = new Set<string>();
  const topics = new Map<string, Set<string>>();
  const inboxes = new Map<string, { via: 'token' | 'topic'; message: any }[]>();
  const receive = (token: string, via: 'token' | 'topic', message: unknown) => {
    if (unregistered.has(token)) return;
    let inbox = inboxes.get(token);
    if (!inbox) inboxes.set(token, (inbox = []));
    inbox.push({ via, message });
  };
  let responder: Parameters<FcmStandin['respond']>[0];
  let refusing = false;
  const faults = new FaultInjector(options.seed === undefined ? Math.random : seededRandom(options.seed));
  const state = { requests: [] as FcmReceived[], tokenExchanges: 0 };

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

  async function exchange(req: Request, tokenUri: string): Promise<Response> {
    const form = new URLSearchParams(await req.text());
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return json(400, { error: 'unsupported_grant_type' });
    const assertion = form.get('assertion') ?? '';
    const issuer = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString() || '{}').iss as string | undefined;
    const account = issuer ? accounts.get(issuer) : undefined;
    if (refusing || !account) return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    try {
      const { payload } = await jwtVerify(assertion, await account.key, { algorithms: ['RS256'], issuer, audience: tokenUri });
      if (!String(payload.scope ?? '').split(' ').includes(FCM_SCOPE)) return json(400, { error: 'invalid_scope' });
    } catch {
      return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    }
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    accessTokens.set(token, account.project);
    state.tokenExchanges++;
    return json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  async function send(req: Request, project: string): Promise<Response> {
    const authorization = req.headers.get('authorization') ?? '';
    const raw = await req.text();
    const received: FcmReceived = { project, authorization, body: undefined, raw };
    state.requests.push(received);
    const token = authorization.match(/^Bearer (.+)$/)?.[1];
    if (!token || !accessTokens.has(token)) return json(401, fcmError(401, 'UNAUTHENTICATED', undefined, 'Request had invalid authentication credentials.'));
    if (accessTokens.get(token) !== project) return json(403, fcmError(403, 'PERMISSION_DENIED'));
    try {
      received.body = JSON.parse(raw);
    } catch {
      return json(400, fcmError(400));
    }
    const message = received.body?.message;
    const targets = ['token', 'topic', 'condition'].filter((k) => message?.[k] !== undefined);
    if (targets.length !== 1) return json(400, fcmError(400, 'INVALID_ARGUMENT', undefined, 'Exactly one of message.token, message.topic or message.condition is required'));
    if (message.condition !== undefined) return json(400, fcmError(400, 'INVALID_ARGUMENT', undefined, 'the stand-in does not model conditions'));
    const topic = message.topic as unknown;
    // Firebase's topic names: [a-zA-Z0-9-_.~%]{1,900}, without the "/topics/" prefix in HTTP v1.
    if (topic !== undefined && !(typeof topic === 'string' && /^[a-zA-Z0-9\-_.~%]{1,900}$/.test(topic)))
      return json(400, badRequest('message.topic', `Invalid value at 'message.topic'`));
    if (topic === undefined && (typeof message.token !== 'string' || message.token === ''))
      return json(400, fcmError(400, 'INVALID_ARGUMENT', undefined, 'message.token is required'));
    const nonString = Object.values(message.data ?? {}).findIndex((v) => typeof v !== 'string');
    if (nonString >= 0) {
      const field = `message.data[${nonString}].value`;
      return json(400, badRequest(field, `Invalid value at '${field}' (TYPE_STRING), ${JSON.stringify(Object.values(message.data)[nonString])}`));
    }
    const refused = checkFcmMessage(message);
    if (refused) return json(400, fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', refused.description, refused.field ? [{ field: refused.field, description: refused.description }] : []));
    const ttl = message.android?.ttl;
    if (ttl !== undefined && !(typeof ttl === 'string' && /^\d+(\.\d{1,9})?s$/.test(ttl)))
      return json(400, badRequest('message.android.ttl', `Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), "${ttl}"`));
    if (malformed.has(message.token))
      return json(400, fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', [{ field: 'message.token', description: 'Invalid registration token' }]));
    if (unregistered.has(message.token)) return json(404, fcmError(404, 'NOT_FOUND', 'UNREGISTERED'));
    const fault = faults.draw();
    if (fault === 'internal') return json(500, fcmError(500, 'INTERNAL'));
    if (fault === 'too-many')
      return json(429, fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED', 'Device message rate exceeded.'), { 'retry-after': String(faults.retryAfterS) });
    if (fault) return json(503, fcmError(503, 'UNAVAILABLE'));
    const answer = responder ? await responder(received) : undefined;
    if (answer && answer.status !== 200)
      return json(answer.status, fcmError(answer.status, answer.rpcStatus, answer.errorCode, undefined, answer.violations), answer.headers);
    if (typeof topic === 'string') for (const token of topics.get(topic) ?? []) receive(token, 'topic', message);
    else receive(message.token, 'token', message);
    return json(200, { name: `projects/${project}/messages/${randomUUID()}` });
  }

  let tokenUri = '';
  const serve = (port: number) =>
    Bun.serve({
      hostname: '127.0.0.1',
      port,
      fetch: route,
    });
  async function route(req: Request): Promise<Response> {
      const { pathname } = new URL(req.url);
      if (req.method === 'POST' && pathname === '/token') return exchange(req, tokenUri);
      const project = pathname.match(/^\/v1\/projects\/([^/]+)\/messages:send$/)?.[1];
      if (req.method === 'POST' && project) return send(req, project);
      return json(404, fcmError(404));
  }
  let server: ReturnType<typeof Bun.serve> | undefined = serve(options.port ?? 0);
  const port = server.port!;
  const url: string = `http://127.0.0.1:${port}`;
  tokenUri = `${url}/token`;

  return {
    url,
    tokenUri,
    get requests() {
      return state.requests;
    },
    get tokenExchanges() {
      return state.tokenExchanges;
    },
    serviceAccount(project = 'demo-project') {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const email = `islet-${randomBytes(4).toString('hex')}@${project}.iam.gserviceaccount.com`;
      accounts.set(email, { project, key: importSPKI(publicKey.export({ format: 'pem', type: 'spki' }).toString(), 'RS256') });
      return { project_id: project, client_email: email, private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), token_uri: tokenUri };
    },
    respond: (fn) => {
      responder = fn;
    },
    refuseTokens: (refuse) => {
      refusing = refuse;
    },
    unregister: (token) => unregistered.add(token),
    malform: (token) => void malformed.add(token),
    subscribe: (token, topic) => {
      let tokens = topics.get(topic);
      if (!tokens) topics.set(topic, (tokens = new Set()));
      tokens.add(token);
    },
    unsubscribe: (token, topic) => void topics.get(topic)?.delete(token),
    inbox: (token) => inboxes.get(token) ?? [],
    faults,
    goAway: async () => {
      await server?.stop(true);
      server = undefined;
    },
    comeBack: async () => {
      server ??= serve(port);
    },
    close: async () => {
      await server?.stop(true);
      server = undefined;
    },
  };
}
