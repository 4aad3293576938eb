import type { Leadership } from '../coordination';

const yes = Promise.resolve(true);

/** The only process serving its database is its scheduler's leader. */
export const alwaysLeader: Leadership = { isLeader: () => yes, current: () => true, release: async () => {} };
