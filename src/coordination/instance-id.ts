import { randomBytes } from 'node:crypto';

/** A new instance id, `<host>-<pid>-<random>`: never reused, even by a restart with the same pid. */
export function newInstanceId(host: string): string {
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
