/**
 * The configuration schema: every key, its type, default, environment variable and meaning.
 * It is the single source for validation, environment overrides, the redacted view and
 * `islet.example.toml` (a test checks that the example names every key here).
 */

export type FieldSpec =
  | { kind: 'string'; doc: string; default?: string; secret?: boolean | 'url-password'; oneOf?: readonly string[] }
  | { kind: 'integer'; doc: string; default?: number; min?: number; max?: number }
  | { kind: 'boolean'; doc: string; default?: boolean }
  | { kind: 'list'; doc: string; default?: readonly string[] };

export type SectionSpec = Record<string, FieldSpec>;

/** Sections with fixed keys; each key can be overridden by ISLET_<SECTION>_<KEY>. */
export const SECTIONS = {
  server: {
    host: { kind: 'string', default: '0.0.0.0', doc: 'Address to listen on.' },
    port: { kind: 'integer', default: 8080, min: 0, max: 65535, doc: 'TCP port to listen on (0 picks a free one).' },
    public_url: { kind: 'string', doc: 'Address users reach the server at; default http://localhost:<port>.' },
    rate_limit_per_second: {
      kind: 'integer',
      default: 1000,
      min: 0,
      doc: 'Requests per second allowed per app on the public API (bursts up to twice that); 0 turns the limit off. Several instances on one PostgreSQL: the total of all of them, each enforcing an equal share (this / live instances).',
    },
    tls_cert: { kind: 'string', doc: 'PEM certificate chain: serve HTTPS directly (with tls_key). Re-read on SIGHUP.' },
    tls_key: { kind: 'string', secret: true, doc: 'PEM private key of tls_cert. Re-read on SIGHUP.' },
    max_body_bytes: {
      kind: 'integer',
      default: 65536,
      min: 1024,
      max: 16 * 1024 * 1024,
      doc: 'Largest request body accepted, declared or chunked; larger ones get 413.',
    },
    trusted_proxies: {
      kind: 'list',
      default: [],
      doc: 'Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client (throttles key on the client address). Environment: comma-separated.',
    },
  },
  database: {
    path: { kind: 'string', default: 'data/islet.db', doc: 'SQLite database file, relative to the working directory.' },
    max_size_mb: {
      kind: 'integer',
      min: 1,
      doc: 'Largest size the database may grow to; writes beyond it answer 507 as on a full disk. Absent: no limit but the disk.',
    },
    outbox_thread: {
      kind: 'boolean',
      default: true,
      doc: 'Claim and record deliveries on a worker thread with its own connection (started by the first delivery), so the thread that sends and answers the API does less. false: all on one thread (less CPU in all; for a single core). SQLite only: on PostgreSQL the worker claims inline.',
    },
    url: {
      kind: 'string',
      secret: 'url-password',
      doc: 'PostgreSQL instead of the SQLite file: postgres://USER:PASSWORD@HOST:5432/DATABASE, TLS by sslmode in the URL (disable, allow, prefer, require, verify-ca, verify-full). serve and migrate migrate it under an advisory lock; check-config connects and says what is wrong. Absent: the SQLite file at path.',
    },
    pool_size: { kind: 'integer', default: 10, min: 1, max: 1000, doc: 'Most connections to PostgreSQL this instance opens ([database] url).' },
    ca_file: {
      kind: 'string',
      doc: 'CA certificate (PEM) the PostgreSQL server’s certificate must chain to; raises an sslmode below verify-ca to verify-full.',
    },
  },
  cluster: {
    lease_seconds: {
      kind: 'integer',
      default: 10,
      min: 2,
      max: 300,
      doc: 'Several instances on one PostgreSQL ([database] url): how long an instance that stopped answering keeps its claimed deliveries before another instance sends them again (renewed every third of it). Shorter: faster takeover after a crash; longer: fewer resends after a PostgreSQL outage.',
    },
  },
  admin: {
    token: {
      kind: 'string',
      secret: true,
      doc: 'Bearer token of the admin API and console sign-in. Absent: generated on first start, printed once, and kept (hashed) in the database.',
    },
  },
  security: {
    master_key: {
      kind: 'string',
      secret: true,
      doc: 'Base64 of 32 bytes that encrypt secrets at rest (AES-256-GCM). Absent: a key file islet.key (mode 0600) is created beside the database.',
    },
    allow_private_endpoints: {
      kind: 'boolean',
      default: false,
      doc: 'Allow provider endpoints and token_uri on loopback, private, link-local or unique-local addresses (and plain http to them). For tests and stand-ins only.',
    },
  },
  delivery: {
    worker: {
      kind: 'boolean',
      default: true,
      doc: 'false: this instance queues pushes and broadcasts but sends none (no delivery or broadcast worker): an API-only instance beside others on the same PostgreSQL that send (webhooks go from the scheduler leader, whichever it is). Needs [database] url.',
    },
  },
  scheduler: {
    tick_seconds: { kind: 'integer', default: 5, min: 1, max: 3600, doc: 'Interval of quota and expiry enforcement.' },
    retention_interval_minutes: { kind: 'integer', default: 60, min: 1, max: 10080, doc: 'Interval of the retention job (pruning old data).' },
  },
  retention: {
    activities_days: { kind: 'integer', default: 90, min: 1, doc: 'Ended activities older than this are deleted.' },
    deliveries_days: { kind: 'integer', default: 14, min: 1, doc: 'Finished deliveries older than this are deleted.' },
  },
  streams: {
    rotate_after_minutes: {
      kind: 'integer',
      default: 450,
      min: 1,
      max: 479,
      doc: 'An activity stream starts over (ends its activities, starts new ones) at the first PUT once an iOS instance has run this long: before the 8-hour limit.',
    },
  },
  push_to_start: {
    per_device: {
      kind: 'integer',
      default: 5,
      min: 1,
      max: 100,
      doc: 'Push-to-starts (iOS Live Activity starts) one device gets in any window of window_minutes; more wait, queued, until the window allows. iOS keeps a fixed on-device push-to-start budget and silently drops starts past it (about 10 in a short time, Apple DTS, forum thread 799505).',
    },
    window_minutes: { kind: 'integer', default: 30, min: 1, max: 1440, doc: 'The window of per_device, minutes.' },
  },
  metrics: {
    token: { kind: 'string', secret: true, doc: 'When set, GET /metrics needs Authorization: Bearer <token>; absent: /metrics is open.' },
  },
  notifications: {
    ttl_seconds: {
      kind: 'integer',
      default: 2419200,
      min: 0,
      max: 2419200,
      doc: 'How long FCM keeps a notification for an offline Android device (android.ttl) when its template or send sets no ttlSeconds; default and maximum 4 weeks, FCM’s own.',
    },
  },
  log: {
    level: { kind: 'string', default: 'info', oneOf: ['debug', 'info', 'warn', 'error', 'silent'], doc: 'Log level.' },
  },
} as const satisfies Record<string, SectionSpec>;

