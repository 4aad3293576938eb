export interface EndpointRow {
  id: string;
  appId: string;
  url: string;
  description: string | null;
  /** JSON array, or null for every event. */
  events: string | null;
  secretSealed: string;
  /** The secret before the last rotation, still signing until `previousSecretUntil`. */
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface AttemptRow {
  id: number;
  eventId: string;
  eventType: string;
  attempt: number;
  at: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** A due delivery, joined with what sending it needs. */
export interface DueDelivery {
  id: number;
  attempts: number;
  eventId: string;
  eventType: string;
  body: string;
  endpointId: string;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  failingSince: number | null;
}
