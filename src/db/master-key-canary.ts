/**
 * The `meta` row sealed with the master key: opening it proves a key fits the database. Start-up
 * writes and checks it (bootstrap.ts); a restore checks the backup's against the key it will use.
 */
export const CANARY_KEY = 'master_key_canary';