/** `[plans.<name>]`: what an app on that plan may do. */
export const PLAN_FIELDS = {
  live_activities: { kind: 'boolean', default: false, doc: 'Whether apps on this plan may start live activities.' },
  minutes: {
    kind: 'integer',
    min: 0,
    doc: 'Live activity minutes per billing period (calendar month, UTC); absent = unlimited; 0 = none.',
  },
  overage: { kind: 'boolean', default: false, doc: 'true: exceeding the minutes neither blocks starts nor ends activities.' },
  broadcasts: {
    kind: 'integer',
    min: 0,
    doc: 'Broadcast Live Activities an app may run at once (a create beyond it answers 429); absent = unlimited; 0 = none.',
  },
} as const satisfies SectionSpec;

/** `[[apps]]`: apps declared in the file, upserted at every start. */
export const APP_FIELDS = {
  id: { kind: 'string', doc: 'App identifier used in URLs (letters, digits, - and _).' },
  name: { kind: 'string', doc: 'Display name; default the id.' },
  plan: { kind: 'string', default: 'pro', doc: 'Name of a plan.' },
  app_secret: { kind: 'string', secret: true, doc: 'App Secret (X-Service-Key); absent: generated once and kept.' },
  signing_secret: { kind: 'string', secret: true, doc: 'Signing Secret (device HMAC); absent: generated once and kept.' },
  quiet_hours_start: {
    kind: 'string',
    doc: 'Quiet hours from this local time (HH:MM, with quiet_hours_end; each device’s time zone, else the app’s default): plain notifications wait until they end. Absent: as the admin API or console left it.',
  },
  quiet_hours_end: { kind: 'string', doc: 'Quiet hours until this local time (HH:MM); before quiet_hours_start: the window crosses midnight.' },
  frequency_cap_count: {
    kind: 'integer',
    min: 1,
    max: 1000,
    doc: 'Frequency cap: at most this many plain notifications per end user (with frequency_cap_per_hours). Absent: as the admin API or console left it.',
  },
  frequency_cap_per_hours: { kind: 'integer', min: 1, max: 168, doc: 'Frequency cap: in any window of this many hours.' },
} as const satisfies SectionSpec;

