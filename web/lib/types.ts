/** The shapes the console reads from the API (see the OpenAPI document at /swagger). */
import type { Platform } from './platforms';

export interface Channel {
  transport: 'simulator' | 'apns' | 'fcm';
  status: 'active' | 'paused';
  pausedReason: string | null;
  bundleId?: string;
  teamId?: string;
  keyId?: string;
  environment?: string;
  projectId?: string;
  clientEmail?: string;
  endpoint?: string | null;
}

/** A provider endpoint's health as the server sees it (GET /apps/{id}/endpoints). */
export interface EndpointHealth {
  provider: 'apns' | 'fcm';
  endpoint: string;
  state: 'healthy' | 'degraded' | 'down';
  reason: string | null;
  since: string;
  nextProbeAt: string | null;
  slowUntil: string | null;
  held: number;
}

export interface AppView {
  id: string;
  name: string;
  plan: string;
  source: 'config' | 'api';
  /** The IANA zone a `sendAtLocal` uses for devices without one. */
  defaultTimeZone: string;
  /** The budget `priority: "auto"` keeps to: priority-10 Live Activity updates per activity per device in a sliding hour. */
  liveActivityBudget: { priority10PerHour: number; frequentPriority10PerHour: number };
  /** Quiet hours in each device's local time; null: none. */
  quietHours: { start: string; end: string } | null;
  /** The most plain notifications per end user in `perHours` hours; null: no cap. */
  frequencyCap: { count: number; perHours: number } | null;
  createdAt: string;
  updatedAt: string;
  channels: { apns: Channel; fcm: Channel };
}

export interface Plan {
  name: string;
  liveActivities: boolean;
  minutes: number | null;
  overage: boolean;
}

export interface EndUser {
  id: string;
  tester: boolean;
  devices: number;
  createdAt: string;
  lastSeenAt: string;
}

export interface Device {
  id: string;
  /** null once the end user was erased. */
  endUserId: string | null;
  platform: Platform;
  /** web: the origin of its subscription's endpoint (which push service); never the endpoint. */
  endpointOrigin?: string;
  /** Absent: the app's default. */
  environment?: 'production' | 'sandbox';
  hasPushToStartToken: boolean;
  /** The ActivityAttributes types it holds an active push-to-start token for. */
  pushToStartTypes: string[];
  /** iOS: whether WidgetKit's widget and control push tokens are registered. */
  hasWidgetPushToken: boolean;
  hasControlPushToken: boolean;
  locale?: string;
  timeZone?: string;
  osVersion?: string;
  valid: boolean;
  invalidReason?: string;
  createdAt: string;
  updatedAt: string;
}

export interface Activity {
  id: string;
  appId: string;
  /** null once the end user was erased. */
  endUserId: string | null;
  templateSlug: string;
  state: 'Scheduled' | 'Active' | 'Ended';
  platform: Platform;
  startedAt: string;
  endedAt?: string;
  /** Only while Scheduled: when its start goes. */
  scheduledFor?: string;
}

export interface Delivery {
  id: number;
  kind: 'notification' | 'la_start' | 'la_update' | 'la_end' | 'widgets_reload' | 'controls_reload';
  /** null once its end user was erased. */
  deviceId: string | null;
  /** null once the device was deleted. */
  platform: Platform | null;
  provider: string | null;
  status: string;
  attempts: number;
  providerId: string | null;
  reason: string | null;
  sentPayload?: unknown;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string;
  activityId: string | null;
  endUserId: string | null;
  templateSlug: string | null;
  tokenId: number | null;
}

export interface DeliveryDetail extends Delivery {
  content: unknown;
  earlierAttempts: { attempt: number; at: string; provider: string | null; providerId: string | null; reason: string | null }[];
  token: {
    id: number;
    kind: string;
    state: 'active' | 'invalid';
    environment: string | null;
    invalidReason: string | null;
    invalidatedAt: string | null;
    reportedAt: string;
    createdAt: string;
    activityId: string | null;
  } | null;
}

export type ReleaseStatus = 'Draft' | 'Testing' | 'Live' | 'Archived';

export interface NotificationTemplate {
  slug: string;
  title: string;
  body: string;
  placeholders: string[];
}

export interface Release {
  version: number;
  status: ReleaseStatus;
  createdAt: string;
  updatedAt: string;
  templates: NotificationTemplate[];
}

export interface Usage {
  plan: string;
  /** false: the plan has no Live Activities (every start is 403). */
  liveActivities: boolean;
  periodStart: string;
  periodEnd: string;
  minutesUsed: number;
  quota: number | null;
  overage: boolean;
  overageMinutes: number;
  activeActivities: number;
  daily: { date: string; minutes: number }[];
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  address: string;
  action: string;
  appId: string | null;
  target: string;
  summary: Record<string, unknown>;
}

/** An Islet process serving the database (GET /api/admin/instances). */
export interface InstanceView {
  id: string;
  host: string;
  version: string;
  startedAt: string;
  lastSeen: string;
  leader: boolean;
}

/** An app's Web Push settings (GET/PUT /apps/{id}/web-push); 404 while it has none. */
export interface WebPushSettings {
  publicKey: string;
  subject: string;
  defaultUrl: string;
  expiryDays: number;
}
