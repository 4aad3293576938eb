/**
 * The session advisory lock a pre-cluster Islet (one serving instance per database) holds
 * exclusively while it serves PostgreSQL. Instances of this version hold it shared
 * (coordination/postgres/pre-cluster-guard.ts), so neither starts beside the other: the older one
 * would send every push again. Another key than the migration lock's (migrate.ts).
 * 0x69736c65745f69 = "islet_i".
 */
export const INSTANCE_LOCK_KEY = 0x69736c65745f69n;