export const APNS_FIELDS = {
  bundle_id: { kind: 'string', doc: 'The iOS app bundle id (APNs topic).' },
  team_id: { kind: 'string', doc: 'Apple developer team id (iss of the provider token).' },
  key_id: { kind: 'string', doc: 'Id of the APNs auth key (kid of the provider token).' },
  key_file: { kind: 'string', doc: 'Path of the .p8 auth key.' },
  environment: {
    kind: 'string',
    default: 'production',
    oneOf: ['production', 'sandbox'],
    doc: 'Default APNs environment of the app’s devices (a device may declare its own).',
  },
  endpoint: { kind: 'string', doc: "Override of Apple's production host, e.g. https://127.0.0.1:9443 (tests, proxies)." },
  sandbox_endpoint: { kind: 'string', doc: "Override of Apple's sandbox host, e.g. https://127.0.0.1:9445 (tests, proxies)." },
  channels_endpoint: { kind: 'string', doc: "Override of Apple's production channel-management host (default https://api-manage-broadcast.push.apple.com:2196)." },
  sandbox_channels_endpoint: { kind: 'string', doc: "Override of Apple's sandbox channel-management host (default https://api-manage-broadcast.sandbox.push.apple.com:2195)." },
  broadcast_endpoint: { kind: 'string', doc: "Override of Apple's production broadcast host (default https://api.push.apple.com)." },
  sandbox_broadcast_endpoint: { kind: 'string', doc: "Override of Apple's sandbox broadcast host (default https://api.sandbox.push.apple.com)." },
  ca_file: { kind: 'string', doc: 'Extra trusted CA (PEM) for those endpoints.' },
} as const satisfies SectionSpec;

export const FCM_FIELDS = {
  service_account_file: { kind: 'string', doc: 'Firebase service account JSON; its project_id and token_uri are honoured.' },
  endpoint: { kind: 'string', doc: "Override of Google's FCM host, e.g. http://127.0.0.1:9444." },
} as const satisfies SectionSpec;

/** `[apps.web_push]`: the app's Web Push (issue 46), as `PUT /api/admin/apps/{appId}/web-push` sets it. */
export const WEB_PUSH_FIELDS = {
  subject: { kind: 'string', doc: 'The contact push services see: a mailto: address or an https: URL (not localhost).' },
  default_url: { kind: 'string', doc: 'https URL a notification opens when its template has no url.' },
  private_key_file: { kind: 'string', doc: 'PEM P-256 private key to sign with (VAPID); absent: generated once and kept.' },
  expiry_days: { kind: 'integer', min: 1, default: 60, doc: 'Days a subscription not registered again stays a target.' },
} as const satisfies SectionSpec;

