import type { ActivityRow } from './live-activities.types';

/** A billing period, ms: [start, end). */
export interface Period {
  start: number;
  end: number;
}
