import type { ActivityRow } from '../live-activities/live-activities.types';

/** What erasing an end user removed (the DELETE's answer). */
export interface Erased {
  devices: number;
  tokens: number;
  tags: number;
  liveActivities: number;
  /** Whether the end user was marked as a tester (the flag is gone with them). */
  tester: boolean;
}