/**
 * `[apps.live_activity_budget]`: the budget `priority: "auto"` keeps to (issue 47), as `PATCH
 * /api/admin/apps/{appId}` sets it (`liveActivityBudget`); why the defaults: docs/live-activity-budget.md.
 */
export const LIVE_ACTIVITY_BUDGET_FIELDS = {
  priority10_per_hour: {
    kind: 'integer',
    min: 0,
    doc: 'Priority-10 updates per activity per device in a sliding hour that priority "auto" sends; past it updates go at 5. Absent: 10 (or as the admin API set it).',
  },
  frequent_priority10_per_hour: {
    kind: 'integer',
    min: 0,
    doc: 'The same on a device whose app reported frequentPushesEnabled (ActivityKit). Absent: 60 (or as the admin API set it).',
  },
} as const satisfies SectionSpec;

/**
 * `[[apps.live_activity_templates]]`: app-defined Live Activity templates (issue 39), created or
 * made to match at every start; with `[apps.live_activity_templates.attributes]` and
 * `[apps.live_activity_templates.content_state]`, each field `{ type = "integer", required = true, list = false }`.
 */
export const LIVE_ACTIVITY_TEMPLATE_FIELDS = {
  slug: { kind: 'string', doc: 'Template slug (lowercase letters, digits and -); not one of the eight built-ins.' },
  attributes_type: { kind: 'string', doc: 'The Swift ActivityAttributes type of the app (the APNs attributes-type).' },
} as const satisfies SectionSpec;

/** The field types of an app-defined template. */
export const TEMPLATE_FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const;

export interface TemplateFieldConfig {
  type: (typeof TEMPLATE_FIELD_TYPES)[number];
  required?: boolean;
  list?: boolean;
}

export interface LiveActivityTemplateConfig {
  slug: string;
  attributesType: string;
  attributes: Record<string, TemplateFieldConfig>;
  contentState: Record<string, TemplateFieldConfig>;
}

type ValueOf<F extends FieldSpec> = F extends { kind: 'integer' }
  ? number
  : F extends { kind: 'boolean' }
    ? boolean
    : F extends { kind: 'list' }
      ? string[]
      : string;
type Resolved<S extends SectionSpec> = {
  -readonly [K in keyof S]: S[K] extends { default: unknown } ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

export type PlanConfig = Resolved<typeof PLAN_FIELDS>;
export type ApnsConfig = Resolved<typeof APNS_FIELDS>;
export type FcmConfig = Resolved<typeof FCM_FIELDS>;
export type WebPushConfig = Resolved<typeof WEB_PUSH_FIELDS>;
export type LiveActivityBudgetConfig = Resolved<typeof LIVE_ACTIVITY_BUDGET_FIELDS>;
export type AppConfig = Resolved<typeof APP_FIELDS> & { id: string; apns?: ApnsConfig; fcm?: FcmConfig; web_push?: WebPushConfig; live_activity_budget?: LiveActivityBudgetConfig; liveActivityTemplates?: LiveActivityTemplateConfig[] };

export type Config = { [S in keyof typeof SECTIONS]: Resolved<(typeof SECTIONS)[S]> } & {
  plans: Record<string, PlanConfig>;
  apps: AppConfig[];
  /** Where the configuration came from, for messages: a file path or "built-in defaults". */
  source: string;
};

/** Plans that exist without any configuration; `[plans.<name>]` keys override or add to them. */
export const DEFAULT_PLANS: Readonly<Record<string, PlanConfig>> = {
  free: { live_activities: false, minutes: undefined, overage: false, broadcasts: undefined },
  pro: { live_activities: true, minutes: 10000, overage: false, broadcasts: undefined },
};
