/**
 * The session advisory lock a pre-cluster Islet (one serving instance per database) holds while it
 * serves PostgreSQL. This version never takes it: it only checks that no such server runs before it
 * registers (coordination/postgres/instance.ts), since the older one would send every push again.
 * Another key than the migration lock's (migrate.ts). 0x69736c65745f69 = "islet_i".
 */
export const INSTANCE_LOCK_KEY = 0x69736c65745f69n;
